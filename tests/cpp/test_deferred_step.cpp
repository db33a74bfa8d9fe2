// The readback-free step (train/step.hpp DeviceSteps; kernels.hpp sum_to, sumsq_to, step_guard,
// adam_guarded), the one a deferred table (WebGPU) takes, run here on the CPU table whose
// entries are the host-readable ones of kernels/readback_free.hpp: for every kind of model the
// toy trainer drives, the steps leave the same weights and Adam moments as the direct step, bit
// for bit, with the clip active, and their records hold the direct steps' loss and gradient
// norm. A step whose loss is not finite, and every step after it, change nothing, and once the
// trainer is rewound to it the run goes on as the one that never took it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "data/point_task.hpp"
#include "data/seq_task.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

struct Setup {
  std::unique_ptr<Task> task;
  nlohmann::json config;
  TrainOptions opts;
};

std::vector<float> floats(const float* p, long n) { return std::vector<float>(p, p + n); }

// The small Transformer these cases train on the task (1 + 1 layers, d_model 16, 2 heads).
nlohmann::json tiny_transformer(const Task& task, double dropout) {
  return {{"model", "transformer"},
          {"src_vocab", task.src_vocab()},
          {"tgt_vocab", task.tgt_vocab()},
          {"d_model", 16},
          {"heads", 2},
          {"d_ff", 32},
          {"enc_layers", 1},
          {"dec_layers", 1},
          {"dropout", dropout},
          {"max_len", 24}};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Backend floats for a DeviceSteps log of `steps` steps (the CPU table: host memory).
struct Log {
  explicit Log(int steps) : rec(2 * size_t(steps)), state(4, 0.f) {
    d.records = rec.data();
    d.state = state.data();
    d.capacity = steps;
  }
  std::vector<float> rec, state;
  DeviceSteps d;
};

void check_same_as_direct(const Setup& s, int steps) {
  auto direct = make_model(s.config, cpu_kernels(), 3);
  Trainer a(*direct, *s.task, s.opts);
  std::vector<StepInfo> info;
  for (int i = 0; i < steps; ++i) info.push_back(a.step());

  auto deferred = make_model(s.config, cpu_kernels(), 3);
  Log log(steps);
  TrainOptions o = s.opts;
  o.device = &log.d;
  Trainer b(*deferred, *s.task, o);
  for (int i = 0; i < steps; ++i) {
    const StepInfo r = b.step();
    CHECK(std::isnan(r.loss));  // nothing read on the host
  }
  REQUIRE(log.d.used == steps);
  int clipped = 0;
  for (int i = 0; i < steps; ++i) {
    INFO("step " << i + 1);
    CHECK(log.rec[2 * size_t(i)] == float(info[size_t(i)].loss));
    CHECK(log.rec[2 * size_t(i) + 1] == info[size_t(i)].grad_norm);
    clipped += info[size_t(i)].grad_norm > s.opts.clip;
  }
  CHECK(clipped > 0);  // the clip factor took part
  CHECK(log.state[0] == 0.f);
  const long n = direct->params().total();
  CHECK(same_bits(floats(direct->params().values(), n), floats(deferred->params().values(), n)));
  CHECK(same_bits(floats(a.adam().first_moments(), n), floats(b.adam().first_moments(), n)));
  CHECK(same_bits(floats(a.adam().second_moments(), n), floats(b.adam().second_moments(), n)));
}

}  // namespace

TEST_CASE("readback-free step: a Transformer's steps equal the direct ones bit for bit",
          "[train][deferred]") {
  Setup s;
  s.task = make_task("reverse");
  s.config = tiny_transformer(*s.task, 0.1);
  s.opts.batch = 8;
  s.opts.seed = 7;
  s.opts.schedule.warmup = 4;
  s.opts.schedule.d_model = 16;
  s.opts.clip = 0.5f;
  s.opts.label_smoothing = 0.1f;
  check_same_as_direct(s, 8);
}

TEST_CASE("readback-free step: RNNsearch's steps equal the direct ones bit for bit",
          "[train][deferred]") {
  Setup s;
  auto dates = make_seq_task("dates");
  s.config = {{"model", "rnnsearch"},
              {"src_vocab", dates->src_vocab()},
              {"tgt_vocab", dates->tgt_vocab()},
              {"emb", 8},
              {"hidden", 12},
              {"attn", 12}};
  s.task = std::move(dates);
  s.opts.batch = 6;
  s.opts.seed = 4;
  s.opts.schedule.kind = "constant";
  s.opts.schedule.lr = 3e-3f;
  s.opts.clip = 0.02f;
  check_same_as_direct(s, 6);
}

