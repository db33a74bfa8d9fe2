// The public C++ API (cpp/attnlab/*.hpp, what the installed package exposes): xtensor in and
// out, training with a progress callback, the same numbers as the engine's own session,
// translations with their cross-attention, checkpoints with a subword vocabulary, errors.
// Native only (the WebAssembly builds leave the public API out). xtensor comparisons go through
// bool first: Catch's expression decomposition would otherwise meet xtensor's operators.
#ifndef __EMSCRIPTEN__
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <xtensor/xview.hpp>

#include "api/model_session.hpp"
#include "attnlab/attnlab.hpp"
#include "data/bpe.hpp"
#include "io/checkpoint.hpp"
#include "io/safetensors.hpp"

namespace {

const char* kConfig = R"({"model": {"model": "transformer", "d_model": 16, "heads": 2, "d_ff": 32,
  "enc_layers": 1, "dec_layers": 1, "dropout": 0.1}, "task": "reverse",
  "task_options": {"min_len": 2, "max_len": 5, "symbols": 6}, "seed": 7,
  "train": {"batch": 8, "warmup": 20}})";

std::string fixture(const char* name) { return std::string(ATTNLAB_FIXTURES) + "/" + name; }

}  // namespace

TEST_CASE("public api: version, kinds and tasks", "[public]") {
  CHECK(attnlab::version() == ATTNLAB_VERSION_STRING);
  std::ifstream pkg(std::string(ATTNLAB_FIXTURES) + "/../../package.json");
  REQUIRE(pkg);
  std::stringstream text;
  text << pkg.rdbuf();
  CHECK(nlohmann::json::parse(text.str())["version"] == attnlab::version());
  const auto kinds = attnlab::model_kinds();
  CHECK(std::find(kinds.begin(), kinds.end(), "transformer") != kinds.end());
  const auto tasks = attnlab::task_names();
  CHECK(std::find(tasks.begin(), tasks.end(), "reverse") != tasks.end());
}

TEST_CASE("public api: training reports progress and matches the engine's session", "[public]") {
  auto m = attnlab::Session::create(kConfig);
  std::vector<attnlab::Progress> seen;
  const attnlab::TrainReport r = m.train(
      10,
      [&](const attnlab::Progress& p) {
        seen.push_back(p);
        return true;
      },
      4);
  REQUIRE(r.losses.shape()[0] == 10);
  CHECK(r.steps == 10);
  CHECK(r.step == 10);
  CHECK_FALSE(r.stopped);
  REQUIRE(seen.size() == 3);  // after steps 4, 8 and the last
  CHECK(seen[0].done == 4);
  CHECK(seen[2].done == 10);
  CHECK(seen[2].total == 10);
  CHECK(seen[2].loss == Approx(r.losses(9)));

  auto ref = attnlab::api::Session::create(nlohmann::json::parse(kConfig));
  const auto chunk = ref->train(10);
  for (size_t i = 0; i < 10; ++i) CHECK(r.losses(i) == chunk.losses[i]);

  // the callback stops a run
  const attnlab::TrainReport s = m.train(50, [](const attnlab::Progress& p) { return p.done < 3; });
  CHECK(s.stopped);
  CHECK(s.steps == 3);
  CHECK(m.info().step == 13);
}

TEST_CASE("public api: forward, attention maps and translation as xtensor", "[public]") {
  auto m = attnlab::Session::load(fixture("transformer_small.safetensors"));
  const attnlab::ModelInfo info = m.info();
  CHECK(info.kind == "transformer");
  CHECK(info.task.empty());
  CHECK(info.src_vocab == 11);
  CHECK_FALSE(info.has_vocabulary);

  const attnlab::token_batch src = {{5, 6, 7, 0}, {3, 4, 5, 8}};
  const attnlab::token_batch tgt = {{7, 6, 5}, {8, 5, 0}};
  const auto logits = m.forward(src, tgt);
  CHECK(logits.shape()[0] == 2);
  CHECK(logits.shape()[1] == 4);  // longest target + 1 (the </s> position)
  CHECK(logits.shape()[2] == 11);
  // the same numbers as the engine's session on the same rows
  auto ref = attnlab::api::Session::load(attnlab::serialize_safetensors(attnlab::read_safetensors(
                                             fixture("transformer_small.safetensors"))),
                                         nlohmann::json::object());
  const auto in = ref->inspect({{5, 6, 7}, {3, 4, 5, 8}}, {{7, 6, 5}, {8, 5}});
  REQUIRE(in.logits.size() == logits.size());
  for (size_t i = 0; i < in.logits.size(); ++i) CHECK(logits.data()[i] == in.logits[i]);

  const auto maps = m.attention();
  REQUIRE(maps.size() == 6);  // 2 encoder self, 2 decoder self, 2 cross
  const auto& cross = maps.back();
  CHECK(cross.name == "decoder.layers.1.multihead_attn");
  CHECK(cross.weights.shape() == std::array<size_t, 4>{2, 4, 4, 4});
  const auto row_sums = xt::eval(xt::sum(cross.weights, {3}));
  for (float x : row_sums) CHECK(x == Approx(1.0f).margin(1e-4));

  // a view of a batch row goes in as it is
  const attnlab::tokens out = m.decode(xt::view(src, 1, xt::all()), 1);
  const attnlab::Translation tr = m.translate(attnlab::tokens{3, 4, 5, 8});
  CHECK(bool(tr.output == out));
  CHECK(tr.source_tokens.size() == 4);
  CHECK(tr.cross_attention.shape()[0] == tr.output.size() + 1);
  CHECK(tr.cross_attention.shape()[1] == 4);
  for (size_t t = 0; t < tr.cross_attention.shape()[0]; ++t)
    CHECK(xt::sum(xt::view(tr.cross_attention, t, xt::all()))() == Approx(1.0f).margin(1e-4));
  CHECK(m.translate(tr.source, 3).output.size() >= 1);
}

