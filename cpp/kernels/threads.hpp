// A small persistent thread pool for the CPU kernels. parallel_for(n, chunks, fn) runs on up to
// `chunks` threads (the caller and chunks - 1 pool workers) and splits [0, n) into a fixed number
// of contiguous pieces (a few per thread) that whoever is running claims from a shared counter:
// a worker that the OS has descheduled, or one that wakes up late, leaves its share to the others,
// and the caller never waits while pieces remain. When threads keep costing more than they
// save (workers descheduled on a busy machine), the caller runs the same pieces alone a while.
// Piece boundaries depend only on n and `chunks`, never on which thread runs a piece, so a kernel
// that writes each output from one piece gives the same bits however the pieces were scheduled.
// Single-threaded WebAssembly (no __EMSCRIPTEN_PTHREADS__) runs everything on the caller.
// threads.cpp also defines set_num_threads()/num_threads() of kernels.hpp.
#pragma once
#include <functional>
#include <memory>

namespace attnlab::threads {

// fn(begin, end, piece) for each piece of [0, n), on up to min(chunks, num_threads()) threads.
// A piece index says nothing about the thread running it.
void parallel_for(long n, int chunks, const std::function<void(long, long, int)>& fn);

// How many threads a kernel should use for `work` units of work (1 below `grain` per thread).
int chunks_for(double work, double grain);

// How many pieces parallel_for splits n into for `chunks` threads (the same at every call).
int pieces_for(long n, int chunks);

// Test hook: a pool worker calls it each time it sees a new job, before it claims a piece
// (nullptr: none). A test holds a worker back in it to play a descheduled thread.
void set_worker_hook(void (*hook)());

// Forgets the balance of past regions (see threads.cpp), so that threads are in use at once
// even after regions that cost more than they saved (tests that stall workers on purpose).
void reset_balance();

// Stops the pool's workers now (the next parallel region starts what it needs again; otherwise
// they are kept from region to region). Under WebAssembly threads come from the loader's fixed
// pool of Workers, so code that starts threads of its own (ThreadRanks, whose kernels run on
// their rank's thread) hands these back first.
void release_workers();

// Spins until ready(ctx) or about `budget_us` microseconds have passed, yielding the core every
// 20 µs as the pool's workers do; true when ready(ctx). For waits that are usually short (a
// thread rank's next job, a barrier between ranks), before falling back to a blocking wait:
// waking a sleeping thread costs tens of microseconds, and on a step of a few milliseconds that
// is the ranks' imbalance.
bool spin_wait(bool (*ready)(const void*), const void* ctx, int budget_us);

class Pool;

// A kernel pool apart from the process's shared one (which runs one parallel region at a time),
// for the thread of each rank under ranks x kernel threads (parallel/thread_ranks.hpp), so that
// the ranks split their kernel calls at once. While an OwnPool::Use of it lives on a thread, that
// thread's regions run on it (its workers started at the first region that needs them). Make and
// destroy it on the thread that starts and joins the threads using it: its destructor joins its
// workers, and under WebAssembly a finished thread's Worker goes back to the loader's pool at
// once only when the thread that joins it is the main one (else when its event loop next runs,
// which a long call never lets it). In single-threaded WebAssembly it does nothing.
class OwnPool {
 public:
  OwnPool();
  ~OwnPool();
  OwnPool(const OwnPool&) = delete;
  OwnPool& operator=(const OwnPool&) = delete;

  // The calling thread's regions run on `pool` while this lives (the previous pool after).
  class Use {
   public:
    explicit Use(OwnPool& pool);
    ~Use();
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    Pool* prev_;
  };

 private:
  std::unique_ptr<Pool> pool_;
};

}  // namespace attnlab::threads
