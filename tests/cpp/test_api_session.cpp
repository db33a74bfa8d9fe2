// Model sessions (cpp/api/model_session.hpp): training follows the shared Trainer exactly, batches
// given as ids train, inspection shapes, checkpoints round-trip through bytes, and every
// user-facing error (bad config, out-of-range token, malformed checkpoint, too-large model).
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "train/trainer.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

json small_config(const std::string& kind = "transformer") {
  json m = {{"model", kind},   {"d_model", 16},   {"heads", 2},    {"d_ff", 32},
            {"enc_layers", 1}, {"dec_layers", 1}, {"dropout", 0.1}};
  if (kind == "rnnsearch") m = {{"model", kind}, {"emb", 8}, {"hidden", 16}, {"attn", 8}};
  return {{"model", m},
          {"task", "reverse"},
          {"task_options", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}}},
          {"seed", 7},
          {"train", {{"batch", 8}, {"warmup", 20}}}};
}

}  // namespace

TEST_CASE("session: training on the task matches the Trainer step for step", "[api]") {
  auto s = api::Session::create(small_config());
  const api::TrainChunk a = s->train(3);
  const api::TrainChunk b = s->train(2);
  REQUIRE(a.losses.size() == 3);
  CHECK(b.step == 5);

  // the same model and trainer built by hand, as `attn train` builds them
  auto task = make_task("reverse", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}});
  json cfg = small_config()["model"];
  cfg["src_vocab"] = cfg["tgt_vocab"] = std::max(task->src_vocab(), task->tgt_vocab());
  cfg["max_len"] = task->max_src_len() + task->max_tgt_len() + 2;
  auto m = make_model(cfg, cpu_kernels(), 7);
  TrainOptions o;
  o.batch = 8;
  o.schedule.warmup = 20;
  o.schedule.d_model = 16;
  o.seed = 7;
  Trainer tr(*m, *task, o);
  std::vector<float> ref;
  for (int i = 0; i < 5; ++i) ref.push_back(float(tr.step().loss));
  for (int i = 0; i < 3; ++i) CHECK(a.losses[i] == ref[i]);
  for (int i = 0; i < 2; ++i) CHECK(b.losses[i] == ref[3 + i]);
  CHECK(s->info()["step"] == 5);
  CHECK(s->info()["params"] == m->params().total());
}

TEST_CASE("session: trainBatch fits a repeated batch, and rnnsearch gives Bahdanau alignments",
          "[api]") {
  for (const std::string kind : {"transformer", "rnnsearch"}) {
    json c = small_config(kind);
    c["train"] = {{"schedule", "constant"}, {"lr", 0.01}};
    if (kind == "transformer") c["model"]["dropout"] = 0.0;
    auto s = api::Session::create(c);
    const api::Rows src = {{3, 4, 5}, {6, 7, 3, 4}}, tgt = {{5, 4, 3}, {4, 3, 7, 6}};
    const float first = s->train_batch(src, tgt).losses[0];
    float last = first;
    for (int i = 0; i < 60; ++i) last = s->train_batch(src, tgt).losses[0];
    INFO(kind << ": " << first << " -> " << last);
    CHECK(last < 0.25f * first);
    CHECK(s->decode(src, 1, 0, 0.6f) == tgt);
    const api::Inspection in = s->inspect(src, {});
    CHECK(in.tgt == tgt);
    CHECK(in.B == 2);
    CHECK(in.T == 5);  // longest target + </s>
    CHECK(in.logits.size() == size_t(in.B) * in.T * in.V);
    REQUIRE(!in.maps.empty());
    for (const AttentionMap& a : in.maps) {
      REQUIRE(a.weights.size() == size_t(a.B) * a.H * a.T * a.S);
      double row = 0;
      for (int j = 0; j < a.S; ++j) row += a.weights[j];
      CHECK(row == Approx(1).margin(1e-5));
    }
    CHECK_THROWS_WITH(s->train(1), Catch::Contains("trains on given batches"));
  }
}

TEST_CASE("session: checkpoint bytes round-trip with task and step", "[api]") {
  auto s = api::Session::create(small_config());
  s->train(4);
  const std::vector<uint8_t> bytes = s->save();
  auto t = api::Session::load(bytes, json::object());
  CHECK(t->info()["step"] == 4);
  CHECK(t->info()["task"] == "reverse");
  CHECK(t->info()["config"] == s->info()["config"]);
  const api::Rows src = {{3, 4, 5, 6}};
  const api::Inspection a = s->inspect(src, {{6, 5}}), b = t->inspect(src, {{6, 5}});
  CHECK(a.logits == b.logits);
  const api::Examples e = t->examples(3, Split::Test, 1);
  CHECK(e.src.size() == 3);
  CHECK(e.src_text[0].size() > 0);
  // a loaded session trains on (steps continue from the checkpoint)
  CHECK(t->train(1).step == 5);
}

