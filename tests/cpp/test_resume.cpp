// A resumed run is the same run: for each model the toy trainer drives (a Transformer on
// reverse with dropout, RNNsearch on dates, the pointer network on convex hulls), N steps in
// one sitting and N/2 + a resumed N/2 (through checkpoint bytes: weights, Adam's moments and
// step, the generators) end in identical bytes, parameters and optimizer state alike. A resume
// with a fresh Adam does not, so the comparison can tell the two apart. One thread (the
// default of the test binary). The session keeps the same state with save(true).
#include <catch2/catch.hpp>
#include <cstring>

#include "api/model_session.hpp"
#include "data/point_task.hpp"
#include "data/seq_task.hpp"
#include "io/checkpoint.hpp"
#include "train/train_state.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

struct Setup {
  std::unique_ptr<Task> task;
  nlohmann::json config;
  TrainOptions opts;
};

// Every tensor's bytes and the training state of a run saved after its last step.
struct Saved {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> tensors;
  nlohmann::json state;
};

Saved save(Model& m, const Trainer& tr) {
  SafeTensors st = model_tensors(m, false);
  nlohmann::json state = nlohmann::json::object();
  tr.save_state(st, state);
  Saved s;
  for (const StTensor& t : st.tensors) s.tensors.emplace_back(t.name, t.data);
  s.state = state;
  return s;
}

// The checkpoint bytes of a run after `steps` steps.
std::vector<uint8_t> checkpoint_after(const Setup& s, int steps) {
  auto m = make_model(s.config, cpu_kernels(), 3);
  Trainer tr(*m, *s.task, s.opts);
  for (int i = 0; i < steps; ++i) tr.step();
  SafeTensors st = model_tensors(*m, false);
  nlohmann::json state = nlohmann::json::object();
  tr.save_state(st, state);
  st.metadata["attnlab_train"] = state.dump();
  return serialize_safetensors(st);
}

// Continues the run in `bytes` for `steps` steps (exact = false: with a fresh Adam).
Saved resume(const Setup& s, const std::vector<uint8_t>& bytes, int steps, bool exact) {
  const SafeTensors st = parse_safetensors(bytes.data(), bytes.size());
  nlohmann::json state;
  auto m = model_from_safetensors(st, cpu_kernels(), &state);
  TrainOptions o = s.opts;
  o.first_step = state["step"].get<int>() + 1;
  Trainer tr(*m, *s.task, o);
  if (exact) tr.restore_state(st, state);
  for (int i = 0; i < steps; ++i) tr.step();
  return save(*m, tr);
}

Saved straight(const Setup& s, int steps) {
  auto m = make_model(s.config, cpu_kernels(), 3);
  Trainer tr(*m, *s.task, s.opts);
  for (int i = 0; i < steps; ++i) tr.step();
  return save(*m, tr);
}

void check_resume_is_exact(const Setup& s, int steps) {
  const Saved whole = straight(s, steps);
  const std::vector<uint8_t> half = checkpoint_after(s, steps / 2);
  const Saved resumed = resume(s, half, steps - steps / 2, true);
  REQUIRE(resumed.tensors.size() == whole.tensors.size());
  for (size_t i = 0; i < whole.tensors.size(); ++i) {
    INFO(whole.tensors[i].first);
    CHECK(resumed.tensors[i].first == whole.tensors[i].first);
    CHECK(resumed.tensors[i].second == whole.tensors[i].second);
  }
  CHECK(resumed.state == whole.state);  // step, Adam's step count, both generators
  CHECK(whole.state["step"] == steps);
  CHECK(whole.state["adam_steps"] == steps);
  // a fresh Adam (the resume attn had before) ends elsewhere
  const Saved fresh = resume(s, half, steps - steps / 2, false);
  bool differs = false;
  for (size_t i = 0; i < whole.tensors.size(); ++i)
    differs = differs || fresh.tensors[i].second != whole.tensors[i].second;
  CHECK(differs);
}

}  // namespace

TEST_CASE("resume: a Transformer on reverse continues bit for bit", "[train][resume]") {
  Setup s;
  s.task = make_task("reverse");
  s.config = {{"model", "transformer"},
              {"src_vocab", s.task->src_vocab()},
              {"tgt_vocab", s.task->tgt_vocab()},
              {"d_model", 16},
              {"heads", 2},
              {"d_ff", 32},
              {"enc_layers", 1},
              {"dec_layers", 1},
              {"dropout", 0.1},  // the dropout generator must continue too
              {"max_len", 24}};
  s.opts.batch = 8;
  s.opts.seed = 7;
  s.opts.schedule.warmup = 4;
  s.opts.schedule.d_model = 16;
  check_resume_is_exact(s, 12);
}

TEST_CASE("resume: RNNsearch on dates continues bit for bit", "[train][resume]") {
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
  check_resume_is_exact(s, 10);
}

TEST_CASE("resume: the pointer network on convex hulls continues bit for bit", "[train][resume]") {
  Setup s;
  s.task = make_task(task_for_model("convex-hull", "pointer"), {{"n_min", 4}, {"n_max", 6}});
  s.config = pointer_config_for(*s.task, 12, true);
  s.opts = pointer_train_options();
  s.opts.batch = 6;
  s.opts.seed = 5;
  s.opts.schedule.lr_final = 1e-4f;  // the decay, as --lr-final/--decay-from set it
  s.opts.schedule.decay_from = 3;
  s.opts.schedule.decay_to = 10;
  check_resume_is_exact(s, 10);
}

TEST_CASE("resume: a checkpoint without optimizer state is refused by name", "[train][resume]") {
  auto task = make_task("copy");
  auto m = make_model({{"model", "transformer"},
                       {"src_vocab", task->src_vocab()},
                       {"tgt_vocab", task->tgt_vocab()},
                       {"d_model", 8},
                       {"heads", 2},
                       {"d_ff", 8},
                       {"enc_layers", 1},
                       {"dec_layers", 1}},
                      cpu_kernels(), 1);
  TrainOptions o;
  o.batch = 4;
  Trainer tr(*m, *task, o);
  const SafeTensors st = model_tensors(*m, false);
  CHECK(!has_optimizer_state(st));
  REQUIRE_THROWS_WITH(tr.restore_state(st, {{"step", 3}, {"data_rng", {}}, {"dropout_rng", {}}}),
                      Catch::Contains("optimizer.m"));
  REQUIRE_THROWS_WITH(tr.restore_state(st, {{"step", 3}}), Catch::Contains("generators"));
}

TEST_CASE("resume: a session saved with its optimizer continues bit for bit", "[api][resume]") {
  const nlohmann::json cfg = {{"model",
                               {{"model", "transformer"},
                                {"d_model", 16},
                                {"heads", 2},
                                {"d_ff", 16},
                                {"enc_layers", 1},
                                {"dec_layers", 1},
                                {"dropout", 0.1}}},
                              {"task", "reverse"},
                              {"seed", 3},
                              {"train", {{"batch", 8}, {"warmup", 4}}}};
  auto whole = api::Session::create(cfg);
  whole->train(8);
  auto first = api::Session::create(cfg);
  first->train(4);
  const std::vector<uint8_t> with = first->save(true), without = first->save();
  CHECK(with.size() > 2 * without.size());
  auto resumed = api::Session::load(with, nlohmann::json::object());  // its "train" config kept
  resumed->train(4);
  CHECK(resumed->save(true) == whole->save(true));
  auto fresh = api::Session::load(without, nlohmann::json::object());
  fresh->train(4);
  CHECK(fresh->save() != whole->save());
}
