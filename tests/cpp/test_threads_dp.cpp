// Thread ranks (cpp/parallel/thread_ranks.hpp, thread_communicator.hpp): the shared-memory
// collectives against hand-computed values, and training on T replicas in one process against
// the one-thread run. T = 2 and T = 3 ranks on uneven row shares take the step the single thread
// takes on the whole batch: the parameters agree to 1e-6 relative after the first step and to
// 1e-5 after four, the bound tests/dist/attn_dist_test.sh holds MPI's np2 to np1 (Adam divides
// each gradient by its own running size, so the rounding of the smallest gradients, summed in
// another order, reaches the weights: measured on AVX2, 2.3e-7 after one step, up to 1.6e-6 after
// two or three); the key biases aside, as in tests/dist/st_tool.cpp: their exact gradient is zero,
// so they hold rounding noise that Adam scales up. A checkpoint of a thread-rank run with dropout
// resumes bit for bit; with dropout, rank r draws its masks from MPI rank r's stream (trainer.hpp),
// and the run does not depend on how the threads were scheduled. The rank threads are started
// once and serve every run (a failed one included). Only rank 0's optimizer holds Adam's
// moments, which the other ranks' optimizers view: after the reduction every rank clips and
// updates its own shard of the weights (whole 4,096-float blocks), which takes the one clip and
// Adam step to 1e-6, and a gradient that is not finite stops every rank before any weight
// changes. The corpus trainer on 2 ranks resumes bit for bit too. Kernels on one thread (the
// test binary's). In single-threaded WebAssembly each case checks the fallback instead: one rank,
// and a clear error for a world of more.
// The model session (api/model_session.hpp, train.thread_split "ranks") on 2 and 3 ranks takes
// the one-thread session's steps to the same bounds, reports its plan in info(), records its rank
// count in a checkpoint and resumes from it bit for bit.
// Long because: the collectives, the plan, the trainers and the session on ranks share the
// replica helpers and the bound of one comparison.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "api/model_session.hpp"
#include "attnlab/error.hpp"
#include "data/parallel_corpus.hpp"
#include "data/task.hpp"
#include "io/checkpoint.hpp"
#include "kernel_check.hpp"
#include "kernels/kernels.hpp"
#include "kernels/threads.hpp"
#include "parallel/thread_ranks.hpp"
#include "skip.hpp"
#include "train/step.hpp"
#include "train/train_state.hpp"

using namespace attnlab;

namespace {

// fn(rank, comm) on the `n` ranks of a fresh world, each on its own thread (the kernel pool's
// idle workers handed back first, as ThreadRanks does: wasm threads come from a fixed pool).
template <class Fn>
void on_ranks(int n, Fn fn) {
  threads::release_workers();
  ThreadWorld w(n);
  std::vector<std::thread> t;
  for (int r = 0; r < n; ++r) t.emplace_back([&, r] { fn(r, w.comm(r)); });
  for (auto& x : t) x.join();
}

nlohmann::json small_transformer(const Task& task, double dropout) {
  return {{"model", "transformer"},
          {"src_vocab", task.src_vocab()},
          {"tgt_vocab", task.tgt_vocab()},
          {"d_model", 16},
          {"heads", 2},
          {"d_ff", 32},
          {"enc_layers", 1},
          {"dec_layers", 1},
          {"dropout", dropout},
          {"max_len", 24}};
}

TrainOptions options(int batch) {
  TrainOptions o;
  o.batch = batch;
  o.seed = 7;
  o.schedule.kind = "constant";
  o.schedule.lr = 1e-3f;
  return o;
}

std::vector<float> params_after(const Task& task, const nlohmann::json& cfg, int batch, int ranks,
                                int steps, std::vector<double>* losses = nullptr) {
  auto m = make_model(cfg, cpu_kernels(), 3);
  ThreadRankTrainer tr(*m, task, options(batch), ranks);
  for (int i = 0; i < steps; ++i) {
    const StepInfo s = tr.step();
    if (losses) losses->push_back(s.loss);
  }
  const ParamArena& P = m->params();
  return std::vector<float>(P.values(), P.values() + P.total());
}

// True for a float of an attention key bias (the middle third of an in_proj_bias).
std::vector<char> key_bias_mask(const nlohmann::json& cfg) {
  auto m = make_model(cfg, cpu_kernels(), 3);
  const ParamArena& P = m->params();
  std::vector<char> mask(size_t(P.total()), 0);
  for (const ParamInfo& p : P.list()) {
    const std::string& n = p.name;
    if (n.size() < 12 || n.compare(n.size() - 12, 12, "in_proj_bias") != 0) continue;
    const size_t C = size_t(p.numel) / 3;
    for (size_t i = C; i < 2 * C; ++i) mask[p.offset + i] = 1;
  }
  return mask;
}

// The worst |a - b| relative to the largest weight of each tensor, the key biases aside; `compared`
// counts the floats compared.
double worst_relative(const ParamArena& P, const std::vector<float>& one,
                      const std::vector<float>& many, const std::vector<char>& key_bias,
                      size_t& compared) {
  double worst = 0;
  compared = 0;
  for (const ParamInfo& p : P.list()) {
    double scale = 0;
    for (long i = 0; i < p.numel; ++i)
      scale = std::max(scale, std::fabs(double(one[p.offset + size_t(i)])));
    for (long i = 0; i < p.numel; ++i) {
      const size_t k = p.offset + size_t(i);
      if (key_bias[k]) continue;
      worst = std::max(worst, std::fabs(double(many[k]) - double(one[k])) / scale);
      ++compared;
    }
  }
  return worst;
}

// A session config of small_transformer's model on `task`, trained on `threads` threads split
// as `split`.
nlohmann::json session_config(double dropout, int threads, const char* split) {
  return {{"model",
           {{"model", "transformer"},
            {"d_model", 16},
            {"heads", 2},
            {"d_ff", 32},
            {"enc_layers", 1},
            {"dec_layers", 1},
            {"dropout", dropout},
            {"max_len", 24}}},
          {"task", "reverse"},
          {"seed", 3},
          {"train",
           {{"batch", 12},
            {"schedule", "constant"},
            {"lr", 1e-3},
            {"threads", threads},
            {"thread_split", split}}}};
}

std::vector<float> values_of(api::Session& s) {
  const ParamArena& P = s.model().params();
  return std::vector<float>(P.values(), P.values() + P.total());
}

// Single-threaded WebAssembly has no second thread: there a plan is one rank and a world of
// more is a clear error. True when that is the case (the caller's threaded checks are moot).
bool single_threaded_fallback() {
  if (thread_ranks_supported()) return false;
  CHECK_THROWS_WITH(ThreadWorld(2), Catch::Contains("no threads"));
  CHECK(plan_threads(2, ThreadSplit::Ranks, 32, 1024, 64).ranks == 1);
  CHECK(plan_threads(2, ThreadSplit::Auto, 32, 1024, 64).ranks == 1);
  auto s = api::Session::create(session_config(0.0, 2, "ranks"));
  CHECK(s->info()["threads"]["ranks"] == 1);
  s->train(1);
  CHECK(s->info()["threads"]["ranks"] == 1);
  return true;
}

}  // namespace

