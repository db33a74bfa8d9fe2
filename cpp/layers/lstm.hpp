// Long short-term memory (Hochreiter & Schmidhuber 1997; the cell of Vinyals et al. 2015):
//   [i f g o] = [sigmoid sigmoid tanh sigmoid](x W + h U + b),
//   c' = f c + i g,  h' = o tanh(c').
// Time-major sequences x [T,B,Ci], h and c [T,B,C]; exact backprop through time. LstmSeq
// accumulates (+=) every gradient; the single-step functions below, the pieces of a recurrence,
// assign dx, dxg, dh_prev and dc_prev (see layers/context.hpp).
#pragma once
#include <string>

#include "kernels/kernels.hpp"
#include "layers/arena.hpp"
#include "layers/buffer.hpp"

namespace attnlab {

struct LstmParams {
  float* W = nullptr;  // [Ci, 4C] gate blocks i | f | g | o
  float* U = nullptr;  // [C, 4C]
  float* b = nullptr;  // [4C]
  static LstmParams carve(Carver& c, int Ci, int C);
};

// The LSTM's tensors in a ParamArena: <prefix>.W, .U uniform in +-1/sqrt(C), .b zero.
struct LstmIds {
  int W = -1, U = -1, b = -1;
  void declare(ParamArena& P, const std::string& prefix, int Ci, int C);
  LstmParams val(const ParamArena& P) const { return {P.val(W), P.val(U), P.val(b)}; }
  LstmParams grad(const ParamArena& P) const { return {P.grad(W), P.grad(U), P.grad(b)}; }
};

struct LstmStep {
  float* act;  // [B, 4C] gate activations
  float* c;    // [B, C]  cell state after the step
  float* tc;   // [B, C]  tanh(c)
};

// xg [R,4C] = x W + b ; and its backward (dx assigned or null, dW/db accumulated).
void lstm_input_forward(const KernelTable& K, const LstmParams& P, float* xg, const float* x, int R,
                        int Ci, int C);
void lstm_input_backward(const KernelTable& K, const LstmParams& P, const LstmParams& dP, float* dx,
                         const float* dxg, const float* x, int R, int Ci, int C);

// One step; scratch [B, 4C].
void lstm_step_forward(const KernelTable& K, const LstmParams& P, float* h, const LstmStep& s,
                       float* scratch, const float* xg, const float* h_prev, const float* c_prev,
                       int B, int C);
// dxg [B,4C], dh_prev, dc_prev assigned; dU accumulated. dc (gradient on the step's c) may be null.
void lstm_step_backward(const KernelTable& K, const LstmParams& P, const LstmParams& dP, float* dxg,
                        float* dh_prev, float* dc_prev, const LstmStep& s, const float* dh,
                        const float* dc, const float* h_prev, const float* c_prev, int B, int C);

class LstmSeq {
 public:
  // h [T,B,C] from x [T,B,Ci] (null: no input, Ci must be 0) and h0, c0 [B,C] (null: zeros).
  void forward(const KernelTable& K, const LstmParams& P, float* h, const float* x, const float* h0,
               const float* c0, int T, int B, int Ci, int C);
  // dh [T,B,C] (overwritten), dc_last [B,C] gradient on the final cell (may be null).
  // dx, dh0, dc0 += the gradients on x, h0, c0 (each may be null).
  void backward(const KernelTable& K, const LstmParams& P, const LstmParams& dP, float* dx,
                float* dh0, float* dc0, float* dh, const float* dc_last, const float* h,
                const float* x, int T, int B, int Ci, int C);
  const float* cell(int t) const { return c_ + size_t(t) * B_ * C_; }  // [B, C]

 private:
  LstmStep step(int t) const;
  Buffer cache_;
  float *xg_ = nullptr, *act_ = nullptr, *c_ = nullptr, *tc_ = nullptr, *scratch_ = nullptr,
        *zero_ = nullptr, *carry_h_ = nullptr, *carry_c_ = nullptr;
  const float *h0_ = nullptr, *c0_ = nullptr;
  int T_ = 0, B_ = 0, C_ = 0;
};

}  // namespace attnlab
