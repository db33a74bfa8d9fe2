// [model] training behaviour: the encoder-decoder learns to reverse held-out sequences, and the
// paper's base configuration builds and takes training steps.
#include <catch2/catch.hpp>
#include <cmath>

#include "train/trainer.hpp"

using namespace attnlab;

TEST_CASE("model: Transformer reverses held-out sequences (lengths 1-10, 10 symbols) >= 99%",
          "[model]") {
  // The same run as: attn train --task reverse --d-model 32 --heads 4 --d-ff 64 --enc-layers 2
  //   --dec-layers 1 --dropout 0 --batch 64 --warmup 300 --steps 4000 --seed 1 --eval-samples 1000
  auto task = make_task("reverse");
  const nlohmann::json cfg = {{"model", "transformer"},
                              {"src_vocab", task->src_vocab()},
                              {"tgt_vocab", task->tgt_vocab()},
                              {"d_model", 32},
                              {"heads", 4},
                              {"d_ff", 64},
                              {"enc_layers", 2},
                              {"dec_layers", 1},
                              {"dropout", 0.0},
                              {"max_len", 22}};
  const uint64_t seed = 1;
  auto m = make_model(cfg, cpu_kernels(), seed);
  TrainOptions o;
  o.batch = 64;
  o.schedule.warmup = 300;
  o.schedule.d_model = 32;
  o.seed = seed;
  Trainer tr(*m, *task, o);
  const int steps = 4000;
  for (int i = 0; i < steps; ++i) tr.step();
  const EvalResult r = evaluate(*m, *task, 1000, seed + 1000003);
  INFO("held-out loss " << r.loss << " token accuracy " << r.token_accuracy << " sequence accuracy "
                        << r.sequence_accuracy);
  CHECK(r.sequence_accuracy >= 0.99);
}

TEST_CASE("model: the paper's base configuration builds and trains", "[model]") {
  // N = 6, d_model 512, d_ff 2048, h 8, dropout 0.1, label smoothing 0.1, tied target
  // embedding and generator (a 1000-token vocabulary keeps the step small).
  const nlohmann::json cfg = {{"model", "transformer"},
                              {"src_vocab", 1000},
                              {"tgt_vocab", 1000},
                              {"d_model", 512},
                              {"heads", 8},
                              {"d_ff", 2048},
                              {"enc_layers", 6},
                              {"dec_layers", 6},
                              {"dropout", 0.1},
                              {"max_len", 64},
                              {"tie_embeddings", true}};
  auto m = make_model(cfg, cpu_kernels(), 7);
  CHECK(m->params().list().size() == 2 + 6 * 12 + 2 + 6 * 18 + 2 + 1);
  Batch b;
  b.B = 2;
  b.S = 6;
  b.T = 5;
  b.src = {5, 17, 300, 42, 999, 8, 5, 17, 300, 0, 0, 0};
  b.tgt_in = {1, 9, 99, 199, 299, 1, 11, 111, 0, 0};
  b.tgt_out = {9, 99, 199, 299, 2, 11, 111, 2, 0, 0};
  Adam adam(m->params());
  Rng rng(3);
  double first = 0, last = 0;
  for (int step = 0; step < 3; ++step) {
    m->params().zero_grad();
    last = m->forward(b, true, &rng, 0.1f);
    if (step == 0) first = last;
    REQUIRE(std::isfinite(last));
    m->backward();
    adam.step(1e-4f);
  }
  CHECK(first > std::log(1000.0) * 0.8);  // an untrained model is near-uniform
  CHECK(last < first);
}
