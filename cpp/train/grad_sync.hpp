// The hook through which data-parallel training reduces gradients inside the one training step.
// After backward, the step calls reduce() with the local mean loss and the local count of target
// tokens; on return, P's gradients must hold the gradient of the loss normalised by the global
// count of target tokens (summed over ranks), and the return value is that global mean loss.
// To overlap the reduction with backward, the step calls begin() before forward/backward and
// forwards the model's ParamArena::grads_ready reports to grads_ready() (both optional no-ops).
// DataParallel is what a trainer needs to know of the job (the front end builds the sync from
// dist/, which train/ does not see): rank r of `size` takes rows [r·B, (r+1)·B) of each global
// batch of size·B examples drawn from the shared data stream.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/check.hpp"

namespace attnlab {

class ParamArena;

class GradientSync {
 public:
  virtual ~GradientSync() = default;
  // Before forward/backward, with the local count of target tokens reduce() will get.
  virtual void begin(ParamArena& P, int64_t local_tokens) {
    (void)P;
    (void)local_tokens;
  }
  // During backward: gradient floats [offset, offset + n) of P are final for this step.
  virtual void grads_ready(size_t offset, size_t n) {
    (void)offset;
    (void)n;
  }
  virtual double reduce(ParamArena& P, double local_loss, int64_t local_tokens) = 0;
  // The sharded update (StepOptions::shards): x summed over the ranks, in rank order (the same
  // double on every rank), and a barrier. A world of one: x itself, and nothing to wait for.
  virtual double sum_over_ranks(double x) { return x; }
  virtual void barrier() {}
};

struct DataParallel {
  int rank = 0, size = 1;
  GradientSync* sync = nullptr;  // null in a world of one: the single-process step
  // Thread ranks in one process (parallel/thread_ranks.hpp): the trainer's batch is the global
  // batch and this rank takes its rank_rows share of it (as the corpus trainer always does), so
  // a run keeps its batch whatever the number of ranks.
  bool split_batch = false;
  // False on a replica that views another rank's weights (ParamArena::share_values): it
  // computes and reduces gradients, and rank 0 alone clips and takes the optimizer step (the
  // replica's trainer builds an Adam without moments).
  bool update = true;
  // Thread ranks: every rank updates its own range of the shared weights (the sharded update of
  // train/step.hpp) with the moments of rank 0's optimizer, which a replica's optimizer views
  // (Adam::view_moments_of), so the update after the reduction runs on every rank at once.
  bool shard_update = false;

  void require_valid() const {
    AL_CHECK(size >= 1 && rank >= 0 && rank < size,
             "data-parallel rank " << rank << " of " << size);
  }
};

// Rows [first, last) of a global batch of `total` rows that rank r of `size` takes: contiguous,
// as even as possible (the first total % size ranks take one more).
inline void rank_rows(long total, int rank, int size, long* first, long* last) {
  const long q = total / size, rem = total % size;
  *first = rank * q + (rank < rem ? rank : rem);
  *last = *first + q + (rank < rem ? 1 : 0);
}

}  // namespace attnlab
