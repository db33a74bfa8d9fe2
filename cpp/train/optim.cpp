// Adam, schedules and gradient clipping (see optim.hpp).
#include "train/optim.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"

namespace attnlab {

Adam::Adam(ParamArena& P, AdamOptions o) : P_(P), o_(o) {
  const size_t bytes = size_t(std::max(1L, P.total())) * sizeof(float);
  m_ = static_cast<float*>(P.kernels().alloc(bytes));
  v_ = static_cast<float*>(P.kernels().alloc(bytes));
}

Adam::~Adam() {
  P_.kernels().release(m_);
  P_.kernels().release(v_);
}

void Adam::step(float lr) {
  ++t_;
  P_.kernels().adam(P_.values(), m_, v_, P_.grads(), P_.total(), lr, o_.beta1, o_.beta2, o_.eps,
                    o_.weight_decay, t_);
}

float Schedule::at(int step) const {
  AL_CHECK(step >= 1, "schedule steps count from 1");
  if (kind == "constant") return lr;
  AL_CHECK(kind == "noam", "unknown schedule \"" << kind << "\" (noam, constant)");
  const double s = step, w = std::max(1, warmup);
  return float(factor / std::sqrt(double(d_model)) * std::min(1.0 / std::sqrt(s), s * std::pow(w, -1.5)));
}

float clip_grad_norm(ParamArena& P, float max_norm) {
  float ss = 0.f;
  P.kernels().sumsq(&ss, P.grads(), P.total());
  const float norm = std::sqrt(ss);
  if (max_norm > 0.f && norm > max_norm)
    P.kernels().scale(P.grads(), max_norm / (norm + 1e-6f), P.grads(), P.total());
  return norm;
}

}  // namespace attnlab
