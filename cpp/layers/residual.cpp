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
  dropout_forward(c, m.drop, m.sub, m.sub, n, p_drop);
  m.y = c.ws.floats(n);
  if (norm_first) {  // y = x + sub
    c.kt.copy(m.y, m.x, n * sizeof(float));
    c.kt.axpy(m.y, 1.f, m.sub, long(n));
  } else {  // y = LN(x + sub)
    m.r = c.ws.floats(n);
    c.kt.copy(m.r, m.x, n * sizeof(float));
    c.kt.axpy(m.r, 1.f, m.sub, long(n));
    norm.forward(c, m.ln, m.y, m.r, R);
  }
  return m.y;
}

const float* Residual::back_enter(const Ctx& c, ResidualCache& m, const float* dy, int R) const {
  const size_t n = size_t(R) * C;
  m.dx = c.ws.floats(n);
  m.dsub = c.ws.floats(n);
  if (norm_first) {  // dx = dy (identity path) ; dsub = dy ⊙ mask
    c.kt.copy(m.dx, dy, n * sizeof(float));
  } else {  // dr = LN'(dy) ; dx = dr ; dsub = dr ⊙ mask
    c.kt.zero(m.dx, n * sizeof(float));
    norm.backward(c, m.ln, m.dx, dy, R);
  }
  c.kt.copy(m.dsub, m.dx, n * sizeof(float));
  dropout_backward(c, m.drop, m.dsub, n);
  if (norm_first) {
    m.din = c.ws.floats(n);
    c.kt.zero(m.din, n * sizeof(float));
  } else {
    m.din = m.dx;  // the sublayer's input is x itself: its gradient adds onto dx
  }
  return m.dsub;
}

float* Residual::back_leave(const Ctx& c, ResidualCache& m, int R) const {
  if (norm_first) norm.backward(c, m.ln, m.dx, m.din, R);  // dx += LN'(din)
  return m.dx;
}

}  // namespace attnlab
