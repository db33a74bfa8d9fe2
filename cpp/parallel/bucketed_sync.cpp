// Bucketed gradient all-reduce with global-token normalisation, and the launch checks (see
// bucketed_sync.hpp).
#include "parallel/bucketed_sync.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "attnlab/error.hpp"
#include "layers/arena.hpp"

namespace attnlab {

namespace {

bool on_device(const ParamArena& P) { return std::strcmp(P.kernels().name, "cpu") != 0; }

// A gradient/value block that lives where the communicator can't reach it.
void check_reachable(Communicator& comm, const ParamArena& P) {
  if (comm.device_memory() && !on_device(P))
    throw Error(std::string("the ") + comm.name() +
                " communicator reduces device memory, but the parameters are on the CPU");
}

std::string hex(uint64_t h) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

}  // namespace

std::vector<Bucket> make_buckets(size_t total, size_t bucket_floats) {
  if (bucket_floats == 0) throw Error("gradient buckets must hold at least one float");
  std::vector<Bucket> out;
  for (size_t o = 0; o < total; o += bucket_floats)
    out.push_back({o, std::min(bucket_floats, total - o)});
  return out;
}

BucketedGradientSync::BucketedGradientSync(Communicator& comm, size_t bucket_bytes)
    : comm_(comm), bucket_floats_(bucket_bytes / sizeof(float)) {
  if (bucket_floats_ == 0)
    throw Error("gradient bucket size " + std::to_string(bucket_bytes) + " B holds no float");
}

void BucketedGradientSync::prepare(ParamArena& P) {
  check_reachable(comm_, P);
  const size_t total = size_t(P.total());
  if (P_ != &P || buckets_.empty() || buckets_.back().offset + buckets_.back().n != total) {
    P_ = &P;
    buckets_ = make_buckets(total, bucket_floats_);
    stage_ = on_device(P) && !comm_.device_memory();
    host_.assign(stage_ ? total : 0, 0.f);
  }
  reported_.assign(buckets_.size(), 0);
  started_.assign(buckets_.size(), 0);
  started_count_ = 0;
  next_ = buckets_.size();
}

void BucketedGradientSync::begin(ParamArena& P, int64_t local_tokens) {
  if (local_tokens < 0)
    throw Error("gradient sync: negative token count " + std::to_string(local_tokens));
  prepare(P);
  local_tokens_ = local_tokens;
  global_tokens_ = comm_.allreduce_int64(local_tokens, ReduceOp::Sum);
  factor_ = global_tokens_ > 0 ? float(double(local_tokens) / double(global_tokens_)) : 0.f;
  begun_ = true;
}

void BucketedGradientSync::start(size_t b) {
  if (started_[b]) return;
  const KernelTable& kt = P_->kernels();
  const Bucket& k = buckets_[b];
  float* g = P_->grads() + k.offset;
  if (factor_ != 1.f) kt.scale(g, factor_, g, long(k.n));
  if (stage_) {
    kt.download(host_.data() + k.offset, g, k.n * sizeof(float));
    comm_.iallreduce_sum(host_.data() + k.offset, k.n);
  } else {
    comm_.iallreduce_sum(g, k.n);
  }
  started_[b] = 1;
  ++started_count_;
}

void BucketedGradientSync::bucket_ready(size_t offset, size_t n) {
  if (!begun_) throw Error("gradient sync: bucket_ready() before begin()");
  const size_t total = size_t(P_->total());
  if (offset > total || n > total - offset)
    throw Error("gradient sync: floats [" + std::to_string(offset) + ", " +
                std::to_string(offset + n) + ") outside the " + std::to_string(total) +
                "-float gradient block");
  const size_t end = offset + n;
  for (size_t b = offset / bucket_floats_; b < buckets_.size() && buckets_[b].offset < end; ++b) {
    const Bucket& k = buckets_[b];
    reported_[b] += std::min(end, k.offset + k.n) - std::max(offset, k.offset);
    if (reported_[b] > k.n)
      throw Error("gradient sync: bucket " + std::to_string(b) + " reported ready twice");
  }
  // in the one order every rank keeps: the last bucket first, each only after those above it
  while (next_ > 0 && reported_[next_ - 1] == buckets_[next_ - 1].n) start(--next_);
  comm_.progress();
}

double BucketedGradientSync::reduce(ParamArena& P, double local_loss, int64_t local_tokens) {
  if (comm_.size() == 1 && !begun_) {  // a world of one: exactly the single-process step
    if (local_tokens < 0)
      throw Error("gradient sync: negative token count " + std::to_string(local_tokens));
    global_tokens_ = local_tokens;
    return local_loss;
  }
  if (begun_) {
    if (&P != P_) throw Error("gradient sync: reduce() on other parameters than begin()'s");
    if (local_tokens != local_tokens_)
      throw Error("gradient sync: reduce() with " + std::to_string(local_tokens) +
                  " tokens after begin() with " + std::to_string(local_tokens_));
  } else {
    BucketedGradientSync::begin(P, local_tokens);  // not an override's
  }
  begun_ = false;
  while (next_ > 0) start(--next_);  // the same order as bucket_ready's
  comm_.wait_all();
  if (stage_ && !host_.empty())
    P.kernels().upload(P.grads(), host_.data(), host_.size() * sizeof(float));
  const double weighted = local_tokens > 0 ? local_loss * double(local_tokens) : 0.0;
  const double loss_sum = comm_.allreduce_double(weighted, ReduceOp::Sum);
  return global_tokens_ > 0 ? loss_sum / double(global_tokens_) : 0.0;
}

uint64_t fnv1a(const void* data, size_t bytes, uint64_t seed) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

uint64_t param_checksum(const ParamArena& P) {
  const size_t bytes = size_t(P.total()) * sizeof(float);
  if (!on_device(P)) return fnv1a(P.values(), bytes);
  std::vector<float> host(size_t(P.total()));
  if (bytes) P.kernels().download(host.data(), P.values(), bytes);
  return fnv1a(host.data(), bytes);
}

void require_same_on_all_ranks(Communicator& comm, uint64_t hash, const std::string& what) {
  int64_t mine;
  std::memcpy(&mine, &hash, sizeof mine);
  const int64_t lo = comm.allreduce_int64(mine, ReduceOp::Min);
  const int64_t hi = comm.allreduce_int64(mine, ReduceOp::Max);
  if (lo == hi) return;
  uint64_t ulo, uhi;
  std::memcpy(&ulo, &lo, sizeof lo);
  std::memcpy(&uhi, &hi, sizeof hi);
  throw Error("the ranks disagree on " + what + ": rank " + std::to_string(comm.rank()) + " of " +
              std::to_string(comm.size()) + " has fingerprint " + hex(hash) + ", others have " +
              hex(mine == lo ? uhi : ulo) + "; launch every rank with the same flags and files");
}

void broadcast_params(Communicator& comm, ParamArena& P, int root) {
  check_reachable(comm, P);
  const size_t bytes = size_t(P.total()) * sizeof(float);
  if (on_device(P) && !comm.device_memory()) {
    std::vector<float> host(size_t(P.total()));
    if (bytes) P.kernels().download(host.data(), P.values(), bytes);
    comm.broadcast(host.data(), bytes, root);
    if (bytes) P.kernels().upload(P.values(), host.data(), bytes);
    return;
  }
  comm.broadcast(P.values(), bytes, root);
}

}  // namespace attnlab