TEST_CASE("threads-dp: float sums are in place, in rank order, on every rank", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  for (int n : {1, 2, 3}) {
    const size_t len = 2500;  // uneven slices, several blocks
    const size_t ranks = static_cast<size_t>(n);
    std::vector<std::vector<float>> buf(ranks, std::vector<float>(len));
    std::vector<std::vector<float>> small(ranks, std::vector<float>(3));
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < len; ++i) buf[size_t(r)][i] = float(r + 1) * 0.1f + float(i);
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < 3; ++i) small[size_t(r)][i] = float(10 * r + int(i));
    std::vector<double> d(ranks);
    std::vector<int64_t> mn(ranks), mx(ranks);
    on_ranks(n, [&](int r, Communicator& c) {
      REQUIRE(c.rank() == r);
      REQUIRE(c.size() == n);
      c.iallreduce_sum(buf[size_t(r)].data(), len);
      c.iallreduce_sum(small[size_t(r)].data(), 3);
      c.progress();
      c.wait_all();
      d[size_t(r)] = c.allreduce_double(0.5 * (r + 1), ReduceOp::Sum);
      mn[size_t(r)] = c.allreduce_int64(100 - r, ReduceOp::Min);
      mx[size_t(r)] = c.allreduce_int64(100 - r, ReduceOp::Max);
    });
    for (int r = 0; r < n; ++r) {
      for (size_t i = 0; i < len; ++i) {
        float want = 0.1f + float(i);  // rank 0 first, then 1, 2: the order of the sum
        for (int q = 1; q < n; ++q) want += float(q + 1) * 0.1f + float(i);
        INFO("n " << n << " rank " << r << " float " << i);
        REQUIRE(buf[size_t(r)][i] == want);
      }
      for (size_t i = 0; i < 3; ++i) {
        float want = 0;
        for (int q = 0; q < n; ++q) want += float(10 * q + int(i));
        REQUIRE(small[size_t(r)][i] == want);
      }
      CHECK(d[size_t(r)] == Approx(0.25 * n * (n + 1)));
      CHECK(mn[size_t(r)] == 100 - (n - 1));
      CHECK(mx[size_t(r)] == 100);
    }
  }
}

TEST_CASE("threads-dp: broadcast, repeated rounds and a failed rank", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  std::vector<std::vector<int>> v(3, std::vector<int>(5));
  on_ranks(3, [&](int r, Communicator& c) {
    for (int i = 0; i < 5; ++i) v[size_t(r)][size_t(i)] = 10 * r + i;
    c.broadcast(v[size_t(r)].data(), 5 * sizeof(int), 2);
    c.barrier();
    for (int round = 0; round < 4; ++round) {  // the slots serve round after round
      float x[2] = {float(r), float(round)};
      c.allreduce_sum(x, 2);
      REQUIRE(x[0] == 3.f);
      REQUIRE(x[1] == 3.f * float(round));
    }
  });
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 5; ++i) CHECK(v[size_t(r)][size_t(i)] == 20 + i);
  CHECK_THROWS_AS(ThreadWorld(0), Error);
  // a rank that fails releases the others from their collectives, now or later
  {
    threads::release_workers();
    ThreadWorld w(3);
    std::atomic<int> released{0};
    std::vector<std::thread> t;
    for (int r = 0; r < 3; ++r)
      t.emplace_back([&, r] {
        if (r == 1) return w.abort();
        try {
          w.comm(r).barrier();
        } catch (const Error&) {
          ++released;
        }
      });
    for (auto& x : t) x.join();
    CHECK(released == 2);
  }
  // ThreadRanks::run rethrows the failure; the others, waiting in the gradient sync, return
  ThreadRanks ranks(3);
  std::vector<std::unique_ptr<ParamArena>> arenas;
  for (int r = 0; r < 3; ++r) {
    arenas.push_back(std::make_unique<ParamArena>(cpu_kernels()));
    arenas.back()->add("w", {4}, Init::Ones);
    Rng rng(1);
    arenas.back()->allocate(rng);
  }
  std::atomic<int> released{0};
  try {
    ranks.run([&](int r) {
      if (r == 1) throw Error("rank 1 fails");
      try {
        ranks.dp(r).sync->begin(*arenas[size_t(r)], 5);
      } catch (const Error&) {
        ++released;
        throw;
      }
    });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "rank 1 fails");
  }
  CHECK(released == 2);
  // the world is spent: a later run throws on every rank instead of waiting for the failed one
  CHECK_THROWS_AS(ranks.run([&](int r) { ranks.dp(r).sync->begin(*arenas[size_t(r)], 5); }), Error);
}

