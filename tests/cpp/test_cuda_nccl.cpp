// NCCL in the CUDA build (registered only there, tests/cpp/tests.cmake): a world of one GPU runs
// NCCL's own code paths. Without a CUDA device, or without NCCL in the toolkit, the case is
// reported as skipped (skip.hpp).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "kernels/kernels.hpp"
#include "layers/arena.hpp"
#include "parallel/bucketed_sync.hpp"
#include "parallel/communicator.hpp"
#include "parallel/nccl_communicator.hpp"
#include "parallel/world.hpp"
#include "skip.hpp"

using namespace attnlab;

// With one GPU, a world of one still runs NCCL's code: id through the file, sums, broadcast and
// the bucketed sync on device gradients.
TEST_CASE("cuda: nccl world of one reduces device gradients", "[cuda][nccl]") {
  if (!cuda_kernels()) ATTNLAB_SKIP("no CUDA device");
  if (!built_with_nccl()) ATTNLAB_SKIP("this CUDA build has no NCCL");
  const std::string id_file = "attnlab_test_nccl_id." + std::to_string(std::rand());
  WorldInfo one;
  NcclCommunicator comm(one, nullptr, id_file);
  CHECK_FALSE(std::ifstream(id_file).good());  // removed once every rank joined
  CHECK(comm.allreduce_int64(41, ReduceOp::Sum) == 41);
  CHECK(comm.allreduce_double(-1.5, ReduceOp::Min) == -1.5);
  comm.barrier();

  const KernelTable& g = *cuda_kernels();
  ParamArena P(g);
  P.add("w", {3000}, Init::Normal, 1.f);
  Rng rng(3);
  P.allocate(rng);
  std::vector<float> host(3000);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i) * 0.25f;
  g.upload(P.grads(), host.data(), host.size() * sizeof(float));
  const uint64_t before = param_checksum(P);
  broadcast_params(comm, P);
  CHECK(param_checksum(P) == before);

  BucketedGradientSync sync(comm, 1024 * sizeof(float));
  sync.begin(P, 8);
  sync.bucket_ready(0, 3000);
  CHECK(sync.buckets_started() == 3);
  CHECK(sync.reduce(P, 0.75, 8) == Approx(0.75));
  std::vector<float> got(3000);
  g.download(got.data(), P.grads(), got.size() * sizeof(float));
  CHECK(got == host);
}
