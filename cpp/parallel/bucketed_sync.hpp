// Data-parallel gradient reduction for the one training step (train/grad_sync.hpp). Each rank's
// step leaves in P.grads() the gradient of its loss normalised by its own target-token count n_r;
// the job wants the gradient normalised by the global count N = sum_r n_r, which is
//   g = sum_r (n_r / N) g_r,
// so every rank scales its gradients by n_r / N and the buffer is summed over ranks, in buckets
// of a few MB with non-blocking all-reduces (start them all, then wait for all). The global mean
// loss is sum_r n_r L_r / N. For overlap with backward, the step calls begin() (which sums the
// token counts) before backward and grads_ready() (= bucket_ready()) as the model's backward
// reports regions of the gradient final: buckets start as soon as they are complete, and
// every report lets the started ones progress; reduce() starts the rest and waits.
// Every rank starts the buckets in one order, from the last to the first (MPI and NCCL match
// collectives by the order they are issued): a bucket starts once it is complete and every
// bucket after it has started. A backward pass produces the block from the end, so this keeps
// the overlap; a rank whose slice of a global batch is empty reports nothing and starts them all
// in reduce(), in the same order (issuing them in another order there mismatched the sizes
// of the ranks' reductions and stopped a run with MPI_ERR_TRUNCATE).
// A gradient buffer in device memory reduced by a host communicator goes through a host copy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "parallel/communicator.hpp"
#include "train/grad_sync.hpp"

namespace attnlab {

struct Bucket {
  size_t offset, n;  // in floats, into the gradient block
};

// [0, total) cut into consecutive buckets of bucket_floats (the last one shorter).
std::vector<Bucket> make_buckets(size_t total, size_t bucket_floats);

class BucketedGradientSync : public GradientSync {
 public:
  static constexpr size_t kDefaultBucketBytes = size_t(4) << 20;

  explicit BucketedGradientSync(Communicator& comm, size_t bucket_bytes = kDefaultBucketBytes);

  // Optional, before backward: sums the token counts over ranks (a blocking all-reduce of one
  // int64), so that bucket_ready() can scale and start buckets during backward.
  void begin(ParamArena& P, int64_t local_tokens) override;
  // After begin(): gradient floats [offset, offset + n) of P.grads() are final for this step.
  // Each float is reported once per step; a bucket starts when all its floats are reported.
  void bucket_ready(size_t offset, size_t n);
  void grads_ready(size_t offset, size_t n) override { bucket_ready(offset, n); }
  // The GradientSync hook: scales and reduces every bucket not yet started, waits for all,
  // and returns the global mean loss. local_tokens must equal begin()'s when begin() was called.
  double reduce(ParamArena& P, double local_loss, int64_t local_tokens) override;
  double sum_over_ranks(double x) override { return comm_.allreduce_double(x, ReduceOp::Sum); }
  void barrier() override { comm_.barrier(); }

  int64_t global_tokens() const { return global_tokens_; }  // of the last step
  const std::vector<Bucket>& buckets() const { return buckets_; }
  size_t buckets_started() const { return started_count_; }  // in the current step

 private:
  void prepare(ParamArena& P);
  void start(size_t b);

  Communicator& comm_;
  size_t bucket_floats_;
  ParamArena* P_ = nullptr;
  std::vector<Bucket> buckets_;
  std::vector<size_t> reported_;  // per bucket, floats reported ready in this step
  std::vector<char> started_;
  size_t started_count_ = 0;
  size_t next_ = 0;  // buckets [0, next_) are not started yet; the next to start is next_ - 1
  bool begun_ = false, stage_ = false;
  int64_t local_tokens_ = 0, global_tokens_ = 0;
  float factor_ = 1.f;       // n_r / N
  std::vector<float> host_;  // host copy of device gradients for a host communicator
};

// FNV-1a over bytes, seeded: for config and parameter fingerprints.
uint64_t fnv1a(const void* data, size_t bytes, uint64_t seed = 0xcbf29ce484222325ull);
// The parameter values' fingerprint (downloaded from the device when there).
uint64_t param_checksum(const ParamArena& P);
// Throws the same attnlab::Error on every rank unless every rank passed the same hash; `what`
// names the thing compared ("the model config", "the parameters").
void require_same_on_all_ranks(Communicator& comm, uint64_t hash, const std::string& what);
// Rank root's parameter values to every rank (the others' are overwritten).
void broadcast_params(Communicator& comm, ParamArena& P, int root = 0);

}  // namespace attnlab