namespace {
int runs_on_this_thread() {
  static thread_local int n = 0;
  return ++n;
}
}  // namespace

TEST_CASE("threads-dp: the rank threads are started once and serve every run", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  ThreadRanks ranks(3);
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> id(3);
  std::vector<int> seen(3);
  const int before = runs_on_this_thread();
  const int runs = 40;
  for (int k = 1; k <= runs; ++k) {
    ranks.run([&](int r) {
      id[size_t(r)] = std::this_thread::get_id();
      seen[size_t(r)] = runs_on_this_thread();
    });
    INFO("run " << k);
    REQUIRE(id[0] == caller);  // rank 0 runs on the calling thread
    REQUIRE(id[1] != caller);
    REQUIRE(id[2] != caller);
    REQUIRE(id[1] != id[2]);
    // a thread of its own that has served every run so far (a fresh thread would count 1)
    REQUIRE(seen[1] == k);
    REQUIRE(seen[2] == k);
    REQUIRE(seen[0] == before + k);
  }
  // a rank's thread that throws keeps serving: the error is rethrown on the caller, every time
  for (int k = 0; k < 3; ++k)
    CHECK_THROWS_WITH(ranks.run([&](int r) {
      if (r == 2) throw Error("rank 2 fails");
    }),
                      "rank 2 fails");
}

TEST_CASE("threads-dp: the kernel pool's workers make way for the rank threads", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  // A 4-thread region keeps 3 kernel workers; under WebAssembly threads come from the loader's
  // fixed pool (4 Workers in the tests), and rank threads asked for while those 3 were kept
  // found none free: the main thread then waited for a Worker it would never let load.
  std::atomic<long> covered{0};
  test::with_threads(4, [&] {
    threads::reset_balance();
    threads::parallel_for(4000, 4, [&](long b, long e, int) { covered += e - b; });
  });
  REQUIRE(covered == 4000);
  ThreadRanks ranks(3);
  std::vector<int> ran(3, 0);
  for (int k = 0; k < 5; ++k) ranks.run([&](int r) { ++ran[size_t(r)]; });
  CHECK(ran == std::vector<int>{5, 5, 5});
  // and a region asking for more threads than there are runs every piece with those that start
  covered = 0;
  test::with_threads(16, [&] {
    threads::reset_balance();
    threads::parallel_for(16000, 16, [&](long b, long e, int) { covered += e - b; });
  });
  CHECK(covered == 16000);
}

TEST_CASE("threads-dp: more ranks than threads to start is a clear error, not a wait",
          "[threads-dp]") {
#if !defined(__EMSCRIPTEN_PTHREADS__)
  ATTNLAB_SKIP("only the threaded WebAssembly build draws its threads from a fixed pool");
#else
  // the tests' loader gives 4 Workers
  CHECK_THROWS_WITH(ThreadRanks(12), Catch::Contains("ranks could get a thread"));
  ThreadRanks two(2);  // the Workers of the failed start went back to the pool
  int ran = 0;
  two.run([&](int r) {
    if (r == 1) ++ran;
  });
  CHECK(ran == 1);
#endif
}

TEST_CASE("threads-dp: the plan picks ranks for enough rows, kernels for few", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  const ThreadPlan one = plan_threads(1, ThreadSplit::Auto, 32, 1024, 64);
  CHECK(one.ranks == 1);
  CHECK(one.kernel_threads == 1);
  const ThreadPlan s = plan_threads(2, ThreadSplit::Auto, 32, 32 * 32, 64);  // config S
  CHECK(s.mode == "ranks");
  CHECK(s.ranks == 2);
  CHECK(s.kernel_threads == 1);
  const ThreadPlan few = plan_threads(4, ThreadSplit::Auto, 6, 6 * 64, 512);
  CHECK(few.mode == "kernels");
  CHECK(few.ranks == 1);
  CHECK(few.kernel_threads == 4);
  const ThreadPlan forced = plan_threads(4, ThreadSplit::Ranks, 3, 3 * 64, 512);
  CHECK(forced.ranks == 3);  // at most one rank per row
  CHECK(plan_threads(4, ThreadSplit::Kernels, 64, 1e5, 64).kernel_threads == 4);
  CHECK(parse_thread_split("both") == ThreadSplit::Both);
  CHECK_THROWS_WITH(parse_thread_split("all"), Catch::Contains("auto, ranks, kernels or both"));
}

