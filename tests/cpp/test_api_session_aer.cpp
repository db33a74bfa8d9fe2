// Session evaluation of alignment: an RNNsearch session on a task with gold alignments (dates)
// reports the alignment error rate of the held-out draw, equal to align_eval's on the same
// examples, in [0, 1] and falling with a short training run; a Transformer session reports none.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "eval/align_eval.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

// The §4 page's RNNsearch and optimizer (web/demos/bahdanau/config.js).
json dates_config(const json& model) {
  return {{"model", model},
          {"task", "dates"},
          {"seed", 1},
          {"train", {{"batch", 32}, {"schedule", "constant"}, {"lr", 0.01}, {"clip", 1}}}};
}

}  // namespace

TEST_CASE("session: rnnsearch on dates reports the held-out alignment error rate of align_eval",
          "[api]") {
  auto s = api::Session::create(
      dates_config({{"model", "rnnsearch"}, {"emb", 24}, {"hidden", 48}, {"attn", 48}}));
  const EvalResult before = s->evaluate(100, 41);
  REQUIRE(before.aer >= 0.0);
  CHECK(before.aer <= 1.0);
  CHECK(!before.per_length.empty());
  // the same draw scored by align_eval directly
  const AlignEval direct = evaluate_aligned(s->model(), *make_seq_task("dates"), 100, 41);
  CHECK(before.aer == Approx(direct.aer).margin(1e-12));
  CHECK(before.sequence_accuracy == Approx(direct.sequence_accuracy).margin(1e-12));
}

// A training run (120 steps): [model], so the Release build runs it and the sanitizer and wasm
// builds, which take 20-40 s over it, leave it to that build.
TEST_CASE("session: rnnsearch on dates lowers the held-out alignment error rate by training",
          "[api][model]") {
  auto s = api::Session::create(
      dates_config({{"model", "rnnsearch"}, {"emb", 24}, {"hidden", 48}, {"attn", 48}}));
  const EvalResult before = s->evaluate(100, 41);
  s->train(120);
  const EvalResult after = s->evaluate(100, 41);
  INFO("aer " << before.aer << " -> " << after.aer);
  CHECK(after.aer >= 0.0);
  CHECK(after.aer < before.aer - 0.3);
}

TEST_CASE("session: a transformer on dates reports no alignment error rate", "[api]") {
  auto s = api::Session::create(dates_config({{"model", "transformer"},
                                              {"d_model", 16},
                                              {"heads", 2},
                                              {"d_ff", 32},
                                              {"enc_layers", 1},
                                              {"dec_layers", 1}}));
  const EvalResult r = s->evaluate(20, 41);
  CHECK(r.aer == -1);
  CHECK(r.per_length.empty());
  CHECK(r.samples == 20);
}
