// The data-parallel collectives across real processes, run by tests/dist/mpi_test.sh under
// `mpirun -np 2`. Modes:
//   sums      sums, scalars and broadcasts against values computed by hand; the bucketed sync
//             with unequal token counts per rank (all buckets at once, and bucket_ready());
//             broadcast of rank 0's parameters; an MPI error (bad root) as an Error on every rank
//   mismatch  ranks pass different configs: every rank prints the same clear error, exits 3
//   kill      rank 1 SIGKILLs itself between all-reduces; the job must end, not hang
// Each rank prints "rank R: ..." lines; exit 0 means every check held.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "layers/arena.hpp"
#include "core/rng.hpp"
#include "parallel/bucketed_sync.hpp"
#include "parallel/communicator.hpp"
#include "parallel/world.hpp"
#include "kernels/kernels.hpp"

using namespace attnlab;

namespace {

int failures = 0;
int me = -1;

void check(bool ok, const std::string& what) {
  if (ok) return;
  std::printf("rank %d: FAIL %s\n", me, what.c_str());
  ++failures;
}

// Rank r's gradient float i and target-token count: every rank can compute every rank's.
float grad_of(int r, long i) {
  return float(std::sin(0.01 * double(i) + r)) * float(r + 1);
}
int64_t tokens_of(int r) {
  return 3 + 5 * r;
}  // unequal on purpose
double loss_of(int r) {
  return 1.0 + 0.5 * r;
}

void fill(ParamArena& P, int r) {
  for (long i = 0; i < P.total(); ++i) P.grads()[i] = grad_of(r, i);
}

// P's gradients must be sum_r n_r g_r / N and loss sum_r n_r L_r / N.
void check_global_mean(const ParamArena& P, double loss, int size, const char* how) {
  int64_t N = 0;
  double want_loss = 0;
  for (int r = 0; r < size; ++r) {
    N += tokens_of(r);
    want_loss += double(tokens_of(r)) * loss_of(r);
  }
  want_loss /= double(N);
  check(std::abs(loss - want_loss) < 1e-12, std::string(how) + ": global mean loss");
  for (long i = 0; i < P.total(); ++i) {
    double want = 0;
    for (int r = 0; r < size; ++r) want += double(tokens_of(r)) * double(grad_of(r, i));
    want /= double(N);
    if (std::abs(P.grads()[i] - want) > 1e-6 + 1e-6 * std::abs(want)) {
      check(false, std::string(how) + ": gradient " + std::to_string(i) + " is " +
                       std::to_string(P.grads()[i]) + ", want " + std::to_string(want));
      return;
    }
  }
}

void sums(Communicator& c) {
  const int R = c.size();
  // Float sums by hand: rank r holds (r+1)*i + 0.5, small integers and halves add exactly.
  std::vector<float> v(1000), w(77);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float((me + 1) * int(i)) + 0.5f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(me * 100);
  c.iallreduce_sum(v.data(), 600);
  c.iallreduce_sum(v.data() + 600, 400);
  c.iallreduce_sum(w.data(), w.size());
  c.wait_all();
  const int tri = R * (R + 1) / 2;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != float(tri * int(i)) + 0.5f * float(R)) {
      check(false, "allreduce element " + std::to_string(i) + " = " + std::to_string(v[i]));
      break;
    }
  check(w[76] == float(100 * (R - 1) * R / 2), "second allreduce buffer");
  c.allreduce_sum(v.data(), 1);
  check(v[0] == 0.5f * float(R) * float(R), "blocking allreduce");
  check(c.allreduce_int64(me + 1, ReduceOp::Sum) == tri, "int64 sum");
  check(c.allreduce_int64(me + 1, ReduceOp::Max) == R, "int64 max");
  check(c.allreduce_int64(me + 1, ReduceOp::Min) == 1, "int64 min");
  check(c.allreduce_double(0.25 * me, ReduceOp::Sum) == 0.25 * (R - 1) * R / 2, "double sum");
  int64_t token = me == 1 ? 424242 : -1;
  c.broadcast(&token, sizeof token, 1);
  check(token == 424242, "broadcast from rank 1");
  c.barrier();

