// The kernels' thread pool (cpp/kernels/threads.*): every piece runs exactly once over fixed
// boundaries; a worker held back before it claims (a descheduled thread) leaves all the work to
// the caller instead of stalling it; a worker stalled inside a piece stalls only that piece; and
// kernels give the same bits whatever delays the workers meet. Delays come from the pool's
// worker hook; no assertion depends on timing (a held worker is released by an event, with a
// 20 s safety release that a test then reports as a failure).
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "kernel_check.hpp"
#include "kernels/kernels.hpp"
#include "kernels/threads.hpp"
#include "skip.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

constexpr auto kSafety = std::chrono::seconds(20);

// Waits until `flag` is set or kSafety has passed; true when it was set.
bool wait_for(const std::atomic<bool>& flag) {
  const auto until = std::chrono::steady_clock::now() + kSafety;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// One parallel_for's record: who ran each piece and over which range.
struct Record {
  std::mutex mu;
  std::vector<long> begin, end;
  std::vector<int> runs;
  std::vector<std::thread::id> by;
  explicit Record(int pieces) : begin(pieces, -1), end(pieces, -1), runs(pieces, 0), by(pieces) {}
  void add(long b, long e, int p) {
    std::lock_guard<std::mutex> lk(mu);
    begin[p] = b;
    end[p] = e;
    ++runs[p];
    by[p] = std::this_thread::get_id();
  }
};

std::atomic<bool> g_release{false};
std::atomic<int> g_held{0};
void hold_worker() {
  ++g_held;
  wait_for(g_release);
}

thread_local std::mt19937 t_rng(std::hash<std::thread::id>()(std::this_thread::get_id()));
void random_delay() { std::this_thread::sleep_for(std::chrono::microseconds(t_rng() % 300)); }

// Clears the hook when a test leaves, even on a failed REQUIRE.
struct HookGuard {
  explicit HookGuard(void (*h)()) {
    threads::reset_balance();
    threads::set_worker_hook(h);
  }
  ~HookGuard() {
    threads::set_worker_hook(nullptr);
    threads::reset_balance();
  }
};

// False in a build without threads (single-thread WebAssembly), where set_num_threads keeps 1.
bool pool_exists() {
  bool two = false;
  with_threads(2, [&] { two = num_threads() == 2; });
  return two;
}

}  // namespace

TEST_CASE("thread pool: every piece runs once over fixed boundaries", "[kernels][threads]") {
  for (int t : {1, 2, 3, 4})
    for (long n : {1L, 2L, 5L, 7L, 100L, 1001L}) {
      with_threads(t, [&] {
        threads::reset_balance();
        const int chunks = num_threads(),
                  pieces = threads::pieces_for(n, std::min<long>(chunks, n));
        Record rec(pieces);
        std::atomic<bool> in_range{true};  // no Catch2 macro on a worker thread
        threads::parallel_for(n, chunks, [&](long b, long e, int p) {
          if (p < 0 || p >= pieces)
            in_range = false;
          else
            rec.add(b, e, p);
        });
        INFO("threads " << t << ", n " << n << ", pieces " << pieces);
        REQUIRE(in_range.load());
        for (int p = 0; p < pieces; ++p) {
          CHECK(rec.runs[size_t(p)] == 1);
          CHECK(rec.begin[size_t(p)] == n * p / pieces);
          CHECK(rec.end[size_t(p)] == n * (p + 1) / pieces);
        }
      });
    }
}

TEST_CASE("thread pool: a worker held back leaves its share to the caller", "[kernels][threads]") {
  if (!pool_exists()) ATTNLAB_SKIP("this build has no threads, so no workers to hold back");
  for (int t : {2, 3}) {
    with_threads(t, [&] {
      g_release = false;
      g_held = 0;
      const long n = 64;
      const int pieces = threads::pieces_for(n, t);
      Record rec(pieces);
      const auto caller = std::this_thread::get_id();
      {
        HookGuard hook(hold_worker);
        threads::parallel_for(n, t, [&](long b, long e, int p) { rec.add(b, e, p); });
        g_release = true;  // only after the call returned: it never waited for a held worker
      }
      INFO("threads " << t << ", workers that reached the hook: " << g_held.load());
      for (int p = 0; p < pieces; ++p) {
        CHECK(rec.runs[size_t(p)] == 1);
        CHECK(rec.by[size_t(p)] == caller);
      }
    });
  }
}

TEST_CASE("thread pool: a worker stalled inside a piece stalls only that piece",
          "[kernels][threads]") {
  if (!pool_exists()) ATTNLAB_SKIP("this build has no threads, so no workers to stall");
  for (int t : {2, 3}) {
    with_threads(t, [&] {
      threads::reset_balance();
      const long n = 48;
      const int pieces = threads::pieces_for(n, t);
      const auto caller = std::this_thread::get_id();
      std::atomic<int> done{0}, stalled{0};
      std::atomic<bool> others_done{false}, released_by_event{true};
      std::vector<float> out(size_t(n), 0.f);
      threads::parallel_for(n, t, [&](long b, long e, int) {
        // The first piece a worker takes waits until every other piece is done.
        if (std::this_thread::get_id() != caller && stalled.fetch_add(1) == 0) {
          if (!wait_for(others_done)) released_by_event = false;
        }
        for (long i = b; i < e; ++i) out[size_t(i)] = float(i) * 0.5f;
        if (++done == pieces - 1) others_done = true;
      });
      INFO("threads " << t << ", pieces " << pieces);
      CHECK(done.load() == pieces);
      CHECK(released_by_event.load());
      for (long i = 0; i < n; ++i) CHECK(out[size_t(i)] == float(i) * 0.5f);
    });
  }
}

TEST_CASE("thread pool: kernels give the same bits whatever delays the workers meet",
          "[kernels][threads]") {
  Rng rng(31);
  const int M = 257, N = 130, K = 140, R = 300, C = 257;
  const auto A = randv(size_t(M) * K, rng), B = randv(size_t(N) * K, rng);
  const auto x = randv(size_t(R) * C, rng), dy = randv(size_t(R) * C, rng), g = randv(C, rng);
  const auto v = randv(300001, rng);
  std::vector<float> mean(R), rstd(R), y(x.size());
  cpu_kernels().layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), g.data(), g.data(),
                                  1e-5f, R, C);
  auto run = [&] {
    std::vector<float> out(size_t(M) * N);
    cpu_kernels().gemm(false, true, M, N, K, 1.f, A.data(), K, B.data(), K, 0.f, out.data(), N);
    std::vector<float> dx(x.size()), dg(C, 0.f), db(C, 0.f);
    cpu_kernels().layernorm_backward(dx.data(), dg.data(), db.data(), dy.data(), x.data(),
                                     mean.data(), rstd.data(), g.data(), R, C);
    float s = 0;
    cpu_kernels().sumsq(&s, v.data(), long(v.size()));
    out.insert(out.end(), dx.begin(), dx.end());
    out.insert(out.end(), dg.begin(), dg.end());
    out.insert(out.end(), db.begin(), db.end());
    out.push_back(s);
    return out;
  };
  for (int t : {2, 3}) {
    with_threads(t, [&] {
      const auto quiet = run();
      HookGuard hook(random_delay);
      for (int rep = 0; rep < 6; ++rep) {
        INFO("threads " << t << ", repetition " << rep);
        CHECK(run() == quiet);
      }
    });
  }
}