TEST_CASE("session: errors are clear and leave nothing half-built", "[api]") {
  json c = small_config();
  c["model"]["heads"] = 3;
  CHECK_THROWS_WITH(api::Session::create(c), Catch::Contains("not divisible by heads"));
  c = small_config();
  c["model"]["model"] = "lstm9000";
  CHECK_THROWS_WITH(api::Session::create(c), Catch::Contains("unknown model"));
  c = small_config();
  c["task"] = "juggling";
  CHECK_THROWS_AS(api::Session::create(c), Error);
  CHECK_THROWS_WITH(api::Session::create(json::array()), Catch::Contains("JSON object"));
  c = small_config();
  c["model"]["d_model"] = 16384;
  c["model"]["d_ff"] = 65536;
  c["model"]["enc_layers"] = c["model"]["dec_layers"] = 64;
  CHECK_THROWS_WITH(api::Session::create(c), Catch::Contains("more than the"));
  CHECK(api::Session::estimate(small_config()).total() > 0);

  auto s = api::Session::create(small_config());
  const int V = s->info()["srcVocab"];
  CHECK_THROWS_WITH(s->decode({{3, V}}, 1, 0, 0.6f), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(s->train_batch({{3, -1}}, {{3}}), Catch::Contains("token -1 is out of range"));
  CHECK_THROWS_WITH(s->decode({{3}}, 0, 0, 0.6f), Catch::Contains("beam"));
  CHECK_THROWS_WITH(s->train(0), Catch::Contains("steps"));

  std::vector<uint8_t> bytes = s->save();
  CHECK_THROWS_AS(api::Session::load(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 7), {}),
                  Error);
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 5);
  CHECK_THROWS_AS(api::Session::load(cut, {}), Error);
  std::vector<uint8_t> garbage(100, 0x41);
  CHECK_THROWS_AS(api::Session::load(garbage, {}), Error);
  CHECK_THROWS_WITH(api::Session::load(bytes, {{"task", "dates"}}),
                    Catch::Contains("vocabularies"));
  // still usable
  CHECK(s->train(1).losses.size() == 1);
}

TEST_CASE("session: train.optimizer \"sgd\" trains with momentum and survives a checkpoint",
          "[api]") {
  json cfg = small_config();
  cfg["train"] = {
      {"batch", 8}, {"schedule", "constant"}, {"lr", 0.1}, {"optimizer", "sgd"}, {"momentum", 0.9}};
  auto s = api::Session::create(cfg);
  const api::TrainChunk a = s->train(4);
  CHECK(s->info()["train"]["optimizer"] == "sgd");

  // the Trainer with the same options, step for step
  auto task = make_task("reverse", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}});
  json mc = cfg["model"];
  mc["src_vocab"] = mc["tgt_vocab"] = std::max(task->src_vocab(), task->tgt_vocab());
  mc["max_len"] = task->max_src_len() + task->max_tgt_len() + 2;
  auto m = make_model(mc, cpu_kernels(), 7);
  TrainOptions o;
  o.batch = 8;
  o.schedule.kind = "constant";
  o.schedule.lr = 0.1f;
  o.seed = 7;
  o.adam.kind = "sgd";
  o.adam.momentum = 0.9f;
  Trainer tr(*m, *task, o);
  for (int i = 0; i < 4; ++i) CHECK(a.losses[i] == float(tr.step().loss));
  // Adam on the same config takes other steps
  cfg["train"]["optimizer"] = "adam";
  auto adam = api::Session::create(cfg);
  CHECK(adam->train(4).losses[3] != a.losses[3]);
  // a checkpoint with the optimizer state goes on with SGD
  auto back = api::Session::load(s->save(true), json::object());
  CHECK(back->info()["train"]["optimizer"] == "sgd");
  CHECK(back->train(1).losses[0] == float(tr.step().loss));
  // an unknown optimizer or momentum is a clear error
  cfg["train"]["optimizer"] = "rmsprop";
  CHECK_THROWS_WITH(api::Session::create(cfg), Catch::Contains("unknown optimizer"));
  cfg["train"]["optimizer"] = "sgd";
  cfg["train"]["momentum"] = 1.5;
  CHECK_THROWS_WITH(api::Session::create(cfg), Catch::Contains("momentum must be in [0, 1)"));
}
