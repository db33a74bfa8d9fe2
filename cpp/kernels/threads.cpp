// The kernel thread pool (see threads.hpp) and the thread-count setting of kernels.hpp.
// A call publishes one job: a 64-bit word holding its generation, how many threads take part,
// how many pieces it has and the next unclaimed piece. The caller and the workers claim pieces
// by compare-and-swap on that word (a worker that read an old generation claims nothing), the
// caller first, so a worker that is descheduled, or wakes late, only loses its share to whoever
// runs. The caller then waits for the pieces still running elsewhere: a spin of about two pieces'
// time, then a futex sleep, which frees its core for the very thread it waits for (no core is
// assumed free). Between jobs a worker spins with a bounded, adaptive budget (halved each time
// no job came, doubled when one did; the core is yielded every kYield), then sleeps on a futex
// (syscall natively, emscripten_futex_wait under wasm pthreads) that the caller wakes only when
// someone sleeps. The caller also keeps score (account, check_core): when threads cost more
// than they saved, or the caller itself did not have a core, it runs the same pieces alone for
// a while, so the result bits never depend on the mode. With static per-thread chunks a busy
// neighbour made two threads slower than one (256x128x128 A·Bᵀ: 20 GFLOP/s at 2T, 188 at 1T).
// Each thread's regions go to the process's shared pool, or to a pool of its own while an
// OwnPool::Use of it lives (the thread of a rank under ranks x kernel threads), so that several
// such threads split their kernel calls at once.
// Long because: one pool class holds the job word, the workers' spin and futex waits (native
// and wasm), the caller's balance bookkeeping and the start of its workers; split, they would
// share every field.
#include "kernels/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#if defined(__EMSCRIPTEN_PTHREADS__)
#include <emscripten/threading.h>
#include <math.h>
#elif defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#else
#include <condition_variable>
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

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;
using Fn = std::function<void(long, long, int)>;

constexpr int kPiecesPerThread = 4;
constexpr int kMaxPieces = 4095;                     // the job word's 12-bit fields
constexpr int kMaxThreads = 255;                     // its 8-bit one
constexpr microseconds kSpinMin(10), kSpinMax(200);  // a worker's spin between jobs
constexpr microseconds kWaitMin(5), kWaitMax(100);   // the caller's spin for running pieces
constexpr microseconds kYield(20);                   // a spinning thread yields its core this often
// The balance of time that threads saved (Pool::account): its start and cap, and how long the
// caller then runs alone (doubling from the minimum after each failed return to threads).
constexpr microseconds kCreditStart(2000), kCreditMax(20000);
constexpr microseconds kBackoffMin(5000), kBackoffMax(1000000);
// Natively the caller also checks, every kWindow, that it had a core to itself (its CPU time
// at least kOwnCore of the wall time) while threads were in use; on a machine with more runnable
// threads than cores a second thread only adds waits, and the caller runs alone a while.
constexpr microseconds kWindow(50000);
constexpr double kOwnCore = 0.8;

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "futex word");

// futex_wait blocks while a == v (it may return early); futex_wake wakes every waiter on a.
#if defined(__EMSCRIPTEN_PTHREADS__)
void futex_wait(std::atomic<uint32_t>& a, uint32_t v) {
  emscripten_futex_wait(reinterpret_cast<volatile void*>(&a), v, INFINITY);
}
void futex_wake(std::atomic<uint32_t>& a) {
  emscripten_futex_wake(reinterpret_cast<volatile void*>(&a), INT_MAX);
}
#elif defined(__linux__) && !defined(__EMSCRIPTEN__)
void futex_wait(std::atomic<uint32_t>& a, uint32_t v) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&a), FUTEX_WAIT_PRIVATE, v, nullptr, nullptr, 0);
}
void futex_wake(std::atomic<uint32_t>& a) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&a), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr,
          0);
}
#else  // elsewhere (and never called in single-thread wasm): one condition variable for all words
std::mutex g_futex_mu;
std::condition_variable g_futex_cv;
void futex_wait(std::atomic<uint32_t>& a, uint32_t v) {
  std::unique_lock<std::mutex> lk(g_futex_mu);
  g_futex_cv.wait(lk, [&] { return a.load() != v; });
}
void futex_wake(std::atomic<uint32_t>&) {
  { std::lock_guard<std::mutex> lk(g_futex_mu); }
  g_futex_cv.notify_all();
}
#endif

