// Position-wise feed-forward network (see ffn.hpp).
#include "layers/ffn.hpp"

namespace attnlab {

void FeedForward::declare(ParamArena& P, const std::string& prefix, int C, int F, Act act_,
                          float dropout) {
  linear1.declare(P, prefix + ".linear1", C, F);
  linear2.declare(P, prefix + ".linear2", F, C);
  act = act_;
  p_drop = dropout;
}

void FeedForward::forward(const Ctx& c, FfnCache& m, float* out, const float* x, int R) const {
  const int F = linear1.out;
  m.x = x;
  m.pre = c.ws.floats(size_t(R) * F);
  m.h = c.ws.floats(size_t(R) * F);
  // pre = x W1ᵀ + b1 (bias added by the fused bias+activation kernel), h = drop(act(pre))
  if (c.kt.gemm_fused) {  // the bias and activation as the product's epilogue
    // and the dropout after the activation
    GemmEpilogue e;
    e.bias = c.P.val(linear1.b);
    e.act = act;
    e.pre = m.pre;
    e.drop = dropout_args(c, m.drop, size_t(R) * F, p_drop);
    c.kt.gemm_fused(false, true, R, F, linear1.in, 1.f, x, linear1.in, c.P.val(linear1.W),
                    linear1.in, 0.f, m.h, F, e);
    linear2.forward(c, out, m.h, R);
    return;
  }
  linear_forward(c.kt, m.h, x, c.P.val(linear1.W), nullptr, R, linear1.in, F);
  c.kt.bias_act_forward(m.h, m.pre, m.h, c.P.val(linear1.b), act, R, F);
  dropout_forward(c, m.drop, m.h, m.h, size_t(R) * F, p_drop);
  linear2.forward(c, out, m.h, R);
}

void FeedForward::backward(const Ctx& c, const FfnCache& m, float* dx, const float* dout,
                           int R) const {
  const int F = linear1.out;
  float* dh = c.ws.floats(size_t(R) * F);  // [R,F]
  if (c.kt.gemm_fused) {
    // dh = (dout W2) ⊙ mask ⊙ act'(pre): the dropout and activation backward as the epilogue
    // of linear2's dx; db1 beside dW1 (linear_backward)
    GemmEpilogue e;
    e.mask = m.drop.mask;
    if (act != Act::None) {
      e.act = act;
      e.dact = m.pre;
    }
    c.kt.gemm_fused(false, false, R, F, linear2.out, 1.f, dout, linear2.out, c.P.val(linear2.W), F,
                    0.f, dh, F, e);
    linear_backward(c.kt, nullptr, c.P.grad(linear2.W), c.P.grad(linear2.b), dout, m.h,
                    c.P.val(linear2.W), R, F, linear2.out);
    linear_backward(c.kt, dx, c.P.grad(linear1.W), c.P.grad(linear1.b), dh, m.x, c.P.val(linear1.W),
                    R, linear1.in, F);
    return;
  }
  linear2.backward(c, dh, dout, m.h, R, 0.f);
  dropout_backward(c, m.drop, dh, size_t(R) * F);
  c.kt.bias_act_backward(dh, c.P.grad(linear1.b), dh, m.pre, act, R, F);
  linear_backward(c.kt, dx, c.P.grad(linear1.W), nullptr, dh, m.x, c.P.val(linear1.W), R,
                  linear1.in, F);
}

}  // namespace attnlab
