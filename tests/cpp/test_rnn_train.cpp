// Training behaviour of the recurrent models on held-out data (fast settings; the paper-scale
// runs are in scripts/reproduce.mjs): RNNsearch learns dates with a near-gold alignment,
// Ptr-Net learns to sort, and convex-hull training lowers the held-out loss.
#include <catch2/catch.hpp>

#include "train/align_eval.hpp"
#include "train/point_train.hpp"
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
  auto& rs = dynamic_cast<RnnSearch&>(*model);
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
  const auto task = make_point_task("sort");
  auto model = make_model(pointer_config_for(*task, 32, false), cpu_kernels(), 1);
  auto& pn = dynamic_cast<PointerNet&>(*model);
  PointTrainOptions o;
  o.batch = 64, o.n_min = o.n_max = 5, o.lr = 3e-3f, o.seed = 3;
  PointTrainer tr(pn, *task, o);
  for (int s = 0; s < 600; ++s) tr.step();
  const PointEval e = evaluate_points(pn, *task, 500, 5, 5, 99);
  INFO(e.to_json(task->kind()).dump());
  CHECK(e.accuracy >= 0.8);
}

TEST_CASE("Ptr-Net convex hull: training lowers the held-out loss", "[model]") {
  const auto task = make_point_task("convex-hull");
  auto model = make_model(pointer_config_for(*task, 32, true), cpu_kernels(), 1);
  auto& pn = dynamic_cast<PointerNet&>(*model);
  Rng rng(5);
  const PointBatch held = make_point_batch(*task, rng, Split::Test, 200, 6);
  const double before = pn.forward_points(held);
  PointTrainOptions o;
  o.batch = 64, o.n_min = 5, o.n_max = 7, o.lr = 3e-3f, o.seed = 4;
  PointTrainer tr(pn, *task, o);
  for (int s = 0; s < 200; ++s) tr.step();
  const double after = pn.forward_points(held);
  INFO("held-out loss " << before << " -> " << after);
  CHECK(after < 0.9 * before);
}
