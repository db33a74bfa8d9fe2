// Data-parallel groundwork in one process (cpp/parallel): world detection from a launcher's
// environment, the world of one, bucket boundaries, and the bucketed gradient sync's global-token
// arithmetic against a fake communicator that plays a second rank. The same collectives across
// real processes are checked under mpirun by tests/dist/mpi_test.sh (attnlab_dist_test).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "bucket_replay.hpp"
#include "core/rng.hpp"
#include "kernels/kernels.hpp"
#include "layers/arena.hpp"
#include "parallel/bucketed_sync.hpp"
#include "parallel/communicator.hpp"
#include "parallel/gpu_choice.hpp"
#include "parallel/nccl_communicator.hpp"
#include "parallel/world.hpp"
#include "skip.hpp"

using namespace attnlab;

namespace {

WorldInfo world_from(const std::map<std::string, std::string>& vars) {
  return detect_world([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

// Rank 0 of a world of two whose other rank holds `remote` gradients (already normalised by its
// own `remote_tokens`), mean loss `remote_loss` and fingerprint `remote_hash`. Float sums add the
// remote rank's share (n_1 / N) g_1 to the matching part of the gradient block; it records every
// reduction it is asked to start, as (offset into the block, length).
struct TwoRankFake : Communicator {
  const float* base = nullptr;  // the gradient block of rank 0
  std::vector<float> remote;
  int64_t remote_tokens = 0;
  double remote_loss = 0;
  int64_t remote_hash = 0;
  std::vector<Bucket> started;
  int waits = 0;

  const char* name() const override { return "fake"; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  int64_t global() const { return remote_tokens + own_tokens; }
  int64_t own_tokens = 0;
  void allreduce_sum(float* p, size_t n) override {
    iallreduce_sum(p, n);
    wait_all();
  }
  void iallreduce_sum(float* p, size_t n) override {
    const size_t off = size_t(p - base);
    started.push_back({off, n});
    const float share = float(double(remote_tokens) / double(global()));
    for (size_t i = 0; i < n; ++i) p[i] += share * remote[off + i];
  }
  void wait_all() override { ++waits; }
  void broadcast(void*, size_t, int) override {}
  void barrier() override {}
  double allreduce_double(double x, ReduceOp) override { return x + remote_loss * remote_tokens; }
  int64_t allreduce_int64(int64_t x, ReduceOp op) override {
    if (op == ReduceOp::Sum) return x + remote_tokens;
    return op == ReduceOp::Min ? std::min(x, remote_hash) : std::max(x, remote_hash);
  }
};

// An arena of [10,30] + [700] (1008 floats with the arena's alignment padding) with gradients
// g[i] = sin(0.1 i).
struct Arena {
  ParamArena P{cpu_kernels()};
  Arena() {
    P.add("a", {10, 30}, Init::Normal, 1.f);
    P.add("b", {700}, Init::Uniform, 0.5f);
    Rng rng(7);
    P.allocate(rng);
    for (long i = 0; i < P.total(); ++i) P.grads()[i] = float(std::sin(0.1 * double(i)));
  }
};

std::vector<float> remote_grads(size_t n) {
  std::vector<float> r(n);
  for (size_t i = 0; i < n; ++i) r[i] = float(std::cos(0.3 * double(i))) * 2.f;
  return r;
}

// g = (n0 g0 + n1 g1) / N and L = (n0 L0 + n1 L1) / N.
void require_global_mean(const ParamArena& P, const TwoRankFake& fake, int64_t n0) {
  const double N = double(n0 + fake.remote_tokens);
  for (long i = 0; i < P.total(); ++i) {
    const double want = (double(n0) * std::sin(0.1 * double(i)) +
                         double(fake.remote_tokens) * double(fake.remote[size_t(i)])) /
                        N;
    INFO("gradient " << i);
    REQUIRE(P.grads()[i] == Approx(want).margin(1e-6));
  }
}

}  // namespace

TEST_CASE("dist: the launcher's environment gives rank, size and local rank", "[dist]") {
  WorldInfo w = world_from({});
  CHECK(w.launcher == Launcher::Single);
  CHECK((w.rank == 0 && w.size == 1 && w.local_rank == 0));

  w = world_from({{"OMPI_COMM_WORLD_SIZE", "4"},
                  {"OMPI_COMM_WORLD_RANK", "3"},
                  {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                  {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                  {"RANK", "0"},
                  {"WORLD_SIZE", "9"}});
  CHECK(w.launcher == Launcher::Mpi);
  CHECK((w.rank == 3 && w.size == 4 && w.local_rank == 1 && w.local_size == 2));

  w = world_from({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}, {"MPI_LOCALRANKID", "1"}});
  CHECK(w.launcher == Launcher::Mpi);
  CHECK((w.rank == 1 && w.size == 2 && w.local_rank == 1));

  w = world_from(
      {{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "4"}});
  CHECK(w.launcher == Launcher::Env);
  CHECK((w.rank == 5 && w.size == 8 && w.local_rank == 1 && w.local_size == 4));
  CHECK(std::string(launcher_name(w.launcher)) == "env");

  // Without LOCAL_RANK: one host, the rank picks the GPU.
  w = world_from({{"RANK", "1"}, {"WORLD_SIZE", "2"}});
  CHECK((w.launcher == Launcher::Env && w.local_rank == 1 && w.local_size == 2));
  // RANK alone (some other program's variable) is not a launch.
  CHECK(world_from({{"RANK", "3"}}).launcher == Launcher::Single);

  CHECK_THROWS_WITH(world_from({{"RANK", "2"}, {"WORLD_SIZE", "2"}}),
                    Catch::Contains("rank 2 is not below the world size 2"));
  CHECK_THROWS_WITH(world_from({{"RANK", "0"}, {"WORLD_SIZE", "two"}}),
                    Catch::Contains("WORLD_SIZE=\"two\""));
  CHECK_THROWS_AS(world_from({{"RANK", "0"}, {"WORLD_SIZE", "0"}}), Error);
  CHECK_THROWS_AS(world_from({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}), Error);
  CHECK_THROWS_AS(
      world_from(
          {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "3"}, {"LOCAL_WORLD_SIZE", "2"}}),
      Error);
}

TEST_CASE("dist: a plain process is a world of one with identity collectives", "[dist]") {
  if (detect_world().launcher != Launcher::Single)
    ATTNLAB_SKIP("this test process was started by a launcher");
  World world;
  CHECK(world.size() == 1);
  CHECK(world.rank() == 0);
  CHECK_THROWS_WITH(World(), Catch::Contains("one World"));
  auto comm = make_communicator(world.info(), false);
  CHECK(std::string(comm->name()) == "local");
  CHECK(comm->allreduce_int64(7, ReduceOp::Sum) == 7);
  CHECK(comm->allreduce_double(2.5, ReduceOp::Max) == 2.5);
  CHECK_THROWS_AS(comm->broadcast(nullptr, 0, 1), Error);

  // The sync in a world of one leaves the step exactly as a single process has it.
  Arena a;
  const std::vector<float> before(a.P.grads(), a.P.grads() + a.P.total());
  BucketedGradientSync sync(*comm, 64 * sizeof(float));
  CHECK(sync.reduce(a.P, 1.75, 12) == 1.75);
  CHECK(sync.global_tokens() == 12);
  CHECK(std::vector<float>(a.P.grads(), a.P.grads() + a.P.total()) == before);
  CHECK_THROWS_AS(sync.reduce(a.P, 1.0, -1), Error);
}

TEST_CASE("dist: CPU ranks without MPI, or GPU ranks without NCCL, are clear errors", "[dist]") {
  WorldInfo two;
  two.launcher = Launcher::Env;
  two.size = 2;
  two.local_size = 2;
  CHECK_THROWS_WITH(make_communicator(two, false), Catch::Contains("needs MPI"));
  if (!built_with_nccl())
    CHECK_THROWS_WITH(make_communicator(two, true, "/tmp/id"), Catch::Contains("no NCCL"));
}

TEST_CASE("dist: buckets cut the gradient block into consecutive pieces", "[dist]") {
  auto b = make_buckets(10, 4);
  REQUIRE(b.size() == 3);
  CHECK((b[0].offset == 0 && b[0].n == 4));
  CHECK((b[1].offset == 4 && b[1].n == 4));
  CHECK((b[2].offset == 8 && b[2].n == 2));
  CHECK(make_buckets(8, 4).size() == 2);
  CHECK(make_buckets(0, 4).empty());
  CHECK(make_buckets(3, 100).size() == 1);
  CHECK_THROWS_AS(make_buckets(10, 0), Error);
  CHECK_THROWS_AS(BucketedGradientSync(*std::make_unique<LocalCommunicator>(), 3), Error);
}

TEST_CASE("dist: gradients and loss are normalised by the global token count", "[dist]") {
  Arena a;
  TwoRankFake fake;
  fake.base = a.P.grads();
  fake.remote = remote_grads(size_t(a.P.total()));
  fake.remote_tokens = 37;
  fake.remote_loss = 3.0;
  fake.own_tokens = 13;
  BucketedGradientSync sync(fake, 256 * sizeof(float));
  const double loss = sync.reduce(a.P, 2.0, 13);
  CHECK(loss == Approx((13 * 2.0 + 37 * 3.0) / 50.0));
  CHECK(sync.global_tokens() == 50);
  require_global_mean(a.P, fake, 13);
  // Every bucket once, the last first (the order every rank keeps), with one wait: the tail,
  // then 256, 256, 256.
  const size_t T = size_t(a.P.total());
  REQUIRE(T > 768);
  REQUIRE(T <= 1024);
  REQUIRE(fake.started.size() == 4);
  for (size_t b = 0; b < 4; ++b) {
    CHECK(fake.started[3 - b].offset == 256 * b);
    CHECK(fake.started[3 - b].n == (b < 3 ? 256u : T - 768));
  }
  CHECK(fake.waits == 1);
}

TEST_CASE("dist: bucket_ready starts each bucket as soon as backward completes it", "[dist]") {
  Arena a;
  TwoRankFake fake;
  fake.base = a.P.grads();
  fake.remote = remote_grads(size_t(a.P.total()));
  fake.remote_tokens = 5;
  fake.remote_loss = 1.0;
  fake.own_tokens = 20;
  BucketedGradientSync sync(fake, 256 * sizeof(float));
  CHECK_THROWS_WITH(sync.bucket_ready(0, 10), Catch::Contains("before begin"));

  sync.begin(a.P, 20);
  CHECK(sync.global_tokens() == 25);
  // Backward produces the block from the end, as a model's backward does.
  const size_t T = size_t(a.P.total());
  sync.bucket_ready(900, T - 900);
  CHECK(sync.buckets_started() == 0);
  sync.bucket_ready(768, 132);  // completes the tail bucket [768, T)
  CHECK(sync.buckets_started() == 1);
  sync.bucket_ready(100, 668);  // completes [256, 512) and [512, 768): the upper one first
  CHECK(sync.buckets_started() == 3);
  CHECK_THROWS_WITH(sync.bucket_ready(T - 10, 20), Catch::Contains("outside"));
  CHECK_THROWS_WITH(sync.bucket_ready(600, 1), Catch::Contains("twice"));
  CHECK_THROWS_WITH(sync.reduce(a.P, 0.5, 19), Catch::Contains("after begin() with 20"));
  const double loss = sync.reduce(a.P, 0.5, 20);  // starts [0, 256), never reported whole
  CHECK(loss == Approx((20 * 0.5 + 5 * 1.0) / 25.0));
  REQUIRE(fake.started.size() == 4);
  CHECK(fake.started[0].offset == 768);
  CHECK(fake.started[1].offset == 512);
  CHECK(fake.started[2].offset == 256);
  CHECK(fake.started[3].offset == 0);
  require_global_mean(a.P, fake, 20);
}

TEST_CASE("dist: every rank starts the buckets in one order, whatever its backward reported",
          "[dist]") {
  // MPI and NCCL match collectives by the order they are issued. A rank whose slice of the
  // global batch is empty reports nothing and reduces at once; a rank whose model reported
  // the block from the front holds its buckets back; both issue what the busy rank issues.
  auto order = [](auto&& drive) {
    Arena a;
    TwoRankFake fake;
    fake.base = a.P.grads();
    fake.remote = remote_grads(size_t(a.P.total()));
    fake.remote_tokens = 9;
    fake.own_tokens = 0;
    BucketedGradientSync sync(fake, 256 * sizeof(float));
    drive(sync, a.P);
    std::vector<size_t> offsets;
    for (const Bucket& b : fake.started) offsets.push_back(b.offset);
    return offsets;
  };
  const std::vector<size_t> want = {768, 512, 256, 0};
  CHECK(order([](BucketedGradientSync& s, ParamArena& P) { s.reduce(P, 0.0, 0); }) == want);
  CHECK(order([](BucketedGradientSync& s, ParamArena& P) {
          s.begin(P, 4);
          const size_t T = size_t(P.total());
          s.bucket_ready(0, 300);  // the front first: nothing may start before the tail has
          CHECK(s.buckets_started() == 0);
          s.bucket_ready(300, T - 300);
          CHECK(s.buckets_started() == 4);
          s.reduce(P, 1.0, 4);
        }) == want);
}

TEST_CASE("dist: ranks that disagree on a fingerprint get one clear error", "[dist]") {
  Arena a;
  const uint64_t h = param_checksum(a.P);
  CHECK(h == param_checksum(a.P));
  a.P.values()[999] += 1.f;
  CHECK(h != param_checksum(a.P));
  CHECK(fnv1a("abc", 3) != fnv1a("abd", 3));

  TwoRankFake fake;
  const std::string cfg = "--batch 10 --seed 1";
  const uint64_t mine = fnv1a(cfg.data(), cfg.size());
  std::memcpy(&fake.remote_hash, &mine, sizeof mine);
  CHECK_NOTHROW(require_same_on_all_ranks(fake, mine, "the model config"));
  const std::string other = "--batch 11 --seed 1";
  const uint64_t theirs = fnv1a(other.data(), other.size());
  std::memcpy(&fake.remote_hash, &theirs, sizeof theirs);
  CHECK_THROWS_WITH(
      require_same_on_all_ranks(fake, mine, "the model config"),
      Catch::Contains("the ranks disagree on the model config") && Catch::Contains("rank 0 of 2"));
}

// The NCCL case's bucket bookkeeping (test_cuda_nccl.cpp) replayed with the CPU table and the
// world of one: a 3000-float parameter padded to 3008 gradient floats completes its last bucket
// only when the padding is reported too.
TEST_CASE("dist: the NCCL case's buckets, replayed on the CPU", "[dist]") {
  LocalCommunicator one;
  test::replay_nccl_buckets(one, cpu_kernels());
}

TEST_CASE("dist: each GPU rank takes its own device, also when the launcher hides the others",
          "[dist]") {
  // A host that shows all its GPUs to all its ranks: local rank r takes device r.
  CHECK(choose_gpu(0, 1, 1, nullptr) == 0);
  CHECK(choose_gpu(1, 2, 2, nullptr) == 1);
  CHECK(choose_gpu(3, 4, 8, nullptr) == 3);
  CHECK(choose_gpu(1, 2, 2, "0,1") == 1);
  // A launcher that sets CUDA_VISIBLE_DEVICES per rank: every rank sees one device, number 0.
  for (int r = 0; r < 4; ++r) CHECK(choose_gpu(r, 4, 1, std::to_string(r).c_str()) == 0);
  CHECK(choose_gpu(3, 4, 2, "6,7") == 0);
  // Fewer devices than ranks and no launcher's choice: two ranks would share a GPU.
  CHECK_THROWS_WITH(choose_gpu(1, 2, 1, nullptr), Catch::Contains("one rank per GPU"));
  CHECK_THROWS_WITH(choose_gpu(1, 2, 1, ""), Catch::Contains("one rank per GPU"));
  CHECK_THROWS_WITH(choose_gpu(0, 1, 0, "7"), Catch::Contains("sees no CUDA device"));
  CHECK_THROWS_WITH(choose_gpu(2, 2, 4, nullptr), Catch::Contains("is not a rank"));
}
