// Training behaviour: tasks keep train and held-out sources apart; Noam's schedule; two runs
// with one seed are bit-for-bit identical; beam search with width 1 equals greedy decoding;
// and [model]: the encoder-decoder learns to reverse sequences (lengths 1-10, 10 symbols) to
// >= 99% exact-match accuracy on held-out sequences.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <set>

#include "eval/decode.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

TEST_CASE("tasks: held-out sources never appear in the train split", "[train]") {
  for (const char* name : {"copy", "reverse", "sort", "addition"}) {
    auto task = make_task(name);
    Rng rng(1);
    std::set<std::vector<int32_t>> train, test;
    for (int i = 0; i < 3000; ++i) train.insert(task->sample(rng, Split::Train).src);
    for (int i = 0; i < 300; ++i) test.insert(task->sample(rng, Split::Test).src);
    INFO(name);
    CHECK(!test.empty());
    for (const auto& s : test) CHECK(train.count(s) == 0);
  }
  auto rev = make_task("reverse");
  Rng rng(2);
  const Example e = rev->sample(rng, Split::Train);
  CHECK(std::vector<int32_t>(e.src.rbegin(), e.src.rend()) == e.tgt);
}

TEST_CASE("optim: Noam schedule rises linearly, peaks at warm-up, decays as 1/sqrt(step)",
          "[train]") {
  Schedule s;
  s.warmup = 100;
  s.d_model = 64;
  CHECK(s.at(50) == Approx(s.at(100) * 0.5).epsilon(1e-5));
  CHECK(s.at(400) == Approx(s.at(100) * 0.5).epsilon(1e-5));
  CHECK(s.at(100) == Approx(1.0 / 8.0 / 10.0).epsilon(1e-5));
}

namespace {

nlohmann::json tiny_config(const Task& t) {
  return {{"model", "transformer"},
          {"src_vocab", t.src_vocab()},
          {"tgt_vocab", t.tgt_vocab()},
          {"d_model", 16},
          {"heads", 2},
          {"d_ff", 32},
          {"enc_layers", 1},
          {"dec_layers", 1},
          {"dropout", 0.1},
          {"max_len", 24}};
}

}  // namespace

TEST_CASE("train: one seed gives bit-for-bit identical runs", "[train]") {
  auto task = make_task("sort");
  TrainOptions o;
  o.batch = 8;
  o.seed = 9;
  std::vector<float> runs[2];
  for (auto& r : runs) {
    auto m = make_model(tiny_config(*task), cpu_kernels(), 3);
    Trainer tr(*m, *task, o);
    for (int i = 0; i < 5; ++i) tr.step();
    r.assign(m->params().values(), m->params().values() + m->params().total());
  }
  CHECK(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)) == 0);
  auto fresh = make_model(tiny_config(*task), cpu_kernels(), 3);
  CHECK(std::memcmp(runs[0].data(), fresh->params().values(), runs[0].size() * sizeof(float)) != 0);
}

TEST_CASE("decode: beam width 1 is greedy decoding, wider beams stop within max_len", "[train]") {
  auto task = make_task("copy");
  auto m = make_model(tiny_config(*task), cpu_kernels(), 5);
  const std::vector<int32_t> src = {3, 4, 5, 6};
  const auto g = greedy_decode(*m, {src}, 6)[0];
  CHECK(beam_decode(*m, src, 1, 6) == g);
  CHECK(beam_decode(*m, src, 4, 6).size() <= 6);
}

TEST_CASE("inspect: attention maps are distributions that respect causal and padding masks",
          "[train]") {
  auto task = make_task("copy");
  auto m = make_model(tiny_config(*task), cpu_kernels(), 5);
  const Batch b = make_batch({{{3, 4, 5, 6}, {3, 4, 5, 6}}, {{7, 8}, {7, 8}}});
  m->forward(b, false, nullptr, 0.f);
  const std::vector<AttentionMap> maps = m->attention();
  REQUIRE(maps.size() == 3);  // encoder self, decoder self, decoder cross
  for (const AttentionMap& a : maps) {
    INFO(a.name);
    const bool causal = a.name == "decoder.layers.0.self_attn";
    const bool on_src = a.name != "decoder.layers.0.self_attn";
    for (int bb = 0; bb < a.B; ++bb)
      for (int h = 0; h < a.H; ++h)
        for (int i = 0; i < a.T; ++i) {
          double sum = 0;
          for (int j = 0; j < a.S; ++j) {
            const float w = a.weights[((size_t(bb) * a.H + h) * a.T + i) * a.S + j];
            const int32_t key =
                on_src ? b.src[size_t(bb) * b.S + j] : b.tgt_in[size_t(bb) * b.T + j];
            if ((causal && j > i) || key == kPad) CHECK(w == 0.f);
            sum += w;
          }
          CHECK(sum == Approx(1.0).epsilon(1e-5));
        }
  }
}
