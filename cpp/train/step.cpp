// The one training step (see step.hpp).
#include "train/step.hpp"

#include <algorithm>
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

void shard_range(long total, int shard, int shards, long* first, long* last) {
  AL_CHECK(shards >= 1 && shard >= 0 && shard < shards, "shard " << shard << " of " << shards);
  constexpr long kQuantum = 4096;
  const long units = (total + kQuantum - 1) / kQuantum;
  long a = 0, b = 0;
  rank_rows(units, shard, shards, &a, &b);
  *first = std::min(total, a * kQuantum);
  *last = std::min(total, b * kQuantum);
}

float update_shard(ParamArena& P, Adam& adam, GradientSync& sync, int shard, int shards, float lr,
                   float clip, int step, double loss) {
  long first = 0, last = 0;
  shard_range(P.total(), shard, shards, &first, &last);
  const KernelTable& k = P.kernels();
  float ss = 0.f;
  if (last > first) k.sumsq(&ss, P.grads() + first, last - first);
  const float norm = float(std::sqrt(sync.sum_over_ranks(double(ss))));
  check_step_finite(step, loss, norm, lr);
  if (clip > 0.f && norm > clip && last > first)
    k.scale(P.grads() + first, clip / (norm + 1e-6f), P.grads() + first, last - first);
  adam.step_range(lr, first, last);
  sync.barrier();  // every shard written before any rank reads the weights again
  return norm;
}

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
  if (o.shards > 1) {
    AL_CHECK(sync, "a sharded update needs the ranks' gradient sync");
    s.lr = o.lr;
    s.grad_norm = update_shard(P, adam, *sync, o.shard, o.shards, o.lr, o.clip, o.step, s.loss);
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
