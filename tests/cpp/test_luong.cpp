// The Luong kind (models/luong.hpp): finite differences through every parameter for the dot,
// general and concat scores; logits, loss, alignment and every gradient against an independent
// PyTorch model (fixtures written by tests/reference/gen_luong.py); its config's bounds; its
// alignment rows; and held-out dates learnt in a few hundred steps ([model]).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "core/check.hpp"
#include "eval/align_eval.hpp"
#include "gradcheck.hpp"
#include "io/checkpoint.hpp"
#include "models/luong.hpp"
#include "seq_fixtures.hpp"
#include "tolerances.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

const char* const kLuongScores[] = {"dot", "general", "concat"};

nlohmann::json luong_small(const std::string& score) {
  return {{"model", "luong"}, {"src_vocab", 9}, {"tgt_vocab", 9},
          {"emb", 5},         {"hidden", 3},    {"score", score}};
}

}  // namespace

TEST_CASE("grad: Luong attention, every parameter, dot / general / concat", "[luong][grad]") {
  for (const char* score : kLuongScores) {
    INFO(score);
    auto model = make_model(luong_small(score), cpu_kernels(), 3);
    const Batch b = test::ragged_batch();
    auto loss = [&] { return model->forward(b, true, nullptr, 0.1f); };
    test::check_model_grads(*model, loss, 6);
  }
}

TEST_CASE("torch: Luong attention logits, loss, alignment and every gradient", "[luong][torch]") {
  for (const char* score : kLuongScores) {
    INFO(score);
    const std::string base = std::string(ATTNLAB_FIXTURES "/luong_small_") + score;
    const SafeTensors ref = read_safetensors(base + "_ref.safetensors");
    auto model = load_checkpoint(base + ".safetensors", cpu_kernels());
    const Batch b = test::fixture_batch(ref);
    model->params().zero_grad();
    const double loss = model->forward(b, false, nullptr, std::stof(ref.metadata.at("smoothing")));
    CHECK(test::torch_close(loss, test::fixture_f32(ref, "loss")[0]));
    const std::vector<float> z = model->logits(), zr = test::fixture_f32(ref, "logits");
    REQUIRE(z.size() == zr.size());
    int bad = 0;
    for (size_t i = 0; i < z.size(); ++i) bad += !test::torch_close(z[i], zr[i]);
    CHECK(bad == 0);
    const std::vector<float> a = model->attention().at(0).weights,
                             ar = test::fixture_f32(ref, "alignment");
    REQUIRE(a.size() == ar.size());
    bad = 0;
    for (size_t i = 0; i < a.size(); ++i) bad += !test::torch_close(a[i], ar[i]);
    CHECK(bad == 0);
    model->backward();
    const SafeTensors g = model_tensors(*model, true);
    int checked = 0;
    for (const StTensor& t : g.tensors) {
      const std::vector<float> x = t.to_f32(), y = test::fixture_f32(ref, "grad." + t.name);
      REQUIRE(x.size() == y.size());
      int wrong = 0;
      for (size_t i = 0; i < x.size(); ++i) wrong += !test::torch_close(x[i], y[i]);
      INFO(t.name);
      CHECK(wrong == 0);
      ++checked;
    }
    CHECK(checked == int(model->params().list().size()));
  }
}

TEST_CASE("Luong config: bounds and bad values are named", "[luong]") {
  CHECK_THROWS_WITH(make_model(luong_small("additive"), cpu_kernels(), 1),
                    Catch::Contains("score must be dot, general or concat, got \"additive\""));
  nlohmann::json c = luong_small("dot");
  c["hidden"] = 0;
  CHECK_THROWS_WITH(check_model_config(c), Catch::Contains("hidden"));
  c = luong_small("dot");
  c["eos_id"] = 9;
  CHECK_THROWS_WITH(check_model_config(c), Catch::Contains("eos_id"));
  c = luong_small("dot");
  c["emb"] = "wide";
  CHECK_THROWS_WITH(check_model_config(c), Catch::Contains("emb"));
  const LuongConfig d = LuongConfig::from_json({{"model", "luong"}});
  CHECK(d.score == "general");
  CHECK(LuongConfig::from_json(d.to_json()).to_json() == d.to_json());
}

TEST_CASE("Luong: alignment rows are distributions over the real source", "[luong]") {
  for (const char* score : kLuongScores) {
    INFO(score);
    auto model = make_model(luong_small(score), cpu_kernels(), 5);
    const Batch b = test::ragged_batch();
    model->forward(b, false, nullptr, 0.f);
    const std::vector<AttentionMap> maps = model->attention();
    REQUIRE(maps.size() == 1);
    const AttentionMap& m = maps[0];
    CHECK(m.name == "alignment");
    REQUIRE((m.B == 3 && m.H == 1 && m.T == 4 && m.S == 4));
    const int len[] = {4, 2, 1};
    for (int r = 0; r < 3; ++r)
      for (int t = 0; t < 4; ++t) {
        double sum = 0;
        for (int s = 0; s < 4; ++s) {
          const float w = m.weights[(size_t(r) * 4 + t) * 4 + s];
          if (s >= len[r]) CHECK(w == 0.f);
          sum += w;
        }
        CHECK(sum == Approx(1.0).epsilon(1e-5));
      }
    // stepwise decoding reports the same alignment as the teacher-forced pass of its output
    const GreedyDecoded d = greedy_stepwise(*model, {{3, 4, 5}}, 5);
    REQUIRE(d.alignment.size() == 1);
    CHECK(d.alignment[0].size() == d.tokens[0].size());
    for (const auto& row : d.alignment[0]) CHECK(row.size() == 3);
  }
}

TEST_CASE("Luong learns dates: held-out accuracy and alignment error rate", "[luong][model]") {
  const auto task = make_seq_task("dates");
  for (const char* score : {"dot", "concat"}) {
    INFO(score);
    auto model = make_model({{"model", "luong"},
                             {"src_vocab", task->src_vocab()},
                             {"tgt_vocab", task->tgt_vocab()},
                             {"emb", 32},
                             {"hidden", 32},
                             {"score", score}},
                            cpu_kernels(), 1);
    const KindInfo& info = kind_info("luong");
    TrainOptions o;
    o.batch = info.train.batch;
    o.schedule.kind = info.train.schedule;
    o.schedule.lr = info.train.lr;
    o.clip = info.train.clip;
    o.seed = 7;
    Trainer tr(*model, *task, o);
    const AlignEval before = evaluate_aligned(*model, *task, 200, 99);
    for (int s = 0; s < 300; ++s) tr.step();
    const AlignEval after = evaluate_aligned(*model, *task, 200, 99);
    INFO(after.to_json().dump());
    CHECK(before.sequence_accuracy < 0.05);
    CHECK(after.sequence_accuracy >= 0.9);
    CHECK(after.aer <= 0.25);
  }
}
