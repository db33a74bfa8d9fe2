// The kernel thread pool (see threads.hpp) and the thread-count setting of kernels.hpp.
// Workers sleep on a condition variable between calls; a call publishes one job, each worker
// runs its own chunk, and the caller runs chunk 0 and waits for the rest.
#include "core/threads.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

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

class Pool {
 public:
  ~Pool() { resize(0); }

 private:
  // Keeps `n` workers (chunks 1..n) alive.
  void resize(int n) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (static_cast<int>(workers_.size()) == n) return;
      stop_ = true;
      ++generation_;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    stop_ = false;
    const unsigned long start = generation_;  // workers wait for the next job after this one
    for (int i = 0; i < n; ++i) workers_.emplace_back([this, i, start] { loop(i + 1, start); });
  }

 public:
  // Runs chunks 1.. on `workers` pool threads (started or stopped to that count) and chunk 0 here.
  void run(long n, int chunks, int workers, const std::function<void(long, long, int)>& fn) {
    std::lock_guard<std::mutex> call(call_mu_);  // one parallel region at a time
    resize(workers);
    {
      std::lock_guard<std::mutex> lk(mu_);
      fn_ = &fn;
      n_ = n;
      chunks_ = chunks;
      pending_ = chunks - 1;
      ++generation_;
    }
    cv_.notify_all();
    run_chunk(0);
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [this] { return pending_ == 0; });
    fn_ = nullptr;
  }

 private:
  void run_chunk(int c) {
    const long b = n_ * c / chunks_, e = n_ * (c + 1) / chunks_;
    t_inside = true;
    if (b < e) (*fn_)(b, e, c);
    t_inside = false;
  }

  void loop(int id, unsigned long seen) {
    for (;;) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return generation_ != seen; });
      seen = generation_;
      if (stop_) return;
      if (id >= chunks_) continue;
      lk.unlock();
      run_chunk(id);
      lk.lock();
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }

  std::mutex call_mu_, mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  const std::function<void(long, long, int)>* fn_ = nullptr;
  long n_ = 0;
  int chunks_ = 1, pending_ = 0;
  unsigned long generation_ = 0;
  bool stop_ = false;
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
