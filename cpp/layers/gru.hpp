// Gated recurrent unit (Cho et al. 2014, the recurrence of Bahdanau et al. 2015, appendix A):
//   z = sigmoid(x Wz + h Uz + bz), r = sigmoid(x Wr + h Ur + br),
//   u = tanh(x Wu + (r * h) Uu + bu), h' = (1 - z) h + z u.
// Sequences are time-major: x [T,B,Ci], h [T,B,C]. Forward saves a cache; backward is exact
// backprop through time. GruSeq accumulates (+=) every gradient; the single-step functions
// below, the pieces of a recurrence, assign dx, dxg and dh_prev (see layers/context.hpp).
#pragma once
#include <string>

#include "kernels/kernels.hpp"
#include "layers/arena.hpp"
#include "layers/buffer.hpp"

namespace attnlab {

struct GruParams {
  float* W = nullptr;    // [Ci, 3C]  input weights, blocks z | r | u
  float* Uzr = nullptr;  // [C, 2C]   recurrent weights of z | r
  float* U = nullptr;    // [C, C]    recurrent weights of u (applied to r * h)
  float* b = nullptr;    // [3C]
  static GruParams carve(Carver& c, int Ci, int C);
};

// The GRU's tensors in a ParamArena: <prefix>.W, .Uzr, .U, .b, uniform in +-1/sqrt(C).
struct GruIds {
  int W = -1, Uzr = -1, U = -1, b = -1;
  void declare(ParamArena& P, const std::string& prefix, int Ci, int C);
  GruParams val(const ParamArena& P) const { return {P.val(W), P.val(Uzr), P.val(U), P.val(b)}; }
  GruParams grad(const ParamArena& P) const {
    return {P.grad(W), P.grad(Uzr), P.grad(U), P.grad(b)};
  }
};

// One step's saved activations (views into a sequence cache or the caller's buffers).
struct GruStep {
  float* zr;    // [B, 2C] gate values z | r
  float* rh;    // [B, C]  r * h_prev
  float* cand;  // [B, C]  candidate u
};

// x W + b for every row of x [R,Ci] into xg [R,3C].
void gru_input_forward(const KernelTable& K, const GruParams& P, float* xg, const float* x, int R,
                       int Ci, int C);
// dx = dxg W^T (assigned, dx may be null); dW += x^T dxg; db += colsum dxg.
void gru_input_backward(const KernelTable& K, const GruParams& P, const GruParams& dP, float* dx,
                        const float* dxg, const float* x, int R, int Ci, int C);

// h [B,C] from xg [B,3C] (input part incl. bias) and h_prev. scratch: [B, 3C].
void gru_step_forward(const KernelTable& K, const GruParams& P, float* h, const GruStep& s,
                      float* scratch, const float* xg, const float* h_prev, int B, int C);
// From dh [B,C]: dxg [B,3C] and dh_prev [B,C] assigned, dUzr/dU accumulated. scratch: [B, C].
void gru_step_backward(const KernelTable& K, const GruParams& P, const GruParams& dP, float* dxg,
                       float* dh_prev, const GruStep& s, float* scratch, const float* dh,
                       const float* h_prev, int B, int C);

// A whole sequence: owns its cache, sized on first use.
class GruSeq {
 public:
  // h [T,B,C] from x [T,B,Ci] and h0 [B,C] (null: zeros).
  void forward(const KernelTable& K, const GruParams& P, float* h, const float* x, const float* h0,
               int T, int B, int Ci, int C);
  // dh [T,B,C] gradient on the outputs (used as scratch: overwritten). dx [T,B,Ci] += the
  // gradient on x, dh0 [B,C] += the gradient on h0 (either may be null). Needs the forward's
  // h and x.
  void backward(const KernelTable& K, const GruParams& P, const GruParams& dP, float* dx,
                float* dh0, float* dh, const float* h, const float* x, int T, int B, int Ci, int C);

 private:
  GruStep step(int t, int B, int C) const;
  const float* prev(const float* h, int t, int B, int C) const;
  Buffer cache_;
  float *xg_ = nullptr, *zr_ = nullptr, *rh_ = nullptr, *cand_ = nullptr, *scratch_ = nullptr,
        *zero_ = nullptr, *carry_ = nullptr;  // zero_: [B,C] zeros, h0 when none is given
  const float* h0_ = nullptr;                 // the initial state the forward used
  int T_ = 0, B_ = 0, C_ = 0;
};

}  // namespace attnlab
