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
  // pre = x W1ᵀ + b1 (bias added by the fused bias+activation kernel), h = act(pre)
  linear_forward(c.kt, m.h, x, c.P.val(linear1.W), nullptr, R, linear1.in, F);
  c.kt.bias_act_forward(m.h, m.pre, m.h, c.P.val(linear1.b), act, R, F);
  dropout_forward(c, m.drop, m.h, m.h, size_t(R) * F, p_drop);
  linear2.forward(c, out, m.h, R);
}

void FeedForward::backward(const Ctx& c, const FfnCache& m, float* dx, const float* dout,
                           int R) const {
  const int F = linear1.out;
  float* dh = c.ws.floats(size_t(R) * F);  // [R,F]
  linear2.backward(c, dh, dout, m.h, R, 0.f);
  dropout_backward(c, m.drop, dh, size_t(R) * F);
  c.kt.bias_act_backward(dh, c.P.grad(linear1.b), dh, m.pre, act, R, F);
  linear_backward(c.kt, dx, c.P.grad(linear1.W), nullptr, dh, m.x, c.P.val(linear1.W), R,
                  linear1.in, F);
}

}  // namespace attnlab