TEST_CASE("threads-dp: the plan puts threads a batch's ranks cannot use to work in their kernels",
          "[threads-dp]") {
  if (single_threaded_fallback()) return;
  // 8 threads, 8 rows of config S: ranks of >= 4 rows allow 2 ranks (1.84x), which would leave
  // 6 threads idle; 2 ranks x 4 kernel threads are estimated above both
  const ThreadPlan p = plan_threads(8, ThreadSplit::Auto, 8, 8 * 32, 64);
  INFO(p.to_json().dump());
  CHECK(p.mode == "both");
  CHECK(p.ranks == 2);
  CHECK(p.kernel_threads == 4);
  CHECK(p.both_speedup > p.ranks_speedup);
  CHECK(p.both_speedup > p.kernels_speedup);
  CHECK_THAT(p.why, Catch::Contains("2 ranks of >= 4 rows x 4 kernel threads"));
  // rows for a rank per thread: ranks alone (both is never above them: 0.92 a rank)
  const ThreadPlan r = plan_threads(8, ThreadSplit::Auto, 64, 64 * 32, 64);
  CHECK(r.mode == "ranks");
  CHECK(r.ranks == 8);
  // config S (attn bench's 32 rows of 16 tokens a side, width 64) on 16 threads: 8 ranks of 4
  // rows, each with 2 kernel threads (docs/benchmarks.md, "Past two cores")
  const ThreadPlan s16 = plan_threads(16, ThreadSplit::Auto, 32, 2 * 32 * 16, 64);
  CHECK(s16.mode == "both");
  CHECK(s16.ranks == 8);
  CHECK(s16.kernel_threads == 2);
  // 2 threads: no rank can have a second kernel thread, the plan of before
  CHECK(plan_threads(2, ThreadSplit::Auto, 32, 32 * 32, 64).mode == "ranks");
  CHECK(plan_threads(2, ThreadSplit::Auto, 32, 32 * 32, 64).both_speedup == 0);
  // forced: the best r x k with k >= 2 (one rank per row at most), or ranks alone when none fits
  const ThreadPlan f = plan_threads(4, ThreadSplit::Both, 32, 32 * 32, 64);
  CHECK(f.mode == "both");
  CHECK(f.ranks == 2);
  CHECK(f.kernel_threads == 2);
  CHECK_THAT(f.why, Catch::StartsWith("--thread-split both: 2 ranks"));
  const ThreadPlan f6 = plan_threads(6, ThreadSplit::Both, 32, 32 * 32, 64);
  CHECK(f6.ranks * f6.kernel_threads <= 6);
  CHECK(f6.kernel_threads >= 2);
  const ThreadPlan two = plan_threads(2, ThreadSplit::Both, 32, 32 * 32, 64);
  CHECK(two.mode == "ranks");
  CHECK(two.ranks == 2);
  CHECK(two.kernel_threads == 1);
  CHECK_THAT(two.why, Catch::Contains("one kernel thread"));
  CHECK(plan_threads(4, ThreadSplit::Both, 1, 64, 64).mode == "one");  // one row
}

TEST_CASE("threads-dp: each rank splits its kernel calls on a pool of its own, at once",
          "[threads-dp]") {
  if (single_threaded_fallback()) return;
  // Each rank opens a 2-thread region whose first piece waits (up to 10 s) until every rank's
  // region has begun: on one shared pool (one region at a time) rank 1's region would start
  // only after rank 0's had ended, and the first pieces would time out.
  ThreadRanks ranks(2);
  std::atomic<int> started{0};
  std::vector<int> saw_all(2, 0), pieces(2, 0);
  std::vector<std::vector<std::thread::id>> ran(2);
  std::mutex mu;
  test::with_threads(2, [&] {
    ranks.run([&](int r) {
      threads::reset_balance();
      bool first = true;
      threads::parallel_for(64, 2, [&](long b, long e, int) {
        {
          std::lock_guard<std::mutex> lk(mu);
          ran[size_t(r)].push_back(std::this_thread::get_id());
          pieces[size_t(r)] += int(e - b);
          if (!first) return;
          first = false;
        }
        ++started;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < 2 && std::chrono::steady_clock::now() < until)
          std::this_thread::yield();
        saw_all[size_t(r)] = started.load() >= 2;
      });
    });
  });
  CHECK(pieces == std::vector<int>{64, 64});
  CHECK(saw_all == std::vector<int>{1, 1});
  // no thread ran pieces of both ranks' regions: each region stayed on its rank's thread and
  // that thread's own workers
  for (const std::thread::id& a : ran[0])
    CHECK(std::find(ran[1].begin(), ran[1].end(), a) == ran[1].end());
}

TEST_CASE("threads-dp: 2 ranks x 2 kernel threads take the steps of 2 ranks, bit for bit",
          "[threads-dp]") {
  if (single_threaded_fallback()) return;
  auto task = make_task("reverse");
  // wide enough that a rank's projections (6 rows of ~12 tokens x 128 x 512: ~9e6 FLOPs) are
  // split over its 2 kernel threads (kernels split from 4e6)
  nlohmann::json cfg = small_transformer(*task, 0.0);
  cfg["d_model"] = 128;
  cfg["heads"] = 4;
  cfg["d_ff"] = 512;
  // split kernels give the same bits on any thread count, so ranks x kernel threads are the
  // ranks' own run (which "2 and 3 thread ranks take the one-thread step" holds to one thread)
  std::vector<double> l1, l2;
  const std::vector<float> alone = params_after(*task, cfg, 12, 2, 4, &l1);
  std::vector<float> both;
  test::with_threads(2, [&] {
    threads::reset_balance();
    both = params_after(*task, cfg, 12, 2, 4, &l2);
  });
  REQUIRE(both.size() == alone.size());
  CHECK(std::memcmp(both.data(), alone.data(), both.size() * sizeof(float)) == 0);
  CHECK(l2 == l1);
  auto m0 = make_model(cfg, cpu_kernels(), 3);
  CHECK(std::memcmp(m0->params().values(), both.data(), both.size() * sizeof(float)) != 0);
}