TEST_CASE("public api: a trained session saves and loads back", "[public]") {
  auto m = attnlab::Session::create(kConfig);
  m.train(5);
  const attnlab::Examples ex = m.examples(3);
  CHECK(ex.src.shape()[0] == 3);
  CHECK(ex.src_text.size() == 3);
  const auto bytes = m.save_bytes();
  auto n = attnlab::Session::load_bytes(bytes);
  CHECK(n.info().step == 5);
  CHECK(n.info().task == "reverse");
  const bool same_logits = m.forward(ex.src, ex.tgt) == n.forward(ex.src, ex.tgt);
  CHECK(same_logits);
  const attnlab::Evaluation e = n.evaluate(50, 3);
  CHECK(e.samples == 50);
  CHECK(e.token_accuracy >= 0);
  CHECK(e.token_accuracy <= 1);
  // readable names come from the task
  CHECK(n.source_tokens(attnlab::tokens{3, 4}).size() == 2);
}

TEST_CASE("public api: a corpus checkpoint translates text and keeps its vocabulary", "[public]") {
  const std::vector<std::string> texts = {"the cat sat", "the dog sat", "a cat ran", "the cat ran"};
  const attnlab::Bpe bpe = attnlab::Bpe::train(texts, 300);
  const std::string cfg =
      R"({"model": "transformer", "d_model": 16, "heads": 2, "d_ff": 32, "enc_layers": 1,
    "dec_layers": 1, "dropout": 0, "max_len": 24, "src_vocab": )" +
      std::to_string(bpe.size()) + R"(, "tgt_vocab": )" + std::to_string(bpe.size()) + "}";
  auto model = attnlab::make_model(nlohmann::json::parse(cfg), attnlab::cpu_kernels(), 3);
  const nlohmann::json state = {{"task", "parallel"},
                                {"step", 40},
                                {"vocab", bpe.to_json()},
                                {"options", {{"max_len", 20}}},
                                {"adam_steps", 40}};
  const auto bytes = attnlab::serialize_safetensors(attnlab::model_tensors(*model, false, state));

  auto m = attnlab::Session::load_bytes(bytes);
  CHECK(m.info().has_vocabulary);
  CHECK(m.info().step == 40);
  const attnlab::tokens ids = m.encode("the cat sat");
  CHECK(m.detokenize(ids) == "the cat sat");
  const attnlab::Translation tr = m.translate(std::string("the cat"), 2, 6);
  CHECK(tr.source_tokens.size() == m.encode("the cat").size());
  CHECK(tr.cross_attention.shape()[0] == tr.output.size() + 1);
  CHECK(tr.text == m.detokenize(tr.output));

  const auto saved = m.save_bytes();
  const auto st = attnlab::parse_safetensors(saved.data(), saved.size());
  const auto kept = nlohmann::json::parse(st.metadata.at("attnlab_train"));
  CHECK(kept["vocab"] == bpe.to_json());
  CHECK(kept["step"] == 40);
  CHECK_FALSE(kept.contains("adam_steps"));
  const bool same_ids =
      attnlab::Session::load_bytes(saved).encode("the dog") == m.encode("the dog");
  CHECK(same_ids);
}

TEST_CASE("public api: errors are attnlab::Error with one line", "[public]") {
  CHECK_THROWS_AS(attnlab::Session::create("{\"model\": \"nope\"}"), attnlab::Error);
  CHECK_THROWS_AS(attnlab::Session::create("not json"), attnlab::Error);
  CHECK_THROWS_AS(attnlab::Session::load("/nonexistent/x.safetensors"), attnlab::Error);
  auto m = attnlab::Session::load(fixture("transformer_small.safetensors"));
  CHECK_THROWS_WITH(m.encode("hello"), Catch::Contains("no vocabulary"));
  CHECK_THROWS_AS(m.decode(attnlab::tokens{5, 99}), attnlab::Error);
  CHECK_THROWS_AS(m.train(5), attnlab::Error);  // no task
  CHECK_THROWS_AS(m.forward(attnlab::token_batch{{5, 6}}, attnlab::token_batch{{5}, {6}}),
                  attnlab::Error);
  CHECK(m.decode(attnlab::tokens{5, 6}).size() >= 1);  // still usable
}
#endif
