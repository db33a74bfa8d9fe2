// Linear layer (see linear.hpp).
#include "layers/linear.hpp"

namespace attnlab {

void linear_forward(const KernelTable& kt, float* y, const float* x, const float* W, const float* b,
                    int R, int in, int out) {
  if (b && kt.gemm_fused) {  // the bias as the product's epilogue
    GemmEpilogue e;
    e.bias = b;
    kt.gemm_fused(false, true, R, out, in, 1.f, x, in, W, in, 0.f, y, out, e);
    return;
  }
  kt.gemm(false, true, R, out, in, 1.f, x, in, W, in, 0.f, y, out);  // y[R,out] = x Wᵀ
  if (b) kt.bias_act_forward(y, nullptr, y, b, Act::None, R, out);
}

void linear_backward(const KernelTable& kt, float* dx, float* dW, float* db, const float* dy,
                     const float* x, const float* W, int R, int in, int out, float dx_beta) {
  if (dx)
    kt.gemm(false, false, R, in, out, 1.f, dy, out, W, in, dx_beta, dx, in);  // dx = dy W + β dx
  if (db && kt.gemm_fused) {  // db += Σ_r dy as the row sums of dyᵀ, in dW's product
    GemmEpilogue e;
    e.rowsum = db;
    kt.gemm_fused(true, false, out, in, R, 1.f, dy, out, x, in, 1.f, dW, in, e);
    return;
  }
  kt.gemm(true, false, out, in, R, 1.f, dy, out, x, in, 1.f, dW, in);  // dW += dyᵀ x
  // bias_act_backward with Act::None copies dy onto itself (values unchanged) and sums rows.
  if (db) kt.bias_act_backward(const_cast<float*>(dy), db, dy, nullptr, Act::None, R, out);
}

void Linear::declare(ParamArena& P, const std::string& prefix, int in_, int out_, bool bias) {
  in = in_;
  out = out_;
  W = P.add(prefix + ".weight", {out, in}, Init::XavierUniform);
  b = bias ? P.add(prefix + ".bias", {out}, Init::Zeros) : -1;
}

void Linear::forward(const Ctx& c, float* y, const float* x, int R) const {
  linear_forward(c.kt, y, x, c.P.val(W), b >= 0 ? c.P.val(b) : nullptr, R, in, out);
}

void Linear::backward(const Ctx& c, float* dx, const float* dy, const float* x, int R,
                      float dx_beta) const {
  linear_backward(c.kt, dx, c.P.grad(W), b >= 0 ? c.P.grad(b) : nullptr, dy, x, c.P.val(W), R, in,
                  out, dx_beta);
}

}  // namespace attnlab
