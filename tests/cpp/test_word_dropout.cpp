// Word dropout (data/task.hpp drop_words) in the toy-task Trainer and in sessions: the same
// stream of (seed, step) wherever it runs, so a session's run matches the Trainer's, a restored
// session continues bit for bit, and a missing or out-of-range unknown-word id is refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "train/trainer.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

json dropout_config(double p, int unk = 3) {
  json train = {{"batch", 8}, {"warmup", 20}, {"word_dropout", p}};
  if (unk >= 0) train["unk"] = unk;
  return {{"model",
           {{"model", "transformer"},
            {"d_model", 16},
            {"heads", 2},
            {"d_ff", 32},
            {"enc_layers", 1},
            {"dec_layers", 1},
            {"dropout", 0.0}}},
          {"task", "reverse"},
          {"task_options", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}}},
          {"seed", 11},
          {"train", train}};
}

const api::Rows kWdSrc = {{3, 4, 5, 6}, {6, 7, 3, 4, 5}}, kWdTgt = {{6, 5, 4, 3}, {5, 4, 3, 7, 6}};

}  // namespace

TEST_CASE("word dropout: a session on its task takes the Trainer's steps", "[api][dropout]") {
  auto s = api::Session::create(dropout_config(0.3));
  const api::TrainChunk a = s->train(6);

  auto task = make_task("reverse", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}});
  json cfg = dropout_config(0.3)["model"];
  cfg["src_vocab"] = cfg["tgt_vocab"] = std::max(task->src_vocab(), task->tgt_vocab());
  cfg["max_len"] = task->max_src_len() + task->max_tgt_len() + 2;
  auto m = make_model(cfg, cpu_kernels(), 11);
  TrainOptions o;
  o.batch = 8;
  o.schedule.warmup = 20;
  o.schedule.d_model = 16;
  o.seed = 11;
  o.word_dropout = 0.3f;
  o.unk = 3;
  Trainer tr(*m, *task, o);
  for (int i = 0; i < 6; ++i) CHECK(a.losses[size_t(i)] == float(tr.step().loss));

  // without it the same seed trains on other inputs from the first step
  auto plain = api::Session::create(dropout_config(0.0));
  CHECK(plain->train(1).losses[0] != a.losses[0]);
}

TEST_CASE("word dropout: given batches draw per step, and a restored session continues",
          "[api][dropout]") {
  auto run = [](api::Session& s, int steps) {
    std::vector<float> l;
    for (int i = 0; i < steps; ++i) l.push_back(s.train_batch(kWdSrc, kWdTgt).losses[0]);
    return l;
  };
  auto whole = api::Session::create(dropout_config(0.4));
  const std::vector<float> all = run(*whole, 6);
  auto again = api::Session::create(dropout_config(0.4));
  CHECK(run(*again, 6) == all);  // the same seed draws the same words
  auto plain = api::Session::create(dropout_config(0.0));
  const std::vector<float> none = run(*plain, 6);
  CHECK(none[0] != all[0]);

  auto half = api::Session::create(dropout_config(0.4));
  run(*half, 3);
  auto resumed = api::Session::load(half->save(true), json::object());
  const std::vector<float> rest = run(*resumed, 3);
  for (int i = 0; i < 3; ++i) CHECK(rest[size_t(i)] == all[size_t(3 + i)]);
}

TEST_CASE("word dropout: an unknown-word id is needed and must fit both vocabularies",
          "[api][dropout]") {
  CHECK_THROWS_WITH(api::Session::create(dropout_config(0.2, -1)),
                    Catch::Contains("train.word_dropout needs train.unk"));
  CHECK_THROWS_WITH(api::Session::create(dropout_config(0.2, 4096)),
                    Catch::Contains("inside both vocabularies"));
  CHECK_THROWS_WITH(api::Session::create(dropout_config(0.95)),
                    Catch::Contains("train.word_dropout must be in [0, 0.9]"));
  json pointer = {{"model", {{"model", "pointer"}, {"hidden", 16}}},
                  {"task", "convex-hull"},
                  {"train", {{"word_dropout", 0.1}, {"unk", 0}}}};
  CHECK_THROWS_WITH(api::Session::create(pointer), Catch::Contains("reads points"));
  CHECK_NOTHROW(api::Session::create(dropout_config(0.0, -1)));  // no dropout: no id needed
}