TEST_CASE("threads-dp: 2 and 3 thread ranks take the one-thread step", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  auto task = make_task("reverse");
  const nlohmann::json cfg = small_transformer(*task, 0.0);
  const std::vector<char> key_bias = key_bias_mask(cfg);
  for (const auto& [steps, bound] : {std::pair<int, double>{1, 1e-6}, {4, 1e-5}})
    for (int batch : {12, 13}) {
      std::vector<double> l1;
      const std::vector<float> one = params_after(*task, cfg, batch, 1, steps, &l1);
      auto m0 = make_model(cfg, cpu_kernels(), 3);
      for (int ranks : {2, 3}) {
        std::vector<double> lr;
        const std::vector<float> many = params_after(*task, cfg, batch, ranks, steps, &lr);
        REQUIRE(many.size() == one.size());
        // |a - b| relative to the largest weight of the tensor, the key biases aside
        double worst = 0;
        size_t compared = 0;
        for (const ParamInfo& p : m0->params().list()) {
          double scale = 0;
          for (long i = 0; i < p.numel; ++i)
            scale = std::max(scale, std::fabs(double(one[p.offset + size_t(i)])));
          for (long i = 0; i < p.numel; ++i) {
            const size_t k = p.offset + size_t(i);
            if (key_bias[k]) continue;
            worst = std::max(worst, std::fabs(double(many[k]) - double(one[k])) / scale);
            ++compared;
          }
        }
        INFO(steps << " steps, batch " << batch << ", " << ranks
                   << " ranks: worst relative difference " << worst);
        CHECK(worst <= bound);
        CHECK(compared > size_t(one.size()) / 2);
        for (int i = 0; i < steps; ++i) CHECK(lr[size_t(i)] == Approx(l1[size_t(i)]).epsilon(1e-6));
        // the runs moved the weights: the comparison is not of the initial values
        CHECK(std::memcmp(m0->params().values(), many.data(), many.size() * sizeof(float)) != 0);
      }
    }
}

TEST_CASE("threads-dp: with dropout a run is reproducible and resumes bit for bit",
          "[threads-dp]") {
  if (single_threaded_fallback()) return;
  auto task = make_task("reverse");
  const nlohmann::json cfg = small_transformer(*task, 0.1);
  const int ranks = 2, steps = 6;
  const TrainOptions o = options(10);
  auto serialise = [](Model& m, const ThreadRankTrainer& tr) {
    SafeTensors st = model_tensors(m, false);
    nlohmann::json state = nlohmann::json::object();
    tr.save_state(st, state);
    st.metadata["attnlab_train"] = state.dump();
    return serialize_safetensors(st);
  };
  auto straight = [&] {
    auto m = make_model(cfg, cpu_kernels(), 3);
    ThreadRankTrainer tr(*m, *task, o, ranks);
    for (int i = 0; i < steps; ++i) tr.step();
    return serialise(*m, tr);
  };
  const std::vector<uint8_t> whole = straight();
  CHECK(straight() == whole);  // however the threads were scheduled
  // steps / 2, a checkpoint, and the rest from its bytes
  std::vector<uint8_t> half;
  {
    auto m = make_model(cfg, cpu_kernels(), 3);
    ThreadRankTrainer tr(*m, *task, o, ranks);
    for (int i = 0; i < steps / 2; ++i) tr.step();
    half = serialise(*m, tr);
  }
  const SafeTensors st = parse_safetensors(half.data(), half.size());
  nlohmann::json state;
  auto m = model_from_safetensors(st, cpu_kernels(), &state);
  REQUIRE(state.contains("dropout_rng_ranks"));
  TrainOptions ro = o;
  ro.first_step = state["step"].get<int>() + 1;
  ThreadRankTrainer tr(*m, *task, ro, ranks);
  tr.restore_state(st, state);
  CHECK(tr.rank_trainer(0).adam().holds_moments());
  CHECK_FALSE(tr.rank_trainer(1).adam().holds_moments());  // restored: the step count only
  for (int i = steps / 2; i < steps; ++i) tr.step();
  CHECK(serialise(*m, tr) == whole);
  // rank 1 draws its own masks: the run is not the one-thread run on the same batch
  auto m1 = make_model(cfg, cpu_kernels(), 3);
  ThreadRankTrainer one(*m1, *task, o, 1);
  for (int i = 0; i < steps; ++i) one.step();
  CHECK(serialise(*m1, one) != whole);
}