// The calling thread's CPU time, where the platform has a per-thread clock (zero elsewhere).
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
constexpr bool kThreadClock = true;
Clock::duration thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}
#else
constexpr bool kThreadClock = false;
Clock::duration thread_cpu() { return Clock::duration::zero(); }
#endif

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spins until ready() or `budget` has passed, yielding the core every kYield so that a thread
// that shares it (a sibling waiting to run, a neighbour) is not shut out; true when ready().
template <class Ready>
bool spin_until(Ready ready, Clock::duration budget) {
  const auto start = Clock::now();
  auto yield_at = start + kYield;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    const auto now = Clock::now();
    if (now - start >= budget) return ready();
    if (now >= yield_at) {
      std::this_thread::yield();
      yield_at = now + kYield;
    }
  }
}

std::atomic<void (*)()> g_worker_hook{nullptr};

}  // namespace

namespace threads {

class Pool {
 public:
  ~Pool() { resize(0); }

  // Runs `pieces` pieces of fn over [0, n) on this thread and up to threads - 1 of `workers`
  // pool threads (started or stopped to that count); returns when every piece is done.
  void run(long n, int pieces, int threads, int workers, const Fn& fn) {
    std::lock_guard<std::mutex> call(call_mu_);  // one parallel region at a time
    if (kThreadClock) check_core();
    if (Clock::now() < serial_until_) {  // threads have lately cost more than they saved: run alone
      t_inside = true;
      for (int p = 0; p < pieces; ++p)
        if (n * p / pieces < n * (p + 1) / pieces) fn(n * p / pieces, n * (p + 1) / pieces, p);
      t_inside = false;
      return;
    }
    resize(workers);
    window_threads_ = true;
    const auto t0 = Clock::now();
    fn_ = &fn;
    n_ = n;
    pieces_ = pieces;
    done_.store(0, std::memory_order_relaxed);
    const uint32_t g = publish(threads, pieces);  // its release store publishes the fields above
    int mine = 0;
    for (int p; (p = claim(g)) >= 0; ++mine) run_piece(p);
    const auto per_piece = mine ? (Clock::now() - t0) / mine : Clock::duration(kWaitMax);
    const auto budget = std::clamp<Clock::duration>(2 * per_piece, kWaitMin, kWaitMax);
    auto finished = [&] { return done_.load(std::memory_order_acquire) == uint32_t(pieces); };
    if (!spin_until(finished, budget)) {
      const auto slept_from = Clock::now();
      for (;;) {
        caller_waiting_.store(true);  // seq_cst, paired with run_piece's load after its add
        const uint32_t d = done_.load();
        if (d == uint32_t(pieces)) break;
        futex_wait(done_, d);
      }
      caller_waiting_.store(false, std::memory_order_relaxed);
      window_slept_ += Clock::now() - slept_from;  // not a core lost: it waited for its workers
    }
    fn_ = nullptr;
    if (mine) account(per_piece * pieces, Clock::now() - t0);
  }

  void reset_balance() {
    std::lock_guard<std::mutex> call(call_mu_);
    credit_ = kCreditStart;
    backoff_ = kBackoffMin;
    serial_until_ = Clock::time_point{};
    window_start_ = Clock::now();
    window_cpu_ = thread_cpu();
    window_slept_ = Clock::duration::zero();
    window_threads_ = false;
    window_thread_ = std::this_thread::get_id();
  }

 private:
  // Books one region that took `took` where the caller alone would have taken about `alone`
  // (its own pieces' time, times the piece count). When the balance of recent regions turns
  // negative (typically one wait for a worker that the OS descheduled mid-piece, which on a
  // saturated machine lasts a whole round of its run queue), the caller runs alone for a while,
  // twice as long after each consecutive failure; a balance at its cap (natively: at the end of
  // a window in which the caller also had its core) resets that.
  void account(Clock::duration alone, Clock::duration took) {
    credit_ = std::min<Clock::duration>(kCreditMax, credit_ + alone - took);
    if (!kThreadClock && credit_ >= kCreditMax) backoff_ = kBackoffMin;
    if (credit_ >= Clock::duration::zero()) return;
    run_alone();
  }

