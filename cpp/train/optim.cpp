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
  if (!owns_) return;
  if (m_) P_.kernels().release(m_);
  if (v_) P_.kernels().release(v_);
}

void Adam::view_moments_of(const Adam& owner) {
  AL_CHECK(!m_ && !v_, "view_moments_of: this optimizer has moments of its own");
  AL_CHECK(owner.holds_moments(), "view_moments_of: the owner holds no moments");
  AL_CHECK(owner.P_.total() == P_.total(), "view_moments_of: the owner's arena has "
                                               << owner.P_.total() << " parameters, this one "
                                               << P_.total());
  AL_CHECK(owner.o_.kind == o_.kind,
           "view_moments_of: the owner is " << owner.o_.kind << ", this one " << o_.kind);
  m_ = owner.m_;
  v_ = owner.v_;
  owns_ = false;
}

namespace {

void require_moments(const Adam& a) {
  AL_CHECK(a.first_moments() != nullptr,
           "this optimizer holds no moments (a data-parallel replica): rank 0 takes the step");
}

}  // namespace

void Adam::step(float lr) { step_range(lr, 0, P_.total()); }

void Adam::step_range(float lr, long first, long last) {
  require_moments(*this);
  AL_CHECK(first >= 0 && first <= last && last <= P_.total(),
           "an update of parameters [" << first << ", " << last << ") of " << P_.total());
  ++t_;
  const long n = last - first;
  if (n == 0) return;
  float *p = P_.values() + first, *m = m_ + first, *v = v_ + first;
  const float* g = P_.grads() + first;
  if (o_.kind == "sgd") {
    const KernelTable& k = P_.kernels();
    k.scale(m, o_.momentum, m, n);  // u = μ u + g
    k.axpy(m, 1.f, g, n);
    if (o_.weight_decay != 0.f) k.scale(p, 1.f - lr * o_.weight_decay, p, n);
    k.axpy(p, -lr, m, n);  // p -= lr u
    return;
  }
  P_.kernels().adam(p, m, v, g, n, lr, o_.beta1, o_.beta2, o_.eps, o_.weight_decay, t_);
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
