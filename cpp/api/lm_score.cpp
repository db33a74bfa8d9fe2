// Sentence log-probabilities under a decoder-only LM (see lm_score.hpp).
#include "api/lm_score.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/check.hpp"
#include "data/text_task.hpp"
#include "io/checkpoint.hpp"

namespace attnlab::api {

SentenceScore score_sentence(Model& m, const std::vector<std::string>& vocab,
                             const std::string& text, const Bpe* bpe) {
  AL_CHECK(m.packs_source(), "scoring needs a language model (kind \"lm\")");
  AL_CHECK(
      int(vocab.size()) == m.out_vocab(),
      "vocabulary of " << vocab.size() << " tokens does not match the model's " << m.out_vocab());
  SentenceScore r;
  r.ids = bpe ? bpe->encode(text) : text_ids(text_words(text), vocab);
  const int max_len = m.position_limit();
  AL_CHECK(!r.ids.empty(), "nothing to score: the text has no words");
  AL_CHECK(
      int(r.ids.size()) + 1 <= 2 * max_len,
      "the text has " << r.ids.size() << " tokens, the model reads at most " << 2 * max_len - 1);
  // tgt_in = <s> w_1..w_n, tgt_out = w_1..w_n </s>: [1,T] with T = n + 1.
  Batch b;
  b.B = 1;
  b.S = 0;
  b.T = int(r.ids.size()) + 1;
  b.tgt_in.push_back(m.bos_id());
  b.tgt_in.insert(b.tgt_in.end(), r.ids.begin(), r.ids.end());
  b.tgt_out = r.ids;
  b.tgt_out.push_back(m.eos_id());
  m.forward(b, false, nullptr, 0.f);
  const std::vector<float> z = m.logits();  // [1,T,V]
  const int V = m.out_vocab();
  r.ids.push_back(m.eos_id());
  for (int t = 0; t < b.T; ++t) {
    const float* row = z.data() + size_t(t) * V;
    const float mx = *std::max_element(row, row + V);
    double s = 0;
    for (int v = 0; v < V; ++v) s += std::exp(double(row[v] - mx));
    const float lp = float(double(row[b.tgt_out[size_t(t)]] - mx) - std::log(s));
    r.logprobs.push_back(lp);
    r.total += lp;
    r.tokens.push_back(vocab[size_t(r.ids[size_t(t)])]);
  }
  return r;
}

std::vector<SentenceScore> score_sentences(const std::vector<uint8_t>& checkpoint,
                                           const std::vector<std::string>& sentences) {
  const SafeTensors st = parse_safetensors(checkpoint.data(), checkpoint.size());
  nlohmann::json state;
  auto m = model_from_safetensors(st, cpu_kernels(), &state);
  AL_CHECK(state.is_object() && state.contains("vocab") && state["vocab"].is_array(),
           "the checkpoint has no vocabulary (train it with --task text)");
  const auto vocab = state["vocab"].get<std::vector<std::string>>();
  std::optional<Bpe> bpe;
  if (state.contains("bpe")) {
    AL_CHECK(state["bpe"].is_string(), "the checkpoint's \"bpe\" is not a JSON string");
    bpe = Bpe::from_json(state["bpe"].get<std::string>());
    AL_CHECK(bpe->size() == int(vocab.size()), "the checkpoint's BPE vocabulary has "
                                                   << bpe->size() << " tokens, its \"vocab\" "
                                                   << vocab.size());
  }
  std::vector<SentenceScore> out;
  for (const std::string& s : sentences)
    out.push_back(score_sentence(*m, vocab, s, bpe ? &*bpe : nullptr));
  return out;
}

}  // namespace attnlab::api