TEST_CASE("threads-dp: only rank 0's optimizer holds moments, which the others view",
          "[threads-dp]") {
  if (single_threaded_fallback()) return;
  auto task = make_task("reverse");
  const nlohmann::json cfg = small_transformer(*task, 0.0);
  auto m = make_model(cfg, cpu_kernels(), 3);
  ThreadRankTrainer tr(*m, *task, options(12), 3);
  const long n = m->params().total();
  const Adam& a0 = tr.rank_trainer(0).adam();
  REQUIRE(a0.holds_moments());
  REQUIRE(a0.first_moments() != nullptr);
  REQUIRE(a0.second_moments() != nullptr);
  for (int r : {1, 2}) {  // no buffers of their own: rank 0's, for their shards of the update
    const Adam& a = tr.rank_trainer(r).adam();
    CHECK_FALSE(a.holds_moments());
    CHECK(a.first_moments() == a0.first_moments());
    CHECK(a.second_moments() == a0.second_moments());
  }
  tr.step();
  tr.step();
  // rank 0's moments moved; every rank counted the run's steps
  CHECK(a0.steps() == 2);
  for (int r : {1, 2}) CHECK(tr.rank_trainer(r).adam().steps() == 2);
  CHECK(std::any_of(a0.second_moments(), a0.second_moments() + n, [](float v) { return v > 0; }));
  // an Adam without moments refuses to step or to be saved, with a clear error
  Adam replica(m->params(), {}, false);
  CHECK_THROWS_WITH(replica.step(1e-3f), Catch::Contains("holds no moments"));
  SafeTensors st;
  nlohmann::json state;
  CHECK_THROWS_WITH(save_adam(replica, m->params(), st, state),
                    Catch::Contains("holds no moments"));
  // a viewer saves nothing either (the owner does), and an owner cannot become a viewer
  Adam viewer(m->params(), {}, false);
  viewer.view_moments_of(a0);
  CHECK_THROWS_WITH(save_adam(viewer, m->params(), st, state), Catch::Contains("holds no moments"));
  Adam owner(m->params());
  CHECK_THROWS_WITH(owner.view_moments_of(a0), Catch::Contains("moments of its own"));
  // one rank: the single-thread trainer, moments and all
  auto m1 = make_model(cfg, cpu_kernels(), 3);
  ThreadRankTrainer one(*m1, *task, options(12), 1);
  CHECK(one.rank_trainer(0).adam().holds_moments());
}

TEST_CASE("threads-dp: the shards of the update cover the weights in whole blocks",
          "[threads-dp]") {
  for (long total : {0L, 1L, 4095L, 4096L, 4097L, 10000L, 12288L, 1000003L})
    for (int shards : {1, 2, 3, 5}) {
      long at = 0;
      for (int s = 0; s < shards; ++s) {
        long first = -1, last = -1;
        shard_range(total, s, shards, &first, &last);
        INFO("total " << total << " shard " << s << " of " << shards);
        CHECK(first == at);  // consecutive, in shard order
        CHECK(last >= first);
        CHECK((first % 4096 == 0 || first == total));
        CHECK((last % 4096 == 0 || last == total));
        at = last;
      }
      CHECK(at == total);
    }
  long a = 0, b = 0;
  shard_range(1000003, 0, 2, &a, &b);
  CHECK(b - a > 1000003 / 2 - 4096);  // as even as whole blocks allow
  CHECK_THROWS_WITH(shard_range(10, 2, 2, &a, &b), Catch::Contains("shard 2 of 2"));
}

TEST_CASE("threads-dp: every rank clips and updates its shard, as one clip and Adam would",
          "[threads-dp]") {
  if (single_threaded_fallback()) return;
  auto task = make_task("reverse");
  nlohmann::json cfg = small_transformer(*task, 0.0);
  cfg["d_model"] = 48;
  cfg["d_ff"] = 96;
  auto m = make_model(cfg, cpu_kernels(), 3);
  const long n = m->params().total();
  REQUIRE(n > 3 * 4096);  // every one of 3 shards holds weights
  auto reps = make_replicas(*m, 2);
  auto m1 = make_model(cfg, cpu_kernels(), 3);  // the one-thread reference
  std::copy_n(m->params().values(), n, m1->params().values());
  // the same summed gradients in every replica, as the reduction leaves them: large enough that
  // the clip at norm 1 scales them
  auto fill = [&](ParamArena& P, float nan_at) {
    for (long i = 0; i < n; ++i) P.grads()[i] = 0.01f * std::sin(0.37f * float(i));
    if (nan_at >= 0) P.grads()[long(nan_at)] = std::nanf("");
  };
  std::vector<ParamArena*> arenas{&m->params(), &reps[0]->params(), &reps[1]->params()};
  for (ParamArena* P : arenas) fill(*P, -1);
  fill(m1->params(), -1);
  Adam a0(m->params());
  std::vector<std::unique_ptr<Adam>> viewers;
  for (int r : {1, 2}) {
    viewers.push_back(std::make_unique<Adam>(*arenas[size_t(r)], AdamOptions{}, false));
    viewers.back()->view_moments_of(a0);
  }
  std::vector<Adam*> adams{&a0, viewers[0].get(), viewers[1].get()};
  const float lr = 1e-2f;
  // ranks update their shards (twice: the second step reads the first's moments)
  auto update = [&](std::vector<float>& norms, std::vector<int>& threw) {
    on_ranks(3, [&](int r, Communicator& c) {
      BucketedGradientSync sync(c);
      try {
        norms[size_t(r)] =
            update_shard(*arenas[size_t(r)], *adams[size_t(r)], sync, r, 3, lr, 1.f, 1, 0.5);
      } catch (const Error& e) {
        threw[size_t(r)] = 1;
        CHECK_THAT(e.what(), Catch::Contains("not finite"));
      }
    });
  };
  Adam a1(m1->params());
  for (int step = 1; step <= 2; ++step) {
    std::vector<float> norms(3, 0.f);
    std::vector<int> threw(3, 0);
    update(norms, threw);
    CHECK(threw == std::vector<int>{0, 0, 0});
    const float norm1 = clip_grad_norm(m1->params(), 1.f);
    a1.step(lr);
    REQUIRE(norm1 > 1.f);  // the clip scaled
    for (int r = 0; r < 3; ++r) CHECK(norms[size_t(r)] == Approx(norm1).epsilon(1e-6));
    double worst = 0;
    for (long i = 0; i < n; ++i) {
      const double x = m->params().values()[i], y = m1->params().values()[i];
      worst = std::max(worst, std::abs(x - y) / std::max(1e-3, std::abs(y)));
    }
    INFO("step " << step);
    CHECK(worst <= 1e-6);
    for (int r = 0; r < 3; ++r) CHECK(adams[size_t(r)]->steps() == step);
    for (ParamArena* P : arenas) fill(*P, -1);  // the clip scaled each rank's own shard
    fill(m1->params(), -1);
  }
  // a gradient that is not finite: every rank throws, and no rank changes a weight
  const std::vector<float> before(m->params().values(), m->params().values() + n);
  for (ParamArena* P : arenas) fill(*P, float(n - 1));  // in the last rank's shard
  std::vector<float> norms(3, 0.f);
  std::vector<int> threw(3, 0);
  update(norms, threw);
  CHECK(threw == std::vector<int>{1, 1, 1});
  CHECK(std::memcmp(before.data(), m->params().values(), size_t(n) * sizeof(float)) == 0);
}

