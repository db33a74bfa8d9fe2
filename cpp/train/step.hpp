// The one training step every trainer and the session take:
//   zero_grad -> [GradientSync::begin] -> forward/backward -> [GradientSync::reduce] -> clip ->
//   finite check -> Adam.
// Under a sync, P's grads_ready reports during backward go to the sync (overlapped all-reduce).
// The token-batch form runs Model::forward/backward on a Batch; the general form takes the
// forward/backward pass as a callable (the pointer network's point batches). The learning rate
// is the caller's (its schedule at this step); with sync == nullptr it is the single-process step.
#pragma once
#include <cstdint>
#include <functional>

#include "models/model.hpp"
#include "train/grad_sync.hpp"
#include "train/optim.hpp"

namespace attnlab {

// Readback-free steps (a deferred kernel table, or a test of the path on the CPU): each step's
// [loss, gradient norm] stays in backend memory at records + 2 * used, and the clip factor and
// the sticky "stopped" flag in state [stopped, factor, sumsq]. Nothing is read on the host; the
// owner reads the records after a chunk of steps (api::Session::settle) and finds there the
// first step that was not finite, after which no weight changed.
struct DeviceSteps {
  float* records = nullptr;  // [2 * capacity] backend floats
  float* state = nullptr;    // [3] backend floats, zeroed when a chunk starts
  int capacity = 0, used = 0;
};

struct StepOptions {
  int step = 1;                   // 1-based step number (error messages)
  float lr = 0.f;                 // this step's learning rate
  float clip = 1.f;               // global gradient-norm bound (<= 0: none)
  float label_smoothing = 0.f;    // token batches only
  DeviceSteps* device = nullptr;  // readback-free: loss and norm stay on the backend (NaN here)
  // false: the step ends after the gradient sync (a replica whose weights another rank updates;
  // grad_norm is then 0 and the optimizer untouched)
  bool update = true;
  // shards > 1 (thread ranks, with a sync): the sharded update. This rank clips and steps the
  // parameters of its shard alone (shard_range), the norm summed over the ranks' shards, and
  // waits for every rank's shard before returning (the next forward reads them all).
  int shard = 0, shards = 1;
};

// The parameters [*first, *last) of shard `shard` of `shards` over an arena of `total`: as even
// as possible, the boundaries whole multiples of 4,096 floats (the sum of squares' blocks and
// a SIMD width, so a shard's kernels see whole vectors) except the last.
void shard_range(long total, int shard, int shards, long* first, long* last);

// The update of one shard after the gradient sync: the global gradient norm from every rank's
// sum of squares over its shard (sync.sum_over_ranks), check_step_finite on it and the global
// loss (the same on every rank, so every rank throws or none does, before any weight changes),
// the clip's scale on the shard, adam.step_range on it, then sync.barrier(). Returns the norm.
float update_shard(ParamArena& P, Adam& adam, GradientSync& sync, int shard, int shards, float lr,
                   float clip, int step, double loss);

struct StepInfo {
  int step = 0;
  double loss = 0;  // mean loss of the step (the global one under a GradientSync)
  float lr = 0, grad_norm = 0;
  long tokens = 0;  // local non-pad target tokens in the batch
};

// zero_grad, forward_backward() (fills P's gradients, returns the mean loss over `tokens`
// targets), sync, clip, check_step_finite, adam.step(o.lr). `tokens` must be known before
// forward_backward() runs (the sync starts from it).
StepInfo train_step(ParamArena& P, Adam& adam, const std::function<double()>& forward_backward,
                    long tokens, const StepOptions& o, GradientSync* sync = nullptr);

// The step on a token batch: forward(b, train = true, dropout, label smoothing), backward.
StepInfo train_step(Model& m, Adam& adam, const Batch& b, const StepOptions& o, Rng* dropout,
                    GradientSync* sync = nullptr);

}  // namespace attnlab
