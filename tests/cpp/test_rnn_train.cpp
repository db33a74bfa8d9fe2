// Training behaviour of the recurrent models on held-out data (fast settings; the paper-scale
// runs are in experiments/reproduce.mjs): RNNsearch learns dates with a near-gold alignment,
// Ptr-Net learns to sort, convex-hull training lowers the held-out loss, and an RNNencdec
// with a one-way encoder learns faster from reversed input (the §3 demo's setting).
#include <catch2/catch.hpp>

#include "api/model_session.hpp"
#include "data/point_task.hpp"
#include "eval/align_eval.hpp"
#include "eval/point_eval.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

TEST_CASE("RNNsearch learns dates: held-out accuracy and alignment error rate", "[model]") {
  const auto task = make_seq_task("dates");
  auto model = make_model({{"model", "rnnsearch"},
                           {"src_vocab", task->src_vocab()},
                           {"tgt_vocab", task->tgt_vocab()},
                           {"emb", 32},
                           {"hidden", 32},
                           {"attn", 32}},
                          cpu_kernels(), 1);
  TrainOptions o;
  o.batch = 32;
  o.schedule.kind = "constant";
  o.schedule.lr = 5e-3f;
  o.clip = 5.f;
  o.seed = 7;
  Trainer tr(*model, *task, o);
  Model& rs = *model;
  const AlignEval before = evaluate_aligned(rs, *task, 200, 99);
  for (int s = 0; s < 400; ++s) tr.step();
  const AlignEval after = evaluate_aligned(rs, *task, 200, 99);
  INFO(after.to_json().dump());
  CHECK(before.sequence_accuracy < 0.05);
  CHECK(after.sequence_accuracy >= 0.95);
  CHECK(after.aer <= 0.2);
  CHECK(after.aer < before.aer - 0.5);
}

TEST_CASE("Ptr-Net learns to sort 5 numbers (held-out exact order)", "[model]") {
  const auto task = make_task(task_for_model("sort", "pointer"), {{"n_min", 5}, {"n_max", 5}});
  auto model = make_model(pointer_config_for(*task, 32, false), cpu_kernels(), 1);
  TrainOptions o = pointer_train_options();
  o.batch = 64, o.schedule.lr = 3e-3f, o.seed = 3;
  Trainer tr(*model, *task, o);
  for (int s = 0; s < 600; ++s) tr.step();
  const EvalResult e = evaluate_points(*model, *task, 500, 5, 5, 99);
  INFO(point_eval_json(e, task->name()).dump());
  CHECK(e.sequence_accuracy >= 0.8);
}

TEST_CASE("Ptr-Net convex hull: training lowers the held-out loss", "[model]") {
  const auto task = make_task("convex-hull", {{"n_min", 5}, {"n_max", 7}});
  auto model = make_model(pointer_config_for(*task, 32, true), cpu_kernels(), 1);
  Rng rng(5);
  const Batch held = task->sample_sets(rng, Split::Test, 200, 6);
  const double before = model->forward(held, false, nullptr, 0.f);
  TrainOptions o = pointer_train_options();
  o.batch = 64, o.schedule.lr = 3e-3f, o.seed = 4;
  Trainer tr(*model, *task, o);
  for (int s = 0; s < 200; ++s) tr.step();
  const double after = model->forward(held, false, nullptr, 0.f);
  INFO("held-out loss " << before << " -> " << after);
  CHECK(after < 0.9 * before);
}

// Sutskever et al. (2014): with a one-way encoder, reading the source reversed puts the first
// outputs next to the inputs they copy, and training goes faster. The §3 demo's settings.
TEST_CASE("RNNencdec with a one-way encoder: reversed input trains faster than copy", "[model]") {
  double train_loss[2] = {0, 0};
  EvalResult held_out[2];
  const char* tasks[2] = {"copy", "reverse"};
  for (int k = 0; k < 2; ++k) {
    auto s = api::Session::create(
        {{"model", {{"model", "rnnencdec"}, {"emb", 16}, {"hidden", 32}, {"encoder", "gru"}}},
         {"task", tasks[k]},
         {"task_options", {{"min_len", 8}, {"max_len", 16}, {"symbols", 10}}},
         {"seed", 1},
         {"train", {{"batch", 16}, {"schedule", "constant"}, {"lr", 0.01}, {"clip", 1}}}});
    const api::TrainChunk r = s->train(3000);
    for (size_t i = 300; i < r.losses.size(); ++i) train_loss[k] += r.losses[i] / 2700.0;
    held_out[k] = s->evaluate(500, 99);
  }
  INFO("mean training loss, steps 301-3000: copy " << train_loss[0] << ", reversed "
                                                   << train_loss[1]);
  INFO("held-out loss: copy " << held_out[0].loss << ", reversed " << held_out[1].loss);
  INFO("exact match: copy " << held_out[0].sequence_accuracy << ", reversed "
                            << held_out[1].sequence_accuracy);
  CHECK(train_loss[1] < 0.93 * train_loss[0]);
  CHECK(held_out[1].loss < 0.92 * held_out[0].loss);
  CHECK(held_out[1].sequence_accuracy > 2 * held_out[0].sequence_accuracy);
}
