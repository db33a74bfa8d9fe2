// Adam, schedules and gradient clipping (see optim.hpp).
#include "train/optim.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"

namespace attnlab {

void AdamOptions::validate() const {
  AL_CHECK(kind == "adam" || kind == "sgd", "unknown optimizer \"" << kind << "\" (adam, sgd)");
  AL_CHECK(std::isfinite(momentum) && momentum >= 0 && momentum < 1,
           "the momentum must be in [0, 1), got " << momentum);
}

Adam::Adam(ParamArena& P, AdamOptions o, bool moments) : P_(P), o_(o) {
  o_.validate();
  if (!moments) return;
  const size_t bytes = size_t(std::max(1L, P.total())) * sizeof(float);
  m_ = static_cast<float*>(P.kernels().alloc(bytes));
  v_ = static_cast<float*>(P.kernels().alloc(bytes));
}

Adam::~Adam() {
  if (m_) P_.kernels().release(m_);
  if (v_) P_.kernels().release(v_);
}

namespace {

void require_moments(const Adam& a) {
  AL_CHECK(a.holds_moments(),
           "this optimizer holds no moments (a data-parallel replica): rank 0 takes the step");
}

}  // namespace

void Adam::step(float lr) {
  require_moments(*this);
  ++t_;
  if (o_.kind == "sgd") {
    const KernelTable& k = P_.kernels();
    const long n = P_.total();
    k.scale(m_, o_.momentum, m_, n);  // u = μ u + g
    k.axpy(m_, 1.f, P_.grads(), n);
    if (o_.weight_decay != 0.f) k.scale(P_.values(), 1.f - lr * o_.weight_decay, P_.values(), n);
    k.axpy(P_.values(), -lr, m_, n);  // p -= lr u
    return;
  }
  P_.kernels().adam(P_.values(), m_, v_, P_.grads(), P_.total(), lr, o_.beta1, o_.beta2, o_.eps,
                    o_.weight_decay, t_);
}

void Adam::step_guarded(float lr, const float* state) {
  AL_CHECK(o_.kind == "adam",
           "SGD with momentum trains on the CPU backends only; this backend's step is Adam's");
  require_moments(*this);
  ++t_;
  P_.kernels().adam_guarded(P_.values(), m_, v_, P_.grads(), P_.total(), lr, o_.beta1, o_.beta2,
                            o_.eps, o_.weight_decay, t_, state);
}

void Schedule::validate() const {
  AL_CHECK(kind == "noam" || kind == "constant",
           "unknown schedule \"" << kind << "\" (noam, constant)");
  if (kind == "constant")
    AL_CHECK(std::isfinite(lr) && lr > 0,
             "the learning rate must be a positive number, got " << lr);
  else
    AL_CHECK(std::isfinite(factor) && factor > 0,
             "the learning-rate factor must be a positive number, got " << factor);
  AL_CHECK(warmup >= 1, "warmup must be at least 1 step, got " << warmup);
  AL_CHECK(std::isfinite(lr_final) && lr_final >= 0,
           "the final learning rate must be a number >= 0, got " << lr_final);
  AL_CHECK(d_model >= 1, "the schedule's d_model must be at least 1, got " << d_model);
}

float Schedule::at(int step) const {
  AL_CHECK(step >= 1, "schedule steps count from 1");
  validate();
  if (kind == "constant") {
    const int from = std::max(1, decay_from);
    if (lr_final <= 0.f || from >= decay_to || step <= from) return lr;
    const double f = double(std::min(step, decay_to) - from) / double(decay_to - from);
    return float(lr * std::pow(double(lr_final) / lr, f));
  }
  const double s = step, w = std::max(1, warmup);
  return float(factor / std::sqrt(double(d_model)) *
               std::min(1.0 / std::sqrt(s), s * std::pow(w, -1.5)));
}

void check_step_finite(int step, double loss, float grad_norm, float lr) {
  AL_CHECK(std::isfinite(loss) && std::isfinite(grad_norm),
           "training step " << step << ": the " << (std::isfinite(loss) ? "gradient norm" : "loss")
                            << " is not finite (loss " << loss << ", gradient norm " << grad_norm
                            << ", learning rate " << lr
                            << "); training stopped with the weights of the last finite step: "
                               "lower the learning rate");
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