  // The bucketed sync, all buckets after backward (buckets of 100 floats).
  ParamArena P(cpu_kernels());
  P.add("w", {1234}, Init::Normal, 1.f);
  Rng rng(uint64_t(100 + me));  // different values per rank, until broadcast
  P.allocate(rng);
  BucketedGradientSync sync(c, 100 * sizeof(float));
  fill(P, me);
  check_global_mean(P, sync.reduce(P, loss_of(me), tokens_of(me)), R, "reduce");
  int64_t N = 0;
  for (int r = 0; r < R; ++r) N += tokens_of(r);
  check(sync.global_tokens() == N, "global tokens");
  // The same step with buckets reported as a backward pass finishes them, in odd pieces.
  fill(P, me);
  sync.begin(P, tokens_of(me));
  for (long end = P.total(); end > 0; end -= 70) {  // 1248: the arena pads to 16 floats
    const long begin = std::max(0L, end - 70);
    sync.bucket_ready(size_t(begin), size_t(end - begin));
  }
  check(sync.buckets_started() == sync.buckets().size() && sync.buckets().size() == 13,
        "every bucket started by bucket_ready");
  check_global_mean(P, sync.reduce(P, loss_of(me), tokens_of(me)), R, "bucket_ready");

  // Parameters: different before the broadcast (a clear error), equal after it.
  bool threw = false;
  try {
    require_same_on_all_ranks(c, param_checksum(P), "the parameters");
  } catch (const Error& e) {
    threw = std::strstr(e.what(), "the ranks disagree on the parameters") != nullptr;
  }
  check(threw, "different parameters detected");
  broadcast_params(c, P, 0);
  require_same_on_all_ranks(c, param_checksum(P), "the parameters");
  Rng rng0(100);
  ParamArena P0(cpu_kernels());
  P0.add("w", {1234}, Init::Normal, 1.f);
  P0.allocate(rng0);
  check(std::memcmp(P.values(), P0.values(), 1234 * sizeof(float)) == 0, "rank 0's values");

  // MPI_ERRORS_RETURN: a bad root comes back as an Error on every rank, and the job goes on.
  threw = false;
  try {
    c.broadcast(&token, sizeof token, R + 5);
  } catch (const Error& e) {
    threw = std::strstr(e.what(), "MPI_Bcast failed on rank") != nullptr;
    if (!threw) std::printf("rank %d: unexpected error text: %s\n", me, e.what());
  }
  check(threw, "bad root is an attnlab::Error");
  c.barrier();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "sums" && mode != "mismatch" && mode != "kill") {
    std::fprintf(stderr, "usage: mpirun -np 2 attnlab_dist_test sums|mismatch|kill\n");
    return 2;
  }
  try {
    World world(&argc, &argv);
    me = world.rank();
    auto comm = make_communicator(world.info(), false);
    if (world.size() < 2) {
      std::printf("rank %d: needs at least 2 ranks (run under mpirun -np 2)\n", me);
      return 2;
    }
    if (mode == "sums") {
      sums(*comm);
      std::printf("rank %d: %s\n", me, failures ? "FAILED" : "sums ok");
      std::fflush(stdout);
      return failures ? 1 : 0;
    }
    if (mode == "mismatch") {
      const std::string cfg = "--batch " + std::to_string(me == 1 ? 11 : 10);
      try {
        require_same_on_all_ranks(*comm, fnv1a(cfg.data(), cfg.size()), "the model config");
      } catch (const Error& e) {
        std::printf("rank %d: error: %s\n", me, e.what());
        std::fflush(stdout);
        return 3;
      }
      std::printf("rank %d: FAIL no error for different configs\n", me);
      return 1;
    }
    // kill: rank 1 dies between all-reduces; the survivors must not outlive it by long.
    // An Error here (MPI returned the failure instead of mpirun ending the job) ends every rank.
    const auto t0 = std::chrono::steady_clock::now();
    try {
      for (int step = 0;; ++step) {
        if (me == 1 && step == 20) std::raise(SIGKILL);
        float x = 1.f;
        comm->allreduce_sum(&x, 1);
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(30)) {
          std::printf("rank %d: FAIL still running 30 s after the kill\n", me);
          return 0;  // exit 0 after a lost rank is what the test rejects
        }
      }
    } catch (const Error& e) {
      std::printf("rank %d: error: %s\n", me, e.what());
      world.abort(1);
    }
  } catch (const Error& e) {
    std::printf("rank %d: error: %s\n", me, e.what());
    std::fflush(stdout);
    return 1;
  }
}
