// Data-parallel ranks as threads of one process: a ThreadWorld of T ranks hands out T
// ThreadCommunicators (one per thread) that implement the Communicator interface over shared
// memory, so the bucketed gradient sync (bucketed_sync.hpp) runs over threads unchanged.
// Sums are in place and deterministic: iallreduce_sum posts the rank's buffer; once every rank has
// posted the k-th buffer of the step, each rank sums its own slice of it (rank_rows of the
// buffer) across the replicas in rank order 0..T-1 and writes the sum into every replica's buffer,
// so no float is copied besides the reduction's writes and the bits never depend on which thread
// ran first. A rank reduces the slices that are ready whenever it calls progress() (the sync
// calls it after each report of backward: overlap) and the rest in wait_all(), which returns once
// every rank's slices are written. Scalars and broadcasts go through per-rank slots between two
// barriers. A barrier's waiters spin for up to 200 µs before they sleep (most waits between ranks
// of one step are shorter than a sleeping thread takes to wake). A rank that fails calls
// ThreadWorld::abort(): every rank waiting in a barrier, now or later, throws an attnlab::Error
// instead of waiting for it.
// Single-threaded WebAssembly has no second thread: a world there holds one rank only.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "parallel/communicator.hpp"

namespace attnlab {

// Whether this build can run thread ranks (false in single-threaded WebAssembly).
bool thread_ranks_supported();

class ThreadWorld {
 public:
  explicit ThreadWorld(int size);
  ~ThreadWorld();
  ThreadWorld(const ThreadWorld&) = delete;
  ThreadWorld& operator=(const ThreadWorld&) = delete;

  int size() const { return size_; }
  Communicator& comm(int rank);
  // Wakes every rank waiting in a collective; they, and any rank that enters one later, throw.
  void abort();
  bool aborted() const { return aborted_.load(); }

 private:
  friend class ThreadCommunicator;
  // Rank-order slots of the k-th float reduction of every rank.
  struct Slot {
    std::atomic<int64_t> posted{0};  // posts over all steps: (epoch + 1) * size when ready
    std::vector<float*> ptr;
    std::vector<size_t> n;
  };
  static constexpr size_t kMaxSlots = 8192;  // float reductions between two wait_all()s
  static constexpr int kSpinUs = 200;        // a barrier's spin before it sleeps

  void barrier();
  void reduce_slice(size_t k, int rank);

  int size_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::unique_ptr<Communicator>> comms_;
  std::vector<double> dslot_;
  std::vector<int64_t> islot_;
  std::vector<void*> bslot_;
  // the barrier: ranks arrived in this round, and the round's number (a rank spins on it a
  // moment, then sleeps on cv_)
  std::atomic<int> arrived_{0};
  std::atomic<uint64_t> round_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> aborted_{false};
};

}  // namespace attnlab
