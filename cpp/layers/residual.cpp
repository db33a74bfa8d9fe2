// Residual + layer norm around a sublayer (see residual.hpp).
#include "layers/residual.hpp"

namespace attnlab {

void Residual::declare(ParamArena& P, const std::string& norm_name, int C_, bool norm_first_,
                       float dropout) {
  C = C_;
  norm_first = norm_first_;
  p_drop = dropout;
  norm.declare(P, norm_name, C);
}

const float* Residual::enter(const Ctx& c, ResidualCache& m, const float* x, int R) const {
  const size_t n = size_t(R) * C;
  m.x = x;
  m.sub = c.ws.floats(n);
  if (norm_first) {
    m.in = c.ws.floats(n);
    norm.forward(c, m.ln, m.in, x, R);
    return m.in;
  }
  m.in = const_cast<float*>(x);
  return x;
}

float* Residual::leave(const Ctx& c, ResidualCache& m, int R) const {
  const size_t n = size_t(R) * C;
  if (!norm_first && c.kt.add_layernorm_forward) {  // y = LN(x + drop(sub)): one kernel
    const DropoutArgs drop = dropout_args(c, m.drop, n, p_drop);
    m.y = c.ws.floats(n);
    m.r = c.ws.floats(n);
    norm.add_forward(c, m.ln, m.y, m.r, m.x, m.sub, R, drop);
    return m.y;
  }
  dropout_forward(c, m.drop, m.sub, m.sub, n, p_drop);
  m.y = c.ws.floats(n);
  if (norm_first) {  // y = x + sub
    c.kt.copy(m.y, m.x, n * sizeof(float));
    c.kt.axpy(m.y, 1.f, m.sub, long(n));
  } else {  // y = LN(x + sub)
    m.r = c.ws.floats(n);
    norm.add_forward(c, m.ln, m.y, m.r, m.x, m.sub, R);
  }
  return m.y;
}

// pre-LN:  y = x + drop(sub(LN(x)))  =>  dx += dy + LN'(din), din = sub'(dy ⊙ mask)
// post-LN: y = LN(x + drop(sub(x)))  =>  dr = LN'(dy), dx += dr + din, din = sub'(dr ⊙ mask)
const float* Residual::back_enter(const Ctx& c, ResidualCache& m, const float* dy, int R) const {
  const size_t n = size_t(R) * C;
  m.dy = dy;
  m.dsub = c.ws.floats(n);
  if (norm_first) {
    c.kt.copy(m.dsub, dy, n * sizeof(float));
    m.din = zeroed(c, n);
  } else if (c.kt.layernorm_backward_fused) {
    // dr = LN'(dy) and dsub = dr ⊙ mask (the dropout's backward), one kernel
    m.dr = c.ws.floats(n);
    c.kt.layernorm_backward_fused(m.dr, m.dsub, c.P.grad(norm.gamma), c.P.grad(norm.beta), dy,
                                  nullptr, m.ln.x, m.ln.mean, m.ln.rstd, c.P.val(norm.gamma), false,
                                  R, C, m.drop.mask);
    m.din = m.dr;
    return m.dsub;
  } else {
    m.dr = zeroed(c, n);
    norm.backward(c, m.ln, m.dr, dy, R);
    c.kt.copy(m.dsub, m.dr, n * sizeof(float));
    m.din = m.dr;  // the sublayer's input is x itself: its gradient adds onto dr
  }
  dropout_backward(c, m.drop, m.dsub, n);
  return m.dsub;
}

void Residual::back_leave(const Ctx& c, ResidualCache& m, float* dx, int R) const {
  const size_t n = size_t(R) * C;
  if (norm_first) {
    c.kt.axpy(dx, 1.f, m.dy, long(n));     // identity path
    norm.backward(c, m.ln, dx, m.din, R);  // dx += LN'(din)
  } else {
    c.kt.axpy(dx, 1.f, m.dr, long(n));
  }
}

float* Residual::back_out(const Ctx& c, ResidualCache& m, int R) const {
  const size_t n = size_t(R) * C;
  if (!norm_first) return m.dr;         // 0 + dr
  if (c.kt.layernorm_backward_fused) {  // dx = dy + LN'(din)
    float* dx = c.ws.floats(n);
    c.kt.layernorm_backward_fused(dx, nullptr, c.P.grad(norm.gamma), c.P.grad(norm.beta), m.din,
                                  m.dy, m.ln.x, m.ln.mean, m.ln.rstd, c.P.val(norm.gamma), false, R,
                                  C, nullptr);
    return dx;
  }
  float* dx = zeroed(c, n);
  back_leave(c, m, dx, R);
  return dx;
}

}  // namespace attnlab
