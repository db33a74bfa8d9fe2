// GRU forward and exact backward through time (equations in gru.hpp).
#include "layers/gru.hpp"

#include <cmath>

namespace attnlab {

GruParams GruParams::carve(Carver& c, int Ci, int C) {
  GruParams p;
  p.W = c.take(size_t(Ci) * 3 * C);
  p.Uzr = c.take(size_t(C) * 2 * C);
  p.U = c.take(size_t(C) * C);
  p.b = c.take(size_t(3) * C);
  return p;
}

void GruIds::declare(ParamArena& P, const std::string& prefix, int Ci, int C) {
  const float a = 1.f / std::sqrt(float(C));
  W = P.add(prefix + ".W", {Ci, 3 * C}, Init::Uniform, a);
  Uzr = P.add(prefix + ".Uzr", {C, 2 * C}, Init::Uniform, a);
  U = P.add(prefix + ".U", {C, C}, Init::Uniform, a);
  b = P.add(prefix + ".b", {3 * C}, Init::Zeros);
}

void gru_input_forward(const KernelTable& K, const GruParams& P, float* xg, const float* x, int R,
                       int Ci, int C) {
  K.gemm(false, false, R, 3 * C, Ci, 1.f, x, Ci, P.W, 3 * C, 0.f, xg, 3 * C);
  K.bias_act_forward(xg, nullptr, xg, P.b, Act::None, R, 3 * C);
}

// xg = x W + b  =>  dx = dxg W^T, dW += x^T dxg, db += sum_rows dxg
void gru_input_backward(const KernelTable& K, const GruParams& P, const GruParams& dP, float* dx,
                        const float* dxg, const float* x, int R, int Ci, int C) {
  if (dx) K.gemm(false, true, R, Ci, 3 * C, 1.f, dxg, 3 * C, P.W, 3 * C, 0.f, dx, Ci);
  K.gemm(true, false, Ci, 3 * C, R, 1.f, x, Ci, dxg, 3 * C, 1.f, dP.W, 3 * C);
  // bias_act_backward with Act::None writes dx = dy in place and accumulates the column sums.
  K.bias_act_backward(const_cast<float*>(dxg), dP.b, dxg, nullptr, Act::None, R, 3 * C);
}

void gru_step_forward(const KernelTable& K, const GruParams& P, float* h, const GruStep& s,
                      float* scratch, const float* xg, const float* h_prev, int B, int C) {
  float* hg = scratch;                      // [B, 2C] h_prev Uzr
  float* hc = scratch + size_t(B) * 2 * C;  // [B, C] (r * h_prev) U
  K.gemm(false, false, B, 2 * C, C, 1.f, h_prev, C, P.Uzr, 2 * C, 0.f, hg, 2 * C);
  K.gru_gates_forward(s.zr, s.rh, xg, hg, h_prev, B, C);
  K.gemm(false, false, B, C, C, 1.f, s.rh, C, P.U, C, 0.f, hc, C);
  K.gru_cell_forward(h, s.cand, xg, hc, s.zr, h_prev, B, C);
}

// Chain rule through h' = (1-z) h + z u, u = tanh(.. + (r h) Uu), [z r] = sigmoid(.. + h Uzr):
// dh_prev = dh (1-z) + (d(rh) * r) + d[zr]pre Uzr^T, with d(rh) = du_pre Uu^T.
void gru_step_backward(const KernelTable& K, const GruParams& P, const GruParams& dP, float* dxg,
                       float* dh_prev, const GruStep& s, float* scratch, const float* dh,
                       const float* h_prev, int B, int C) {
  float* drh = scratch;  // [B, C]
  K.gru_cell_backward(dxg, dh_prev, dh, s.zr, s.cand, h_prev, B, C);
  const float* du = dxg + 2 * C;  // [B, C] with row stride 3C
  K.gemm(false, true, B, C, C, 1.f, du, 3 * C, P.U, C, 0.f, drh, C);
  K.gemm(true, false, C, C, B, 1.f, s.rh, C, du, 3 * C, 1.f, dP.U, C);
  K.gru_gates_backward(dxg, dh_prev, drh, s.zr, h_prev, B, C);
  K.gemm(false, true, B, C, 2 * C, 1.f, dxg, 3 * C, P.Uzr, 2 * C, 1.f, dh_prev, C);
  K.gemm(true, false, C, 2 * C, B, 1.f, h_prev, C, dxg, 3 * C, 1.f, dP.Uzr, 2 * C);
}

GruStep GruSeq::step(int t, int B, int C) const {
  const size_t bc = size_t(B) * C;
  return {zr_ + t * 2 * bc, rh_ + t * bc, cand_ + t * bc};
}

const float* GruSeq::prev(const float* h, int t, int B, int C) const {
  return t == 0 ? h0_ : h + size_t(t - 1) * B * C;
}

void GruSeq::forward(const KernelTable& K, const GruParams& P, float* h, const float* x,
                     const float* h0, int T, int B, int Ci, int C) {
  const size_t bc = size_t(B) * C;
  Carver sizes;
  for (int pass = 0; pass < 2; ++pass) {
    Carver c(pass ? cache_.data() : nullptr);
    xg_ = c.take(T * 3 * bc);
    zr_ = c.take(T * 2 * bc);
    rh_ = c.take(T * bc);
    cand_ = c.take(T * bc);
    scratch_ = c.take(3 * bc);
    zero_ = c.take(bc);
    carry_ = c.take(bc);
    if (pass == 0 && c.used() > cache_.size()) cache_ = Buffer(K, c.used());
  }
  T_ = T, B_ = B, C_ = C;
  h0_ = h0 ? h0 : zero_;
  if (!h0) K.zero(zero_, bc * sizeof(float));
  gru_input_forward(K, P, xg_, x, T * B, Ci, C);
  for (int t = 0; t < T; ++t)
    gru_step_forward(K, P, h + t * bc, step(t, B, C), scratch_, xg_ + t * 3 * bc, prev(h, t, B, C),
                     B, C);
}

void GruSeq::backward(const KernelTable& K, const GruParams& P, const GruParams& dP, float* dx,
                      float* dh0, float* dh, const float* h, const float* x, int T, int B, int Ci,
                      int C) {
  AL_CHECK(T == T_ && B == B_ && C == C_, "GruSeq::backward: shapes differ from the forward");
  const size_t bc = size_t(B) * C;
  for (int t = T - 1; t >= 0; --t) {
    if (t < T - 1) K.axpy(dh + t * bc, 1.f, carry_, bc);
    // The input pre-activations are not needed any more: their gradient overwrites them.
    gru_step_backward(K, P, dP, xg_ + t * 3 * bc, carry_, step(t, B, C), scratch_, dh + t * bc,
                      prev(h, t, B, C), B, C);
  }
  // dx += dxg W^T here (gru_input_backward would assign it), then the parameter gradients.
  if (dx) K.gemm(false, true, T * B, Ci, 3 * C, 1.f, xg_, 3 * C, P.W, 3 * C, 1.f, dx, Ci);
  gru_input_backward(K, P, dP, nullptr, xg_, x, T * B, Ci, C);
  if (dh0) K.axpy(dh0, 1.f, carry_, long(bc));
}

}  // namespace attnlab