  void run_alone() {
    serial_until_ = Clock::now() + backoff_;
    backoff_ = std::min<Clock::duration>(kBackoffMax, 2 * backoff_);
    credit_ = kCreditStart;
  }

  // Closes a kWindow that used threads if the caller had less than kOwnCore of a core in it.
  void check_core() {
    const auto now = Clock::now();
    const bool same = window_thread_ == std::this_thread::get_id();
    if (same && now - window_start_ < kWindow) return;
    const auto cpu = thread_cpu();
    // the caller's CPU time over the window's wall time less its sleeps on its own workers (a
    // quiet machine: about 1; a neighbour on the caller's core: lower)
    const auto awake = std::max<Clock::duration>(now - window_start_ - window_slept_, kYield);
    const double share = double((cpu - window_cpu_).count()) / double(awake.count());
    if (same && window_threads_) {
      if (share < kOwnCore)
        run_alone();
      else if (credit_ >= kCreditMax)
        backoff_ = kBackoffMin;
    }
    window_thread_ = std::this_thread::get_id();
    window_start_ = now;
    window_cpu_ = cpu;
    window_slept_ = Clock::duration::zero();
    window_threads_ = false;
  }

  // Keeps `n` workers (ids 1..n) alive, or as many as could start: under WebAssembly the
  // threads come from the loader's fixed pool of Workers (linked with PTHREAD_POOL_SIZE_STRICT=2,
  // so a used-up pool fails the start instead of waiting for a Worker that the blocked main
  // thread would never let load). A job's pieces do not depend on who runs them: with fewer
  // workers the caller claims the rest, and the result is bit for bit the same.
  void resize(int n) {
    if (wanted_ == n) return;
    stop_.store(true, std::memory_order_relaxed);
    publish(0, 0);
    for (auto& w : workers_) w.join();
    workers_.clear();
    stop_.store(false, std::memory_order_relaxed);
    wanted_ = n;
    const uint32_t seen = gen_.load();  // workers wait for the next job after this one
    try {
      for (int i = 0; i < n; ++i) workers_.emplace_back([this, i, seen] { loop(i + 1, seen); });
    } catch (const std::system_error&) {
      if (!warned_short_) {
        std::fprintf(stderr,
                     "attnlab: %d of %d kernel threads could start (no thread left to "
                     "start); the caller runs the others' share\n",
                     int(workers_.size()), n);
        warned_short_ = true;
      }
    }
  }

 public:
  // Stops the workers beyond `n` now (the next parallel region starts what it needs again).
  void trim(int n) {
    std::lock_guard<std::mutex> call(call_mu_);
    if (wanted_ > n) resize(n);
  }

 private:
  // A new generation: job_ = gen << 32 | threads << 24 | pieces << 12 | next piece (0). A worker
  // reads a job's generation, thread count and pieces in one load, so one that was late never
  // reads the fields of a job that the next one may already be writing.
  uint32_t publish(int threads, int pieces) {
    const uint32_t g = gen_.load(std::memory_order_relaxed) + 1;
    job_.store(uint64_t(g) << 32 | uint64_t(threads) << 24 | uint64_t(pieces) << 12,
               std::memory_order_release);
    gen_.store(g);                               // seq_cst, paired with the sleepers' count
    if (sleepers_.load() > 0) futex_wake(gen_);  // no system call while everyone spins
    return g;
  }

  // The next piece of job `g` for this thread, or -1 when none is left or the job is over.
  int claim(uint32_t g) {
    uint64_t w = job_.load(std::memory_order_acquire);
    for (;;) {
      if (uint32_t(w >> 32) != g) return -1;
      const int next = int(w & 0xfff), pieces = int((w >> 12) & 0xfff);
      if (next >= pieces) return -1;
      if (job_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire))
        return next;
    }
  }

  // Runs claimed piece p (the job's fields stay put until every piece is done).
  void run_piece(int p) {
    const int pieces = pieces_;
    const long b = n_ * p / pieces, e = n_ * (p + 1) / pieces;
    t_inside = true;
    if (b < e) (*fn_)(b, e, p);
    t_inside = false;
    if (done_.fetch_add(1) + 1 == uint32_t(pieces) && caller_waiting_.load()) futex_wake(done_);
  }

