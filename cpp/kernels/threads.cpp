// The kernel thread pool (see threads.hpp) and the thread-count setting of kernels.hpp.
// A call publishes one job (a new generation), each worker runs its own chunk, and the caller
// runs chunk 0 and waits for the rest. Between jobs a worker first spins on the generation for
// a short while (kSpin) and only then sleeps on a condition variable; the caller likewise spins
// before it sleeps on the completion count. A Transformer step is hundreds of sub-millisecond
// products: a condition-variable wake-up per product (tens of microseconds, more on a VM) made
// two threads slower than one (config S: 12.6 ms at one thread, 14.6 ms at two).
#include "kernels/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "kernels/kernels.hpp"

namespace attnlab {

namespace {

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kHasThreads = true;
#else
constexpr bool kHasThreads = false;
#endif

int hardware_threads() {
  if (!kHasThreads) return 1;
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

thread_local bool t_inside = false;  // nested regions run on the calling thread

constexpr auto kSpin = std::chrono::microseconds(300);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spins until done() or kSpin has passed; true when done() became true.
template <class Done>
bool spin_until(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= until) return done();
  }
}

class Pool {
 public:
  ~Pool() { resize(0); }

 private:
  // Keeps `n` workers (chunks 1..n) alive.
  void resize(int n) {
    if (static_cast<int>(workers_.size()) == n) return;
    stop_.store(true, std::memory_order_relaxed);
    publish(0);
    for (auto& w : workers_) w.join();
    workers_.clear();
    stop_.store(false, std::memory_order_relaxed);
    const uint64_t start = job_.load();  // workers wait for the next job after this one
    for (int i = 0; i < n; ++i) workers_.emplace_back([this, i, start] { loop(i + 1, start); });
  }

  // A new generation whose first `chunks` chunks have work (job_ = generation << 16 | chunks: a
  // worker reads both in one load, so one that sits out a job never reads the job's fields,
  // which the next job may already be writing).
  void publish(int chunks) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      const uint64_t gen = (job_.load(std::memory_order_relaxed) >> 16) + 1;
      job_.store(gen << 16 | uint64_t(chunks), std::memory_order_release);
    }
    cv_.notify_all();
  }

 public:
  // Runs chunks 1.. on `workers` pool threads (started or stopped to that count) and chunk 0 here.
  void run(long n, int chunks, int workers, const std::function<void(long, long, int)>& fn) {
    std::lock_guard<std::mutex> call(call_mu_);  // one parallel region at a time
    resize(workers);
    fn_ = &fn;
    n_ = n;
    chunks_ = chunks;
    pending_.store(chunks - 1, std::memory_order_relaxed);
    publish(chunks);  // its release store publishes the fields above
    run_chunk(0);
    if (!spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lk(mu_);
      done_cv_.wait(lk, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    fn_ = nullptr;
  }

 private:
  void run_chunk(int c) {
    const long b = n_ * c / chunks_, e = n_ * (c + 1) / chunks_;
    t_inside = true;
    if (b < e) (*fn_)(b, e, c);
    t_inside = false;
  }

  void loop(int id, uint64_t seen) {
    for (;;) {
      auto fresh = [&] { return job_.load(std::memory_order_acquire) != seen; };
      if (!spin_until(fresh)) {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, fresh);
      }
      seen = job_.load(std::memory_order_acquire);
      if (stop_.load(std::memory_order_relaxed)) return;
      if (id >= int(seen & 0xffff)) continue;  // no chunk for this worker in this job
      run_chunk(id);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lk(mu_);  // the caller either sees 0 or is waiting
        done_cv_.notify_one();
      }
    }
  }

  std::mutex call_mu_, mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  const std::function<void(long, long, int)>* fn_ = nullptr;
  long n_ = 0;
  int chunks_ = 1;
  std::atomic<int> pending_{0};
  std::atomic<uint64_t> job_{0};
  std::atomic<bool> stop_{false};
};

int g_threads = std::min(hardware_threads(), 8);

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void set_num_threads(int n) { g_threads = n <= 0 ? hardware_threads() : (kHasThreads ? n : 1); }
int num_threads() { return g_threads; }

namespace threads {

int chunks_for(double work, double grain) {
  const int t = num_threads();
  if (t <= 1 || work < 2 * grain) return 1;
  return static_cast<int>(std::min<double>(t, work / grain));
}

void parallel_for(long n, int chunks, const std::function<void(long, long, int)>& fn) {
  chunks = static_cast<int>(std::min<long>(std::min(chunks, num_threads()), n));
  if (chunks <= 1 || !kHasThreads || t_inside) {
    if (n > 0) fn(0, n, 0);
    return;
  }
  pool().run(n, chunks, num_threads() - 1, fn);
}

}  // namespace threads
}  // namespace attnlab
