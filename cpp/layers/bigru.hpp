// Bidirectional GRU encoder (Bahdanau et al. 2015, sec. 3.2): a forward GRU reads x_1..x_L, a
// backward GRU reads x_L..x_1, and annotation h_j = [h->_j ; h<-_j]. Sequences in a batch have
// their own lengths L_b <= S (time-major, padded at the end): the backward GRU reads each one
// reversed within its length, so h<-_1 summarizes exactly x_1..x_L. Positions past L_b hold
// values the caller must mask. Every gradient accumulates (+=), dx included.
// With the backward direction off (set_bidirectional(false)) only the forward GRU runs and the
// h<- half of every annotation is 0: a one-way encoder as in Sutskever et al. (2014).
#pragma once
#include <vector>

#include "layers/gru.hpp"

namespace attnlab {

struct BiGruParams {
  GruParams fwd, bwd;
  static BiGruParams carve(Carver& c, int Ci, int C) {
    BiGruParams p;
    p.fwd = GruParams::carve(c, Ci, C);
    p.bwd = GruParams::carve(c, Ci, C);
    return p;
  }
};

struct BiGruIds {
  GruIds fwd, bwd;
  void declare(ParamArena& P, const std::string& prefix, int Ci, int C) {
    fwd.declare(P, prefix + ".fwd", Ci, C);
    bwd.declare(P, prefix + ".bwd", Ci, C);
  }
  BiGruParams val(const ParamArena& P) const { return {fwd.val(P), bwd.val(P)}; }
  BiGruParams grad(const ParamArena& P) const { return {fwd.grad(P), bwd.grad(P)}; }
};

class BiGru {
 public:
  // h [S,B,2C] from x [S,B,Ci]; lengths (host) [B], 1 <= L_b <= S.
  void forward(const KernelTable& K, const BiGruParams& P, float* h, const float* x,
               const std::vector<int>& lengths, int S, int B, int Ci, int C);
  // dh [S,B,2C] gradient on h (read only); dx [S,B,Ci] += the gradient on x (may be null).
  void backward(const KernelTable& K, const BiGruParams& P, const BiGruParams& dP, float* dx,
                const float* dh, const float* x);
  // Whether the backward GRU runs (default); when off it is skipped and its parameters
  // receive no gradient.
  void set_bidirectional(bool on) { both_ = on; }
  // The fixed-length summary [h->_{L_b} ; h<-_1] of each sequence: out [B,2C].
  void summary(const KernelTable& K, float* out, const float* h) const;
  // dh [S,B,2C] += the gradient dout [B,2C] of summary().
  void summary_backward(const KernelTable& K, float* dh, const float* dout) const;

 private:
  // dst[s,b] = src[L_b-1-s, b] for s < L_b, rows of width W; padding rows copied as they are.
  void reverse(const KernelTable& K, float* dst, const float* src, int W) const;
  GruSeq fwd_, bwd_;  // the forward and the backward (reversed-input) GRU
  Buffer buf_;
  // [S,B,*] time-major; the r suffix: in the backward GRU's reversed time order
  float *xr_ = nullptr, *hf_ = nullptr, *hr_ = nullptr, *dhf_ = nullptr, *dhr_ = nullptr,
        *dxr_ = nullptr;
  std::vector<int> len_;
  int S_ = 0, B_ = 0, Ci_ = 0, C_ = 0;
  bool both_ = true;
};

}  // namespace attnlab
