// Sequence, token and per-length accuracy and alignment error rate (see align_eval.hpp).
#include "eval/align_eval.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "eval/decode.hpp"

namespace attnlab {

nlohmann::json AlignEval::to_json() const {
  nlohmann::json j = {{"samples", samples},
                      {"sequence_accuracy", sequence_accuracy},
                      {"token_accuracy", token_accuracy}};
  if (aer >= 0) j["aer"] = aer;
  if (aer_sure >= 0) j["aer_sure"] = aer_sure;
  nlohmann::json pl = nlohmann::json::object();
  for (const auto& [len, ct] : per_length)
    pl[std::to_string(len)] = ct.second ? double(ct.first) / double(ct.second) : 0.0;
  j["per_length"] = pl;
  return j;
}

double alignment_error_rate(const std::vector<std::vector<std::vector<float>>>& attn,
                            const std::vector<std::vector<std::vector<int>>>& gold,
                            const std::vector<std::vector<std::vector<int>>>& possible) {
  AL_CHECK(attn.size() == gold.size(),
           "aer: " << attn.size() << " alignments, " << gold.size() << " gold alignments");
  AL_CHECK(possible.empty() || possible.size() == gold.size(),
           "aer: " << possible.size() << " possible-link lists for " << gold.size() << " examples");
  const auto has = [](const std::vector<int>& v, int j) {
    return std::find(v.begin(), v.end(), j) != v.end();
  };
  static const std::vector<int> none;
  long a = 0, s = 0, hit_s = 0, hit_p = 0;
  for (size_t n = 0; n < gold.size(); ++n)
    for (size_t i = 0; i < gold[n].size(); ++i) {
      const bool ambiguous = !possible.empty() && i < possible[n].size() && !possible[n][i].empty();
      const std::vector<int>& sure = ambiguous ? none : gold[n][i];
      const std::vector<int>& links = ambiguous ? possible[n][i] : gold[n][i];  // P
      if (links.empty()) continue;
      s += long(sure.size());
      if (i >= attn[n].size()) continue;
      const auto& row = attn[n][i];
      const int j = int(std::max_element(row.begin(), row.end()) - row.begin());
      ++a;
      hit_s += has(sure, j);
      hit_p += has(links, j);
    }
  return a + s ? 1.0 - double(hit_s + hit_p) / double(a + s) : 0.0;
}

namespace {

// Everything both evaluations measure, accumulated batch by batch: one teacher-forced pass
// (loss, token accuracy, attention rows) and one greedy decoding per batch.
struct Tally {
  ForcedScore forced;                                     // teacher forcing
  long samples = 0, exact = 0, tok_hit = 0, tok_all = 0;  // greedy outputs vs the references
  std::map<int, std::pair<long, long>> per_length;
  std::vector<std::vector<std::vector<float>>> attn;
  std::vector<std::vector<std::vector<int>>> gold, possible;

  void add(Model& m, const std::vector<SeqExample>& ex, size_t i, size_t end) {
    std::vector<Example> part;
    std::vector<std::vector<int32_t>> srcs;
    int max_tgt = 0;
    for (size_t k = i; k < end; ++k) {
      part.push_back({ex[k].src, ex[k].tgt});
      srcs.push_back(ex[k].src);
      max_tgt = std::max(max_tgt, int(ex[k].tgt.size()));
    }
    forced.add(m, make_batch(part));
    if (m.aligns()) {  // forced alignment: attention while reading the reference
      const AttentionMap map = m.attention().at(0);
      for (size_t k = i; k < end; ++k) {
        const int r = int(k - i);
        std::vector<std::vector<float>> rows;
        for (size_t t = 0; t < ex[k].tgt.size(); ++t) {
          const float* w = map.weights.data() + (size_t(r) * map.T + t) * map.S;
          rows.emplace_back(w, w + ex[k].src.size());
        }
        attn.push_back(std::move(rows));
        gold.push_back(ex[k].gold);
        possible.push_back(ex[k].possible);
      }
    }
    const std::vector<std::vector<int32_t>> d = greedy_decode(m, srcs, max_tgt + 2);
    for (size_t k = i; k < end; ++k) {
      const auto& out = d[k - i];
      const auto& ref = ex[k].tgt;
      const bool ok = out == ref;
      exact += ok;
      ++samples;
      auto& pl = per_length[int(ref.size() ? ex[k].src.size() : 0)];
      pl.first += ok;
      pl.second += 1;
      for (size_t t = 0; t < ref.size(); ++t) tok_hit += t < out.size() && out[t] == ref[t];
      tok_all += long(ref.size());
    }
  }

  static Tally over(Model& m, const SeqTask& task, int samples, uint64_t seed,
                    const std::vector<SeqExample>* examples, int batch) {
    std::vector<SeqExample> drawn;
    if (!examples) {
      AL_CHECK(samples >= 1, "need at least one evaluation sample");
      Rng rng(seed);
      for (int i = 0; i < samples; ++i) drawn.push_back(task.sample_aligned(rng, Split::Test));
      examples = &drawn;
    }
    AL_CHECK(batch >= 1, "evaluation batch must be at least 1");
    Tally t;
    for (size_t i = 0; i < examples->size(); i += size_t(batch))
      t.add(m, *examples, i, std::min(examples->size(), i + size_t(batch)));
    return t;
  }
};

}  // namespace

AlignEval evaluate_aligned(Model& m, const SeqTask& task, int samples, uint64_t seed,
                           const std::vector<SeqExample>* examples, int batch) {
  const Tally t = Tally::over(m, task, samples, seed, examples, batch);
  AlignEval r;
  r.samples = int(t.samples);
  r.per_length = t.per_length;
  r.sequence_accuracy = double(t.exact) / double(std::max(1L, t.samples));
  r.token_accuracy = double(t.tok_hit) / double(std::max(1L, t.tok_all));
  if (m.aligns()) {
    r.aer = alignment_error_rate(t.attn, t.gold, t.possible);
    r.aer_sure = alignment_error_rate(t.attn, t.gold);
  }
  return r;
}

EvalResult evaluate_with_alignment(Model& m, const SeqTask& task, int samples, uint64_t seed,
                                   int batch) {
  const Tally t = Tally::over(m, task, samples, seed, nullptr, batch);
  EvalResult r;
  r.samples = samples;
  r.loss = t.forced.loss();
  r.token_accuracy = t.forced.accuracy();
  r.sequence_accuracy = double(t.exact) / double(samples);
  if (m.aligns()) r.aer = alignment_error_rate(t.attn, t.gold, t.possible);
  for (const auto& [len, ct] : t.per_length)
    r.per_length[len] = ct.second ? double(ct.first) / double(ct.second) : 0.0;
  return r;
}

}  // namespace attnlab