  void loop(int id, uint32_t seen) {
    Clock::duration spin = kSpinMax;
    for (;;) {
      auto fresh = [&] { return gen_.load(std::memory_order_acquire) != seen; };
      if (spin_until(fresh, spin)) {
        spin = std::min<Clock::duration>(kSpinMax, 2 * spin);
      } else {
        spin = std::max<Clock::duration>(kSpinMin, spin / 2);
        sleepers_.fetch_add(1);  // seq_cst, paired with publish()'s load after its store
        while (gen_.load() == seen) futex_wait(gen_, seen);
        sleepers_.fetch_sub(1);
      }
      seen = gen_.load(std::memory_order_acquire);
      if (stop_.load(std::memory_order_relaxed)) return;
      const uint64_t w = job_.load(std::memory_order_acquire);
      if (id >= int((w >> 24) & 0xff)) continue;  // not one of this job's threads
      if (auto hook = g_worker_hook.load()) hook();
      for (int p; (p = claim(uint32_t(w >> 32))) >= 0;) run_piece(p);
    }
  }

  std::mutex call_mu_;
  std::vector<std::thread> workers_;
  int wanted_ = 0;  // the worker count asked of resize (workers_ may hold fewer)
  bool warned_short_ = false;
  const Fn* fn_ = nullptr;
  long n_ = 0;
  int pieces_ = 1;
  std::atomic<uint64_t> job_{0};
  std::atomic<uint32_t> gen_{0};   // futex word of the idle workers
  std::atomic<uint32_t> done_{0};  // pieces finished; futex word of the waiting caller
  std::atomic<int> sleepers_{0};
  std::atomic<bool> caller_waiting_{false};
  std::atomic<bool> stop_{false};
  Clock::duration credit_ = kCreditStart, backoff_ = kBackoffMin;  // account()'s state
  Clock::time_point serial_until_{}, window_start_{};  // check_core()'s window from here on
  Clock::duration window_cpu_{}, window_slept_{};
  bool window_threads_ = false;
  std::thread::id window_thread_;
};

}  // namespace threads

namespace {

int g_threads = std::min(hardware_threads(), 8);

threads::Pool& shared_pool() {
  static threads::Pool p;
  return p;
}

// The calling thread's own pool while a threads::OwnPool::Use lives on it, else null.
thread_local threads::Pool* t_own = nullptr;

// The pool of this thread's parallel regions: its own, or the process's shared one.
threads::Pool& pool() { return t_own ? *t_own : shared_pool(); }

}  // namespace

void set_num_threads(int n) { g_threads = n <= 0 ? hardware_threads() : (kHasThreads ? n : 1); }
int num_threads() { return g_threads; }

namespace threads {

int chunks_for(double work, double grain) {
  const int t = num_threads();
  if (t <= 1 || work < 2 * grain) return 1;
  return static_cast<int>(std::min<double>(t, work / grain));
}

int pieces_for(long n, int chunks) {
  if (chunks <= 1 || n <= 1) return 1;
  return static_cast<int>(std::min<long>(n, std::min(chunks * kPiecesPerThread, kMaxPieces)));
}

void set_worker_hook(void (*hook)()) { g_worker_hook.store(hook); }
void reset_balance() {
  if (kHasThreads) pool().reset_balance();
}

void release_workers() {
  if (kHasThreads) shared_pool().trim(0);
}

OwnPool::OwnPool() {
  if (kHasThreads) pool_ = std::make_unique<Pool>();
}

OwnPool::~OwnPool() = default;  // the pool's destructor stops and joins its workers

OwnPool::Use::Use(OwnPool& pool) : prev_(t_own) {
  if (pool.pool_) t_own = pool.pool_.get();
}

OwnPool::Use::~Use() { t_own = prev_; }

void parallel_for(long n, int chunks, const Fn& fn) {
  const int threads = std::min(num_threads(), kMaxThreads);
  chunks = static_cast<int>(std::min<long>(std::min(chunks, threads), n));
  if (chunks <= 1 || !kHasThreads || t_inside) {
    if (n > 0) fn(0, n, 0);
    return;
  }
  pool().run(n, pieces_for(n, chunks), chunks, threads - 1, fn);
}

bool spin_wait(bool (*ready)(const void*), const void* ctx, int budget_us) {
  if (!kHasThreads) return ready(ctx);
  return spin_until([&] { return ready(ctx); }, microseconds(budget_us));
}

}  // namespace threads
}  // namespace attnlab