TEST_CASE("threads-dp: the corpus trainer on 2 ranks resumes bit for bit", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string tsv = (dir / "attnlab_threads_dp_corpus.tsv").string();
  {
    const char* w[] = {"ka", "lo", "mi", "nu", "pe", "ro"};
    Rng rng(4);
    std::ofstream f(tsv);
    for (int i = 0; i < 200; ++i) {
      const int len = 1 + int(rng.below(5));
      std::string a, b;
      for (int k = 0; k < len; ++k) {
        a += (k ? " " : "") + std::string(w[rng.below(6)]);
        b = std::string(w[rng.below(6)]) + (k ? " " : "") + b;
      }
      f << a << '\t' << b << '\n';
    }
  }
  const Bpe bpe = Bpe::train(ParallelCorpus::read_sentences(tsv), 300, 2);
  const ParallelCorpus corpus(tsv, bpe, 12);
  nlohmann::json cfg = {{"model", "transformer"},
                        {"src_vocab", bpe.size()},
                        {"tgt_vocab", bpe.size()},
                        {"d_model", 16},
                        {"heads", 2},
                        {"d_ff", 32},
                        {"layers", 1},
                        {"dropout", 0.1},
                        {"max_len", 16}};
  ParallelTrainOptions o;
  o.max_tokens = 80;
  o.schedule.kind = "constant";
  o.schedule.lr = 1e-3f;
  o.seed = 5;
  const int ranks = 2, steps = 6;
  auto bytes = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), {});
  };
  const std::string whole = (dir / "attnlab_threads_dp_whole.safetensors").string();
  const std::string half = (dir / "attnlab_threads_dp_half.safetensors").string();
  const std::string rest = (dir / "attnlab_threads_dp_rest.safetensors").string();
  {
    auto m = make_model(cfg, cpu_kernels(), 3);
    ThreadRankParallelTrainer tr(*m, corpus, bpe, o, ranks);
    CHECK(tr.rank_trainer(0).adam().holds_moments());
    CHECK_FALSE(tr.rank_trainer(1).adam().holds_moments());
    for (int i = 0; i < steps; ++i) tr.step();
    tr.save(whole);
  }
  {
    auto m = make_model(cfg, cpu_kernels(), 3);
    ThreadRankParallelTrainer tr(*m, corpus, bpe, o, ranks);
    for (int i = 0; i < steps / 2; ++i) tr.step();
    tr.save(half);
  }
  const std::vector<char> h = bytes(half);
  const SafeTensors st = parse_safetensors(reinterpret_cast<const uint8_t*>(h.data()), h.size());
  auto m = model_from_safetensors(st, cpu_kernels());
  ThreadRankParallelTrainer tr(*m, corpus, bpe, o, ranks);
  tr.restore(st);
  CHECK_FALSE(tr.rank_trainer(1).adam().holds_moments());
  for (int i = steps / 2; i < steps; ++i) tr.step();
  tr.save(rest);
  const std::vector<char> a = bytes(whole), b = bytes(rest);
  REQUIRE(!a.empty());
  CHECK(a == b);
  for (const std::string& p : {tsv, whole, half, rest}) std::remove(p.c_str());
}

