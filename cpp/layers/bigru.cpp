// Bidirectional GRU over padded, time-major batches (see bigru.hpp).
#include "layers/bigru.hpp"

namespace attnlab {

void BiGru::reverse(const KernelTable& K, float* dst, const float* src, int W) const {
  const size_t row = size_t(W) * sizeof(float);
  for (int b = 0; b < B_; ++b)
    for (int s = 0; s < S_; ++s) {
      const int from = s < len_[b] ? len_[b] - 1 - s : s;
      K.copy(dst + (size_t(s) * B_ + b) * W, src + (size_t(from) * B_ + b) * W, row);
    }
}

void BiGru::forward(const KernelTable& K, const BiGruParams& P, float* h, const float* x,
                    const std::vector<int>& lengths, int S, int B, int Ci, int C) {
  AL_CHECK(int(lengths.size()) == B, "BiGru: " << lengths.size() << " lengths for batch " << B);
  for (int L : lengths)
    AL_CHECK(L >= 1 && L <= S, "BiGru: length " << L << " outside [1," << S << "]");
  S_ = S, B_ = B, Ci_ = Ci, C_ = C, len_ = lengths;
  const size_t sb = size_t(S) * B;
  for (int pass = 0; pass < 2; ++pass) {
    Carver c(pass ? buf_.data() : nullptr);
    xr_ = c.take(sb * Ci);
    hf_ = c.take(sb * C);
    hr_ = c.take(sb * C);
    dhf_ = c.take(sb * C);
    dhr_ = c.take(sb * C);
    dxr_ = c.take(sb * Ci);
    if (pass == 0 && c.used() > buf_.size()) buf_ = Buffer(K, c.used());
  }
  fwd_.forward(K, P.fwd, hf_, x, nullptr, S, B, Ci, C);
  if (both_) {
    reverse(K, xr_, x, Ci);
    bwd_.forward(K, P.bwd, hr_, xr_, nullptr, S, B, Ci, C);
  } else {
    K.zero(hr_, sb * C * sizeof(float));
  }
  // h[s,b] = [hf[s,b] ; hr[L_b-1-s, b]]
  const size_t row = size_t(C) * sizeof(float);
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s) {
      const int from = s < len_[b] ? len_[b] - 1 - s : s;
      float* o = h + (size_t(s) * B + b) * 2 * C;
      K.copy(o, hf_ + (size_t(s) * B + b) * C, row);
      K.copy(o + C, hr_ + (size_t(from) * B + b) * C, row);
    }
}

// Both directions receive their half of dh (the backward one re-reversed); dx sums the two.
// One-way: the h<- half of dh is dropped.
void BiGru::backward(const KernelTable& K, const BiGruParams& P, const BiGruParams& dP, float* dx,
                     const float* dh, const float* x) {
  const int S = S_, B = B_, C = C_, Ci = Ci_;
  const size_t row = size_t(C) * sizeof(float);
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s) {
      const int from = s < len_[b] ? len_[b] - 1 - s : s;
      const float* g = dh + (size_t(s) * B + b) * 2 * C;
      K.copy(dhf_ + (size_t(s) * B + b) * C, g, row);
      K.copy(dhr_ + (size_t(from) * B + b) * C, g + C, row);
    }
  fwd_.backward(K, P.fwd, dP.fwd, dx, nullptr, dhf_, hf_, x, S, B, Ci, C);
  if (!both_) return;
  if (dx) K.zero(dxr_, size_t(S) * B * Ci * sizeof(float));
  bwd_.backward(K, P.bwd, dP.bwd, dx ? dxr_ : nullptr, nullptr, dhr_, hr_, xr_, S, B, Ci, C);
  if (!dx) return;
  // dx[s] += dxr[L-1-s]: reverse into the spare buffer, then add.
  float* tmp = xr_;  // the reversed input is no longer needed
  reverse(K, tmp, dxr_, Ci);
  K.axpy(dx, 1.f, tmp, long(S) * B * Ci);
}

void BiGru::summary(const KernelTable& K, float* out, const float* h) const {
  const size_t row = size_t(C_) * sizeof(float);
  for (int b = 0; b < B_; ++b) {
    K.copy(out + size_t(b) * 2 * C_, h + (size_t(len_[b] - 1) * B_ + b) * 2 * C_, row);
    K.copy(out + size_t(b) * 2 * C_ + C_, h + size_t(b) * 2 * C_ + C_, row);
  }
}

void BiGru::summary_backward(const KernelTable& K, float* dh, const float* dout) const {
  for (int b = 0; b < B_; ++b) {
    K.axpy(dh + (size_t(len_[b] - 1) * B_ + b) * 2 * C_, 1.f, dout + size_t(b) * 2 * C_, C_);
    K.axpy(dh + size_t(b) * 2 * C_ + C_, 1.f, dout + size_t(b) * 2 * C_ + C_, C_);
  }
}

}  // namespace attnlab
