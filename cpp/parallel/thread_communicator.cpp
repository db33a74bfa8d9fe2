// Thread ranks' collectives over shared memory (see thread_communicator.hpp).
#include "parallel/thread_communicator.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "attnlab/error.hpp"
#include "kernels/threads.hpp"
#include "train/grad_sync.hpp"

namespace attnlab {

bool thread_ranks_supported() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  return false;
#else
  return true;
#endif
}

class ThreadCommunicator : public Communicator {
 public:
  ThreadCommunicator(ThreadWorld& w, int rank) : w_(w), rank_(rank) {}
  const char* name() const override { return "threads"; }
  int rank() const override { return rank_; }
  int size() const override { return w_.size_; }

  void allreduce_sum(float* p, size_t n) override {
    iallreduce_sum(p, n);
    wait_all();
  }

  void iallreduce_sum(float* p, size_t n) override {
    if (posted_ >= ThreadWorld::kMaxSlots)
      throw Error("thread ranks: more than " + std::to_string(ThreadWorld::kMaxSlots) +
                  " reductions started before one wait_all()");
    ThreadWorld::Slot& s = *w_.slots_[posted_++];
    s.ptr[size_t(rank_)] = p;
    s.n[size_t(rank_)] = n;
    s.posted.fetch_add(1, std::memory_order_acq_rel);
  }

  void progress() override {
    const int64_t ready = (epoch_ + 1) * int64_t(w_.size_);
    while (done_ < posted_ && w_.slots_[done_]->posted.load(std::memory_order_acquire) >= ready)
      w_.reduce_slice(done_++, rank_);
  }

  void wait_all() override {
    w_.barrier();  // every rank has posted every reduction of this round
    while (done_ < posted_) w_.reduce_slice(done_++, rank_);
    w_.barrier();  // every slice is written
    posted_ = done_ = 0;
    ++epoch_;
  }

  void broadcast(void* p, size_t bytes, int root) override {
    if (root < 0 || root >= w_.size_)
      throw Error("broadcast: root rank " + std::to_string(root) + " of " +
                  std::to_string(w_.size_));
    w_.bslot_[size_t(rank_)] = p;
    w_.barrier();
    if (rank_ != root && bytes) std::memcpy(p, w_.bslot_[size_t(root)], bytes);
    w_.barrier();
  }

  void barrier() override { w_.barrier(); }

  double allreduce_double(double x, ReduceOp op) override {
    return allreduce_scalar(w_.dslot_, x, op);
  }

  int64_t allreduce_int64(int64_t x, ReduceOp op) override {
    return allreduce_scalar(w_.islot_, x, op);
  }

 private:
  // x into this rank's slot; every rank then combines all slots in rank order (the same result
  // on every rank), and the second barrier keeps the slots until all have read them.
  template <class T>
  T allreduce_scalar(std::vector<T>& slot, T x, ReduceOp op) {
    slot[size_t(rank_)] = x;
    w_.barrier();
    T r = slot[0];
    for (int q = 1; q < w_.size_; ++q) r = combine(r, slot[size_t(q)], op);
    w_.barrier();
    return r;
  }

  template <class T>
  static T combine(T a, T b, ReduceOp op) {
    switch (op) {
      case ReduceOp::Min:
        return std::min(a, b);
      case ReduceOp::Max:
        return std::max(a, b);
      default:
        return a + b;
    }
  }

  ThreadWorld& w_;
  int rank_;
  size_t posted_ = 0, done_ = 0;  // this round's reductions posted and reduced by this rank
  int64_t epoch_ = 0;             // wait_all() rounds completed
};

ThreadWorld::ThreadWorld(int size) : size_(size) {
  if (size < 1)
    throw Error("a world of threads needs at least one rank, got " + std::to_string(size));
  if (size > 1 && !thread_ranks_supported())
    throw Error("thread ranks: this build has no threads (single-threaded WebAssembly)");
  slots_.reserve(kMaxSlots);
  for (size_t k = 0; k < kMaxSlots; ++k) {
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->ptr.assign(size_t(size), nullptr);
    slots_.back()->n.assign(size_t(size), 0);
  }
  dslot_.assign(size_t(size), 0.0);
  islot_.assign(size_t(size), 0);
  bslot_.assign(size_t(size), nullptr);
  for (int r = 0; r < size; ++r) comms_.push_back(std::make_unique<ThreadCommunicator>(*this, r));
}

ThreadWorld::~ThreadWorld() = default;

Communicator& ThreadWorld::comm(int rank) {
  if (rank < 0 || rank >= size_)
    throw Error("thread rank " + std::to_string(rank) + " of " + std::to_string(size_));
  return *comms_[size_t(rank)];
}

void ThreadWorld::barrier() {
  if (size_ == 1) return;
  if (aborted_) throw Error("thread ranks: another rank failed");
  // the round cannot end before this rank arrives, so the number read here is this round's
  const uint64_t round = round_.load();
  if (arrived_.fetch_add(1) + 1 == size_) {
    arrived_.store(0);  // before the next round can start: its ranks wait for round_ to move
    {
      std::lock_guard<std::mutex> lk(mu_);  // a rank between its check and its sleep sees it
      round_.fetch_add(1);
    }
    cv_.notify_all();
    return;
  }
  struct Wait {
    const ThreadWorld* w;
    uint64_t round;
  } wait{this, round};
  const auto over = [](const void* p) {
    const Wait& x = *static_cast<const Wait*>(p);
    return x.w->round_.load() != x.round || x.w->aborted_.load();
  };
  if (!threads::spin_wait(over, &wait, kSpinUs)) {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return over(&wait); });
  }
  if (round_.load() == round) throw Error("thread ranks: another rank failed");
}

void ThreadWorld::abort() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    aborted_ = true;
  }
  cv_.notify_all();
}

void ThreadWorld::reduce_slice(size_t k, int rank) {
  const Slot& s = *slots_[k];
  const size_t n = s.n[0];
  for (int q = 1; q < size_; ++q)
    if (s.n[size_t(q)] != n)
      throw Error("thread ranks: reduction " + std::to_string(k) + " has " + std::to_string(n) +
                  " floats on rank 0 and " + std::to_string(s.n[size_t(q)]) + " on rank " +
                  std::to_string(q));
  long first = 0, last = 0;
  rank_rows(long(n), rank, size_, &first, &last);
  // in blocks that stay in the cache: the sum in rank order, then written to every replica
  float* const* p = s.ptr.data();
  constexpr long kBlock = 1024;
  float acc[kBlock];
  for (long b = first; b < last; b += kBlock) {
    const long m = std::min(kBlock, last - b);
    std::memcpy(acc, p[0] + b, size_t(m) * sizeof(float));
    for (int q = 1; q < size_; ++q) {
      const float* x = p[q] + b;
      for (long i = 0; i < m; ++i) acc[i] += x[i];
    }
    for (int q = 0; q < size_; ++q) std::memcpy(p[q] + b, acc, size_t(m) * sizeof(float));
  }
}

}  // namespace attnlab
