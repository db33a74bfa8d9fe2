// Pointer network decoding (see pointer.hpp): greedy, unconstrained or constrained to the
// positions not yet chosen, and beam search over constrained hypotheses.
#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "models/pointer.hpp"

namespace attnlab {

PointDecoded PointerNet::decode_points(const std::vector<float>& x, int B, int n, int beam,
                                       bool constrained) {
  AL_CHECK(constrained || beam == 1, "pointer: beam search is always constrained");
  return constrained ? beam_search(x, B, n, beam) : greedy(x, B, n, false);
}

PointDecoded PointerNet::greedy(const std::vector<float>& x, int B, int n, bool constrained) {
  ws_.reset();
  encode(x, B, n);
  const int S = S_, T = n + 1;
  alloc_decoder(T);
  PointDecoded out;
  out.order.resize(size_t(B));
  out.probs.resize(size_t(B));
  std::vector<int> prev(size_t(B), 0);
  std::vector<char> done(size_t(B), 0);
  std::vector<std::vector<uint8_t>> used(size_t(B), std::vector<uint8_t>(size_t(S), 0));
  std::vector<float> xd(size_t(B) * Ci_), p(size_t(B) * S);
  std::vector<uint8_t> mask(size_t(B) * S);
  for (int t = 0; t < T; ++t) {
    for (int b = 0; b < B; ++b) {
      const auto f = features(x, b, done[size_t(b)] ? 0 : prev[size_t(b)]);
      std::copy(f.begin(), f.end(), xd.begin() + long(size_t(b) * Ci_));
      uint8_t* m = mask.data() + size_t(b) * S;
      const int k = int(out.order[size_t(b)].size());
      for (int s = 0; s < S; ++s) m[s] = 0;
      if (!constrained || done[size_t(b)]) continue;
      decoder_masks(m, used[size_t(b)], k, n);
    }
    step(t, xd.data(), mask.data());
    kt_.download(p.data(), probs_ + size_t(t) * B * S, p.size() * sizeof(float));
    bool all = true;
    for (int b = 0; b < B; ++b) {
      if (done[size_t(b)]) continue;
      const float* pr = p.data() + size_t(b) * S;
      std::vector<float> row(pr + 1, pr + S);
      row.push_back(pr[0]);
      out.probs[size_t(b)].push_back(row);
      const int pos = int(std::max_element(pr, pr + S) - pr);
      if (pos == 0 || t == T - 1) {
        done[size_t(b)] = 1;
        if (pos != 0) out.order[size_t(b)].push_back(pos - 1);
        continue;
      }
      out.order[size_t(b)].push_back(pos - 1);
      used[size_t(b)][size_t(pos)] = 1;
      prev[size_t(b)] = pos;
      all = false;
    }
    if (all) break;
  }
  return out;
}

// Mask row for a hypothesis that has emitted k outputs (used: chosen positions, 1-based).
void PointerNet::decoder_masks(uint8_t* m, const std::vector<uint8_t>& used, int k, int n) const {
  const int S = n + 1;
  for (int s = 1; s < S; ++s) m[s] = used[size_t(s)];
  m[0] = k < cfg_.min_outputs || (cfg_.permutation && k < n);
  if (k >= n) m[0] = 0;
}

PointDecoded PointerNet::beam_search(const std::vector<float>& x, int B, int n, int beam) {
  AL_CHECK(beam >= 1 && beam <= 1024, "beam size must be in 1..1024, got " << beam);
  if (beam == 1) return greedy(x, B, n, true);
  AL_CHECK(B >= 1 && n >= 1, "pointer: need at least one set of at least one element");
  AL_CHECK(x.size() == size_t(B) * n * cfg_.dim,
           "pointer: expected " << size_t(B) * n * cfg_.dim << " coordinates, got " << x.size());
  const int K = beam, R = B * K, S = n + 1, T = n + 1, C = cfg_.hidden, D = cfg_.dim;
  std::vector<float> xr(size_t(R) * n * D);  // each set repeated K times: row b*K + k
  for (int b = 0; b < B; ++b)
    for (int k = 0; k < K; ++k)
      std::copy(x.begin() + long(b) * n * D, x.begin() + long(b + 1) * n * D,
                xr.begin() + long(b * K + k) * n * D);
  ws_.reset();
  encode(xr, R, n);
  alloc_decoder(T);
  struct Hyp {
    std::vector<int> order;
    std::vector<std::vector<float>> probs;
    std::vector<uint8_t> used;
    double logp = -INFINITY;
    bool done = false;
  };
  std::vector<std::vector<Hyp>> hyp(size_t(B), std::vector<Hyp>(size_t(K), Hyp{}));
  for (auto& hs : hyp) {
    for (auto& h : hs) h.used.assign(size_t(S), 0);
    hs[0].logp = 0;  // one live hypothesis to start
  }
  std::vector<float> xd(size_t(R) * Ci_), p(size_t(R) * S), hbuf(size_t(R) * C),
      cbuf(size_t(R) * C);
  std::vector<float> hnew(hbuf.size()), cnew(cbuf.size());
  std::vector<uint8_t> mask(size_t(R) * S);
  const size_t rc = size_t(R) * C;
  for (int t = 0; t < T; ++t) {
    for (int b = 0; b < B; ++b)
      for (int k = 0; k < K; ++k) {
        const Hyp& h = hyp[size_t(b)][size_t(k)];
        const int row = b * K + k;
        const int prev = h.done || h.order.empty() ? 0 : h.order.back() + 1;
        const auto f = features(xr, row, prev);
        std::copy(f.begin(), f.end(), xd.begin() + long(size_t(row) * Ci_));
        uint8_t* m = mask.data() + size_t(row) * S;
        std::fill(m, m + S, uint8_t(0));
        if (!h.done) decoder_masks(m, h.used, int(h.order.size()), n);
      }
    step(t, xd.data(), mask.data());
    kt_.download(p.data(), probs_ + size_t(t) * R * S, p.size() * sizeof(float));
    kt_.download(hbuf.data(), Dh_ + (t + 1) * rc, rc * sizeof(float));
    kt_.download(cbuf.data(), Dc_ + (t + 1) * rc, rc * sizeof(float));
    bool all_done = true;
    for (int b = 0; b < B; ++b) {
      struct Cand {
        double logp;
        int parent, pos;  // pos -1: a finished hypothesis carried over
      };
      std::vector<Cand> cand;
      const auto& hs = hyp[size_t(b)];
      for (int k = 0; k < K; ++k) {
        const Hyp& h = hs[size_t(k)];
        if (h.logp == -INFINITY) continue;
        if (h.done) {
          cand.push_back({h.logp, k, -1});
          continue;
        }
        const float* pr = p.data() + size_t(b * K + k) * S;
        const uint8_t* m = mask.data() + size_t(b * K + k) * S;
        for (int s = 0; s < S; ++s)
          if (!m[s] && pr[s] > 0.f && (s == 0 || t < T - 1))
            cand.push_back({h.logp + std::log(double(pr[s])), k, s});
      }
      std::stable_sort(cand.begin(), cand.end(),
                       [](const Cand& a, const Cand& c) { return a.logp > c.logp; });
      std::vector<Hyp> next(static_cast<size_t>(K));
      for (auto& h : next) h.used.assign(size_t(S), 0);
      for (int k = 0; k < K && k < int(cand.size()); ++k) {
        const Cand& c = cand[size_t(k)];
        Hyp h = hs[size_t(c.parent)];
        h.logp = c.logp;
        if (c.pos >= 0) {
          const float* pr = p.data() + size_t(b * K + c.parent) * S;
          std::vector<float> row(pr + 1, pr + S);
          row.push_back(pr[0]);
          h.probs.push_back(std::move(row));
          if (c.pos == 0 || t == T - 1) h.done = true;
          if (c.pos != 0) {
            h.order.push_back(c.pos - 1);
            h.used[size_t(c.pos)] = 1;
          }
        }
        all_done = all_done && h.done;
        const size_t dst = size_t(b * K + k) * C, src = size_t(b * K + c.parent) * C;
        std::copy(hbuf.begin() + long(src), hbuf.begin() + long(src + C), hnew.begin() + long(dst));
        std::copy(cbuf.begin() + long(src), cbuf.begin() + long(src + C), cnew.begin() + long(dst));
        next[size_t(k)] = std::move(h);
      }
      hyp[size_t(b)] = std::move(next);
    }
    kt_.upload(Dh_ + (t + 1) * rc, hnew.data(), rc * sizeof(float));
    kt_.upload(Dc_ + (t + 1) * rc, cnew.data(), rc * sizeof(float));
    if (all_done) break;
  }
  PointDecoded out;
  out.order.resize(size_t(B));
  out.probs.resize(size_t(B));
  for (int b = 0; b < B; ++b) {
    const Hyp* best = nullptr;
    for (const Hyp& h : hyp[size_t(b)])
      if (h.logp > -INFINITY &&
          (!best || (h.done && !best->done) || (h.done == best->done && h.logp > best->logp)))
        best = &h;
    if (!best) continue;
    out.order[size_t(b)] = best->order;
    out.probs[size_t(b)] = best->probs;
  }
  return out;
}

}  // namespace attnlab
