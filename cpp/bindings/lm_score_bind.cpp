// Embind registration of language-model sentence scoring (cpp/api/lm_score.hpp):
// lmScore(checkpointBytes, sentences) -> [{tokens, ids, logprobs, total}] per sentence.
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "api/lm_score.hpp"
#include "bindings/convert.hpp"

using emscripten::val;
using namespace attnlab::bind;

namespace {

val lm_score(val bytes, val sentences) {
  return guarded([&] {
    const std::vector<uint8_t> ckpt = to_bytes(bytes, "lmScore: checkpoint");
    if (!sentences.isArray()) type_error("lmScore: sentences must be an array of strings");
    std::vector<std::string> text;
    const size_t n = array_length(sentences, "lmScore: sentences", 10000);
    for (size_t i = 0; i < n; ++i)
      text.push_back(string_arg(sentences[i], "lmScore: sentence " + std::to_string(i), 1 << 16));
    val out = val::array();
    const auto scores = attnlab::api::score_sentences(ckpt, text);
    for (size_t i = 0; i < scores.size(); ++i) {
      val o = val::object();
      val toks = val::array();
      for (size_t j = 0; j < scores[i].tokens.size(); ++j) toks.set(j, scores[i].tokens[j]);
      o.set("tokens", toks);
      o.set("ids", to_i32(scores[i].ids));
      o.set("logprobs", to_f32(scores[i].logprobs));
      o.set("total", scores[i].total);
      out.set(i, o);
    }
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_lm_score) { emscripten::function("lmScore", &lm_score); }
