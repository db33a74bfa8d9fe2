// Greedy and beam decoding (see decode.hpp).
#include "eval/decode.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <numeric>

#include "core/check.hpp"

namespace attnlab {

namespace {

// A batch whose rows are the sources and the given target prefixes (<s> first).
Batch prefix_batch(const std::vector<std::vector<int32_t>>& srcs,
                   const std::vector<std::vector<int32_t>>& prefixes, int pad) {
  Batch b;
  b.B = int(srcs.size());
  for (const auto& s : srcs) b.S = std::max(b.S, int(s.size()));
  for (const auto& p : prefixes) b.T = std::max(b.T, int(p.size()));
  b.src.assign(size_t(b.B) * b.S, pad);
  b.tgt_in.assign(size_t(b.B) * b.T, pad);
  b.tgt_out.assign(size_t(b.B) * b.T, pad);
  for (int r = 0; r < b.B; ++r) {
    std::copy(srcs[size_t(r)].begin(), srcs[size_t(r)].end(), b.src.begin() + long(r) * b.S);
    std::copy(prefixes[size_t(r)].begin(), prefixes[size_t(r)].end(),
              b.tgt_in.begin() + long(r) * b.T);
  }
  return b;
}

// log softmax that is defined for any logits: NaN counts as -inf; when some logits are +inf,
// they share the probability mass; when none is above -inf, every entry is -inf. The result
// holds finite values and -inf only, never NaN.
std::vector<float> log_softmax(const float* z, int V) {
  std::vector<float> out(static_cast<size_t>(V), -INFINITY);
  float mx = -INFINITY;
  int n_inf = 0;
  for (int v = 0; v < V; ++v) {
    if (std::isnan(z[v])) continue;
    mx = std::max(mx, z[v]);
    n_inf += z[v] == INFINITY;
  }
  if (mx == -INFINITY) return out;
  if (n_inf > 0) {
    for (int v = 0; v < V; ++v)
      if (z[v] == INFINITY) out[size_t(v)] = -std::log(float(n_inf));
    return out;
  }
  double s = 0;
  for (int v = 0; v < V; ++v)
    if (!std::isnan(z[v])) s += std::exp(double(z[v]) - mx);
  const double lse = mx + std::log(s);
  for (int v = 0; v < V; ++v) {
    const double d = double(z[v]) - lse;  // below float's range when the logits span ~1e38
    if (!std::isnan(z[v])) out[size_t(v)] = d < -FLT_MAX ? -INFINITY : float(d);
  }
  return out;
}

// The first largest logit, NaN counting as -inf (0 when every logit is NaN or -inf).
int argmax(const float* z, int V) {
  int best = 0;
  float bv = -INFINITY;
  for (int v = 0; v < V; ++v)
    if (z[v] > bv) bv = z[v], best = v;
  return best;
}

// The logits of each row's next token, row r's at z[at[r]...]: from the step decoder, fed each
// prefix's newest token, or else from a forward pass over the sources and whole prefixes.
std::vector<float> next_logits(Model& m, StepDecoder* sd,
                               const std::vector<std::vector<int32_t>>& srcs,
                               const std::vector<std::vector<int32_t>>& prefixes,
                               std::vector<size_t>& at) {
  const size_t V = size_t(m.out_vocab());
  at.resize(prefixes.size());
  if (sd) {
    std::vector<int32_t> last;
    for (size_t r = 0; r < prefixes.size(); ++r) {
      last.push_back(prefixes[r].back());
      at[r] = r * V;
    }
    return sd->step(last);
  }
  const Batch b = prefix_batch(srcs, prefixes, m.pad_id());
  m.forward(b, false, nullptr, 0.f);
  for (size_t r = 0; r < prefixes.size(); ++r)
    at[r] = (r * size_t(b.T) + prefixes[r].size() - 1) * V;
  return m.logits();
}

}  // namespace

void check_source(const Model& m, const std::vector<int32_t>& src, const char* what) {
  // L: the config's max_len (none for models without one, whatever their Model::max_len)
  const int V = m.src_vocab(), L = m.position_limit();
  if (V > 0)
    for (int32_t t : src)
      AL_CHECK(t >= 0 && t < V, what << ": token id " << t << " out of range [0, " << V << ")");
  AL_CHECK(L <= 0 || int(src.size()) <= L,
           what << ": " << src.size() << " tokens, longer than the model's max_len " << L);
}

std::vector<std::vector<int32_t>> greedy_decode(Model& m,
                                                const std::vector<std::vector<int32_t>>& srcs,
                                                int max_len, bool step_cache) {
  const int V = m.out_vocab(), pad = m.pad_id(), eos = m.eos_id();
  std::vector<std::vector<int32_t>> out(srcs.size());
  if (srcs.empty()) return out;
  AL_CHECK(V >= 1, "this model has no output vocabulary to decode into");
  for (const auto& s : srcs) check_source(m, s);
  // Recurrent models carry their state forward: one decoder step per token instead of a
  // re-run of the whole prefix (dates, 200 sources: ~11 full passes -> one).
  if (decodes_stepwise(m)) return greedy_stepwise(m, srcs, max_len).tokens;
  if (!m.autoregressive()) {  // tag each source position (plus one for </s>) in one pass
    std::vector<std::vector<int32_t>> pre(srcs.size());
    for (size_t r = 0; r < srcs.size(); ++r) pre[r].assign(srcs[r].size() + 1, pad);
    const Batch b = prefix_batch(srcs, pre, pad);
    m.forward(b, false, nullptr, 0.f);
    const std::vector<float> z = m.logits();
    for (int r = 0; r < b.B; ++r)
      for (int t = 0; t < b.T && t < max_len; ++t) {
        const float* zr = z.data() + (size_t(r) * b.T + t) * V;
        const int tok = argmax(zr, V);
        if (tok == eos) break;
        out[size_t(r)].push_back(tok);
      }
    return out;
  }
  std::vector<bool> done(srcs.size(), false);
  const std::unique_ptr<StepDecoder> sd =
      step_cache && max_len >= 1 ? step_decoder(m, srcs, int(srcs.size()), max_len) : nullptr;
  std::vector<std::vector<int32_t>> prefixes(srcs.size(), {int32_t(m.bos_id())});
  std::vector<size_t> at;
  for (int step = 0; step < max_len; ++step) {
    const std::vector<float> z = next_logits(m, sd.get(), srcs, prefixes, at);
    bool all = true;
    for (size_t r = 0; r < srcs.size(); ++r) {
      if (done[r]) continue;  // a finished row's prefix stays as it is
      const int tok = argmax(z.data() + at[r], V);
      if (tok == eos) {
        done[r] = true;
      } else {
        prefixes[r].push_back(tok);
        out[r].push_back(tok);
        all = false;
      }
    }
    if (all) break;
  }
  return out;
}

std::vector<int32_t> beam_decode(Model& m, const std::vector<int32_t>& src, int beam, int max_len,
                                 float alpha, bool step_cache, BeamTrace* trace) {
  AL_CHECK(beam >= 1, "beam width must be at least 1");
  check_source(m, src);
  if (trace) *trace = BeamTrace{beam, alpha, {}, -1, -1};
  if (!m.autoregressive() || beam == 1) return greedy_decode(m, {src}, max_len, step_cache)[0];
  const int V = m.out_vocab(), eos = m.eos_id();
  struct Hyp {
    std::vector<int32_t> toks;  // with <s>
    double logp;
    int step = -1, index = -1;  // its candidate in the trace
  };
  struct Cand {  // live[r] extended by token v
    double logp;
    int r, v;
  };
  auto lp = [&](size_t len) { return std::pow((5.0 + double(len)) / 6.0, double(alpha)); };
  std::vector<Hyp> live{{{int32_t(m.bos_id())}, 0.0}};
  std::vector<Hyp> finished;
  std::unique_ptr<StepDecoder> sd =
      step_cache && max_len >= 1 ? step_decoder(m, {src}, beam, max_len) : nullptr;
  for (int step = 0; step < max_len && !live.empty(); ++step) {
    std::vector<std::vector<int32_t>> pre;
    for (const Hyp& h : live) pre.push_back(h.toks);
    std::vector<size_t> at;
    const std::vector<float> z = next_logits(m, sd.get(), std::vector(live.size(), src), pre, at);
    std::vector<Cand> cand;
    cand.reserve(live.size() * size_t(V));
    for (size_t r = 0; r < live.size(); ++r) {
      const std::vector<float> lsm = log_softmax(z.data() + at[r], V);
      for (int v = 0; v < V; ++v) cand.push_back({live[r].logp + lsm[size_t(v)], int(r), v});
    }
    // logp is finite or -inf (log_softmax never gives NaN), so this is a strict weak order.
    std::stable_sort(cand.begin(), cand.end(),
                     [](const Cand& a, const Cand& c) { return a.logp > c.logp; });
    std::vector<Hyp> next;
    std::vector<int> parents;
    std::vector<BeamCandidate>* seen = nullptr;
    if (trace) seen = &trace->steps.emplace_back();
    size_t taken = 0;
    for (const Cand& k : cand) {
      if (int(next.size()) >= beam) break;
      ++taken;
      Hyp h{live[size_t(k.r)].toks, k.logp, step, seen ? int(seen->size()) : -1};
      h.toks.push_back(k.v);
      if (seen)
        seen->push_back({k.r, k.v, k.logp, k.logp / lp(h.toks.size() - 1),
                         k.v == eos ? BeamCandidate::kFinished : BeamCandidate::kKept});
      if (k.v == eos) {
        finished.push_back(std::move(h));
      } else {
        next.push_back(std::move(h));
        parents.push_back(k.r);
      }
    }
    // the best candidates the step left, as many as the beam is wide
    for (size_t i = taken; seen && i < cand.size() && i < taken + size_t(beam); ++i) {
      const Cand& k = cand[i];
      if (k.logp == -INFINITY) break;
      const size_t len = live[size_t(k.r)].toks.size();  // with <s>: the extension's length
      seen->push_back({k.r, k.v, k.logp, k.logp / lp(len), BeamCandidate::kPruned});
    }
    live = std::move(next);
    if (int(finished.size()) >= beam) break;
    if (sd && !live.empty()) sd->reorder(parents);
  }
  for (Hyp& h : live) finished.push_back(std::move(h));
  if (finished.empty()) return {};
  // The first hypothesis wins ties, so a beam whose scores are all -inf still has a best.
  const Hyp* best = &finished[0];
  double best_score = finished[0].logp / lp(finished[0].toks.size() - 1);
  for (const Hyp& h : finished) {
    const size_t len = h.toks.size() - 1;
    const double s = h.logp / lp(len);
    if (s > best_score) best_score = s, best = &h;
  }
  if (trace) trace->winner_step = best->step, trace->winner_index = best->index;
  std::vector<int32_t> out(best->toks.begin() + 1, best->toks.end());
  if (!out.empty() && out.back() == eos) out.pop_back();
  return out;
}

}  // namespace attnlab