TEST_CASE("threads-dp: a session on thread ranks takes the one-thread steps", "[threads-dp]") {
  if (single_threaded_fallback()) return;
  const int steps = 4;
  auto one = api::Session::create(session_config(0.0, 1, "ranks"));
  CHECK(one->info()["threads"]["mode"] == "one");
  const api::TrainChunk c1 = one->train(steps);
  const std::vector<float> v1 = values_of(*one);
  const std::vector<char> key_bias = key_bias_mask(one->model().config());
  auto fresh = api::Session::create(session_config(0.0, 1, "kernels"));
  for (int ranks : {2, 3}) {
    auto s = api::Session::create(session_config(0.0, ranks, "ranks"));
    const nlohmann::json plan = s->info()["threads"];
    CHECK(plan["mode"] == "ranks");
    CHECK(plan["ranks"] == ranks);
    CHECK(plan["kernel_threads"] == 1);
    CHECK_THAT(plan["why"].get<std::string>(), Catch::StartsWith("train.thread_split ranks"));
    const api::TrainChunk c = s->train(steps);
    CHECK(s->info()["threads"] == plan);
    CHECK(c.step == steps);
    CHECK(c.tokens == c1.tokens);  // every rank's tokens, as the one thread's
    for (int i = 0; i < steps; ++i)
      CHECK(c.losses[size_t(i)] == Approx(c1.losses[size_t(i)]).epsilon(1e-6));
    size_t compared = 0;
    const std::vector<float> v = values_of(*s);
    const double worst = worst_relative(s->model().params(), v1, v, key_bias, compared);
    INFO(ranks << " ranks: worst relative difference " << worst);
    CHECK(worst <= 1e-5);  // the bound of "2 and 3 thread ranks take the one-thread step"
    CHECK(compared > v1.size() / 2);
    CHECK(values_of(*fresh) != v);  // the weights moved
  }
  // "auto": ranks of at least 4 rows where the batch has them, else kernels; kernels by default
  const nlohmann::json plan =
      api::Session::create(session_config(0.0, 4, "auto"))->info()["threads"];
  CHECK(plan["mode"] == "ranks");
  CHECK(plan["ranks"] == 3);
  nlohmann::json small = session_config(0.0, 4, "auto");
  small["train"]["batch"] = 6;
  CHECK(api::Session::create(small)->info()["threads"]["mode"] == "kernels");
  nlohmann::json dflt = session_config(0.0, 4, "kernels");
  dflt["train"].erase("thread_split");
  CHECK(api::Session::create(dflt)->info()["threads"]["mode"] == "kernels");
  // "both" on 4 threads: 2 ranks x 2 kernel threads, the one-thread steps to the same bound
  auto b = api::Session::create(session_config(0.0, 4, "both"));
  const nlohmann::json bp = b->info()["threads"];
  CHECK(bp["mode"] == "both");
  CHECK(bp["ranks"] == 2);
  CHECK(bp["kernel_threads"] == 2);
  CHECK_THAT(bp["why"].get<std::string>(), Catch::StartsWith("train.thread_split both"));
  const api::TrainChunk cb = b->train(steps);
  CHECK(b->info()["threads"] == bp);
  for (int i = 0; i < steps; ++i)
    CHECK(cb.losses[size_t(i)] == Approx(c1.losses[size_t(i)]).epsilon(1e-6));
  size_t compared = 0;
  const double worst = worst_relative(b->model().params(), v1, values_of(*b), key_bias, compared);
  INFO("2 ranks x 2 kernel threads: worst relative difference " << worst);
  CHECK(worst <= 1e-5);
  nlohmann::json bad = session_config(0.0, 2, "all");
  CHECK_THROWS_WITH(api::Session::create(bad), Catch::Contains("train.thread_split"));
  bad = session_config(0.0, -1, "ranks");
  CHECK_THROWS_WITH(api::Session::create(bad), Catch::Contains("train.threads"));
}

TEST_CASE("threads-dp: a session on thread ranks resumes bit for bit on as many ranks",
          "[threads-dp]") {
  if (single_threaded_fallback()) return;
  const nlohmann::json cfg = session_config(0.1, 2, "ranks");  // dropout: every rank's stream
  auto straight = api::Session::create(cfg);
  straight->train(6);
  const std::vector<uint8_t> whole = straight->save(true);
  auto first = api::Session::create(cfg);
  first->train(3);
  const std::vector<uint8_t> half = first->save(true);
  const SafeTensors st = parse_safetensors(half.data(), half.size());
  const nlohmann::json state = nlohmann::json::parse(st.metadata.at("attnlab_train"));
  CHECK(state["thread_ranks"] == 2);
  CHECK(state["dropout_rng_ranks"].size() == 2);
  auto resumed = api::Session::load(half, nlohmann::json::object());
  CHECK(resumed->info()["threads"]["ranks"] == 2);
  CHECK_THAT(resumed->info()["threads"]["why"].get<std::string>(), Catch::Contains("resumes"));
  resumed->train(3);
  CHECK(resumed->save(true) == whole);
  // in two calls of 3 steps: the same run as one of 6
  first->train(3);
  CHECK(first->save(true) == whole);
  // the one-thread run differs (rank 1 draws its own masks), and a resume on one thread says so
  auto one = api::Session::create(session_config(0.1, 1, "ranks"));
  one->train(6);
  CHECK(values_of(*one) != values_of(*straight));  // the weights, not just the recorded ranks
  nlohmann::json fewer = cfg["train"];
  fewer["threads"] = 1;
  auto moved = api::Session::load(half, {{"train", fewer}});
  CHECK(moved->info()["threads"]["ranks"] == 1);
  CHECK_THAT(moved->info()["threads"]["why"].get<std::string>(),
             Catch::Contains("not bit for bit"));
  moved->train(1);
  // a kernels run's checkpoint resumes on one rank, whatever the loading session asks
  auto k = api::Session::create(session_config(0.1, 2, "kernels"));
  k->train(2);
  auto k2 = api::Session::load(k->save(true), {{"train", cfg["train"]}});
  CHECK(k2->info()["threads"]["ranks"] == 1);
}
