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
    const std::vector<uint8_t> ckpt = to_vector<uint8_t>(bytes, "lmScore: checkpoint");
    if (sentences.isUndefined() || sentences.isNull() || !sentences["length"].isNumber())
      throw_js("lmScore: sentences must be an array of strings");
    std::vector<std::string> text;
    const int n = sentences["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      const val s = sentences[i];
      if (!s.isString()) throw_js("lmScore: sentence " + std::to_string(i) + " is not a string");
      text.push_back(s.as<std::string>());
    }
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
