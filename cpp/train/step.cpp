// The one training step (see step.hpp).
#include "train/step.hpp"

#include <cmath>

#include "core/check.hpp"

namespace attnlab {

namespace {

// Routes P's grads_ready reports to a sync for the duration of one forward/backward.
struct GradsReadyRoute {
  ParamArena& P;
  GradsReadyRoute(ParamArena& P_, GradientSync& sync) : P(P_) {
    P.set_grads_ready([&sync](size_t offset, size_t n) { sync.grads_ready(offset, n); });
  }
  ~GradsReadyRoute() { P.set_grads_ready(nullptr); }
  GradsReadyRoute(const GradsReadyRoute&) = delete;
  GradsReadyRoute& operator=(const GradsReadyRoute&) = delete;
};

}  // namespace

StepInfo train_step(ParamArena& P, Adam& adam, const std::function<double()>& forward_backward,
                    long tokens, const StepOptions& o, GradientSync* sync) {
  StepInfo s;
  s.step = o.step;
  s.tokens = tokens;
  P.zero_grad();
  if (DeviceSteps* d = o.device) {
    AL_CHECK(!sync, "a readback-free step does not run data-parallel");
    AL_CHECK(d->used < d->capacity, "the step log holds " << d->capacity << " steps");
    const KernelTable& kt = P.kernels();
    float* record = d->records + 2 * size_t(d->used);
    P.set_loss_slot(record);
    struct Unset {
      ParamArena& P;
      ~Unset() { P.set_loss_slot(nullptr); }
    } unset{P};
    forward_backward();
    kt.sumsq_to(d->state + 2, P.grads(), P.total());
    kt.step_guard(record, d->state, d->state + 2, o.clip);
    adam.step_guarded(o.lr, d->state);
    ++d->used;
    s.loss = std::nan("");
    s.grad_norm = std::nanf("");
    s.lr = o.lr;
    return s;
  }
  if (sync) {
    sync->begin(P, int64_t(tokens));
    {
      GradsReadyRoute route(P, *sync);
      s.loss = forward_backward();
    }
    s.loss = sync->reduce(P, s.loss, int64_t(tokens));
  } else {
    s.loss = forward_backward();
  }
  if (!o.update) {
    s.lr = o.lr;
    return s;
  }
  s.grad_norm = clip_grad_norm(P, o.clip);
  s.lr = o.lr;
  check_step_finite(o.step, s.loss, s.grad_norm, s.lr);
  adam.step(s.lr);
  return s;
}

StepInfo train_step(Model& m, Adam& adam, const Batch& b, const StepOptions& o, Rng* dropout,
                    GradientSync* sync) {
  long tokens = 0;
  for (int32_t t : b.tgt_out) tokens += t != m.pad_id();
  return train_step(
      m.params(), adam,
      [&] {
        const double loss = m.forward(b, true, dropout, o.label_smoothing);
        m.backward();
        return loss;
      },
      tokens, o, sync);
}

}  // namespace attnlab