TEST_CASE("readback-free step: the pointer network's steps equal the direct ones bit for bit",
          "[train][deferred]") {
  Setup s;
  s.task = make_task(task_for_model("convex-hull", "pointer"), {{"n_min", 4}, {"n_max", 6}});
  s.config = pointer_config_for(*s.task, 12, true);
  s.opts = pointer_train_options();
  s.opts.batch = 6;
  s.opts.clip = 0.005f;
  check_same_as_direct(s, 6);
}

TEST_CASE("readback-free step: a step that is not finite and every later one change nothing",
          "[train][deferred]") {
  auto task = make_task("reverse");
  const nlohmann::json cfg = tiny_transformer(*task, 0.0);
  auto m = make_model(cfg, cpu_kernels(), 3);
  Log log(5);
  TrainOptions o;
  o.batch = 4;
  o.schedule.warmup = 4;
  o.schedule.d_model = 16;
  o.device = &log.d;
  Trainer tr(*m, *task, o);
  tr.step();
  tr.step();
  ParamArena& P = m->params();
  const long n = P.total();
  // a weight the output reads becomes NaN: the loss of step 3 is NaN
  const int out = P.find("generator.weight") >= 0 ? P.find("generator.weight") : P.count() - 1;
  P.val(out)[0] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> w = floats(P.values(), n), m1 = floats(tr.adam().first_moments(), n);
  tr.step();
  CHECK(same_bits(floats(P.values(), n), w));  // step 3 changed nothing
  // a finite weight again: steps 4 and 5 would be finite, but the stop holds
  P.val(out)[0] = 0.f;
  const std::vector<float> w0 = floats(P.values(), n);
  tr.step();
  tr.step();
  CHECK(std::isfinite(log.rec[0]));
  CHECK(std::isfinite(log.rec[2]));
  CHECK_FALSE(std::isfinite(log.rec[4]));
  CHECK(log.state[0] == 1.f);
  CHECK(same_bits(floats(P.values(), n), w0));
  CHECK(same_bits(floats(tr.adam().first_moments(), n), m1));
  // the count goes back to the step before the first one that was not finite
  tr.rewind_to(3);
  CHECK(tr.next_step() == 3);
  CHECK(tr.adam().steps() == 2);

  // From there the run is the one that never took the bad step: the data and dropout generators
  // went back with the step, so steps 3 and 4 draw the batches and masks that run draws.
  auto ref = make_model(cfg, cpu_kernels(), 3);
  Log log2(4);
  TrainOptions o2 = o;
  o2.device = &log2.d;
  Trainer never(*ref, *task, o2);
  never.step();
  never.step();
  ref->params().val(out)[0] = 0.f;
  REQUIRE(same_bits(floats(ref->params().values(), n), w0));
  log.d.used = 0;  // a new chunk (api::Session::begin_steps)
  std::fill(log.state.begin(), log.state.end(), 0.f);
  for (int i = 0; i < 2; ++i) {
    tr.step();
    never.step();
  }
  CHECK(log.state[0] == 0.f);
  CHECK(same_bits(floats(P.values(), n), floats(ref->params().values(), n)));
  CHECK(same_bits(floats(tr.adam().first_moments(), n), floats(never.adam().first_moments(), n)));
}

TEST_CASE("a step that throws (not finite on the host) leaves the generators as it found them",
          "[train]") {
  auto task = make_task("reverse");
  const nlohmann::json cfg = tiny_transformer(*task, 0.2);
  TrainOptions o;
  o.batch = 4;
  o.schedule.warmup = 4;
  o.schedule.d_model = 16;
  auto m = make_model(cfg, cpu_kernels(), 3);
  auto ref = make_model(cfg, cpu_kernels(), 3);
  Trainer tr(*m, *task, o), never(*ref, *task, o);
  tr.step();
  never.step();
  ParamArena& P = m->params();
  const long n = P.total();
  const int out = P.find("generator.weight") >= 0 ? P.find("generator.weight") : P.count() - 1;
  const float keep = P.val(out)[0];
  P.val(out)[0] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(tr.step(), Catch::Contains("training step 2: the loss is not finite"));
  CHECK(tr.next_step() == 2);
  P.val(out)[0] = keep;
  for (int i = 0; i < 2; ++i) {
    tr.step();
    never.step();
  }
  CHECK(same_bits(floats(P.values(), n), floats(ref->params().values(), n)));
}
