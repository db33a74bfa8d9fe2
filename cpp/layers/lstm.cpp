// LSTM forward and exact backward through time (equations in lstm.hpp).
#include "layers/lstm.hpp"

#include <cmath>

namespace attnlab {

LstmParams LstmParams::carve(Carver& c, int Ci, int C) {
  LstmParams p;
  p.W = c.take(size_t(Ci) * 4 * C);
  p.U = c.take(size_t(C) * 4 * C);
  p.b = c.take(size_t(4) * C);
  return p;
}

void LstmIds::declare(ParamArena& P, const std::string& prefix, int Ci, int C) {
  const float a = 1.f / std::sqrt(float(C));
  W = P.add(prefix + ".W", {Ci > 0 ? Ci : 1, 4 * C}, Init::Uniform, a);
  U = P.add(prefix + ".U", {C, 4 * C}, Init::Uniform, a);
  b = P.add(prefix + ".b", {4 * C}, Init::Zeros);
}

void lstm_input_forward(const KernelTable& K, const LstmParams& P, float* xg, const float* x, int R,
                        int Ci, int C) {
  if (Ci > 0 && x)
    K.gemm(false, false, R, 4 * C, Ci, 1.f, x, Ci, P.W, 4 * C, 0.f, xg, 4 * C);
  else
    K.zero(xg, size_t(R) * 4 * C * sizeof(float));
  K.bias_act_forward(xg, nullptr, xg, P.b, Act::None, R, 4 * C);
}

// xg = x W + b  =>  dx = dxg W^T, dW += x^T dxg, db += sum_rows dxg
void lstm_input_backward(const KernelTable& K, const LstmParams& P, const LstmParams& dP, float* dx,
                         const float* dxg, const float* x, int R, int Ci, int C) {
  if (Ci > 0 && x) {
    if (dx) K.gemm(false, true, R, Ci, 4 * C, 1.f, dxg, 4 * C, P.W, 4 * C, 0.f, dx, Ci);
    K.gemm(true, false, Ci, 4 * C, R, 1.f, x, Ci, dxg, 4 * C, 1.f, dP.W, 4 * C);
  }
  K.bias_act_backward(const_cast<float*>(dxg), dP.b, dxg, nullptr, Act::None, R, 4 * C);
}

void lstm_step_forward(const KernelTable& K, const LstmParams& P, float* h, const LstmStep& s,
                       float* scratch, const float* xg, const float* h_prev, const float* c_prev,
                       int B, int C) {
  float* pre = scratch;  // [B, 4C] xg + h_prev U
  K.copy(pre, xg, size_t(B) * 4 * C * sizeof(float));
  K.gemm(false, false, B, 4 * C, C, 1.f, h_prev, C, P.U, 4 * C, 1.f, pre, 4 * C);
  K.lstm_cell_forward(h, s.c, s.act, s.tc, pre, c_prev, B, C);
}

// pre = xg + h_prev U  =>  dxg = dpre, dh_prev = dpre U^T, dU += h_prev^T dpre
void lstm_step_backward(const KernelTable& K, const LstmParams& P, const LstmParams& dP, float* dxg,
                        float* dh_prev, float* dc_prev, const LstmStep& s, const float* dh,
                        const float* dc, const float* h_prev, const float* c_prev, int B, int C) {
  K.lstm_cell_backward(dxg, dc_prev, dh, dc, s.act, c_prev, s.tc, B, C);
  K.gemm(false, true, B, C, 4 * C, 1.f, dxg, 4 * C, P.U, 4 * C, 0.f, dh_prev, C);
  K.gemm(true, false, C, 4 * C, B, 1.f, h_prev, C, dxg, 4 * C, 1.f, dP.U, 4 * C);
}

LstmStep LstmSeq::step(int t) const {
  const size_t bc = size_t(B_) * C_;
  return {act_ + t * 4 * bc, c_ + t * bc, tc_ + t * bc};
}

void LstmSeq::forward(const KernelTable& K, const LstmParams& P, float* h, const float* x,
                      const float* h0, const float* c0, int T, int B, int Ci, int C) {
  const size_t bc = size_t(B) * C;
  for (int pass = 0; pass < 2; ++pass) {
    Carver c(pass ? cache_.data() : nullptr);
    xg_ = c.take(T * 4 * bc);
    act_ = c.take(T * 4 * bc);
    c_ = c.take(T * bc);
    tc_ = c.take(T * bc);
    scratch_ = c.take(4 * bc);
    zero_ = c.take(bc);
    carry_h_ = c.take(bc);
    carry_c_ = c.take(bc);
    if (pass == 0 && c.used() > cache_.size()) cache_ = Buffer(K, c.used());
  }
  T_ = T, B_ = B, C_ = C;
  K.zero(zero_, bc * sizeof(float));
  h0_ = h0 ? h0 : zero_;
  c0_ = c0 ? c0 : zero_;
  lstm_input_forward(K, P, xg_, x, T * B, Ci, C);
  for (int t = 0; t < T; ++t) {
    const float* hp = t == 0 ? h0_ : h + (t - 1) * bc;
    const float* cp = t == 0 ? c0_ : c_ + (t - 1) * bc;
    lstm_step_forward(K, P, h + t * bc, step(t), scratch_, xg_ + t * 4 * bc, hp, cp, B, C);
  }
}

void LstmSeq::backward(const KernelTable& K, const LstmParams& P, const LstmParams& dP, float* dx,
                       float* dh0, float* dc0, float* dh, const float* dc_last, const float* h,
                       const float* x, int T, int B, int Ci, int C) {
  AL_CHECK(T == T_ && B == B_ && C == C_, "LstmSeq::backward: shapes differ from the forward");
  const size_t bc = size_t(B) * C;
  for (int t = T - 1; t >= 0; --t) {
    if (t < T - 1) K.axpy(dh + t * bc, 1.f, carry_h_, bc);
    const float* dc = t == T - 1 ? dc_last : carry_c_;
    const float* hp = t == 0 ? h0_ : h + (t - 1) * bc;
    const float* cp = t == 0 ? c0_ : c_ + (t - 1) * bc;
    // The input pre-activations are no longer needed: their gradient overwrites them.
    lstm_step_backward(K, P, dP, xg_ + t * 4 * bc, carry_h_, carry_c_, step(t), dh + t * bc, dc, hp,
                       cp, B, C);
  }
  // dx += dxg W^T here (lstm_input_backward would assign it), then the parameter gradients.
  if (dx && Ci > 0 && x)
    K.gemm(false, true, T * B, Ci, 4 * C, 1.f, xg_, 4 * C, P.W, 4 * C, 1.f, dx, Ci);
  lstm_input_backward(K, P, dP, nullptr, xg_, x, T * B, Ci, C);
  if (dh0) K.axpy(dh0, 1.f, carry_h_, long(bc));
  if (dc0) K.axpy(dc0, 1.f, carry_c_, long(bc));
}

}  // namespace attnlab
