// NCCL in the CUDA build (registered only there, tests/cpp/tests.cmake): a world of one GPU runs
// NCCL's own code paths. Without a CUDA device, or without NCCL in the toolkit, the case is
// reported as skipped (skip.hpp).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

#include "bucket_replay.hpp"
#include "cuda_check.hpp"
#include "kernels/kernels.hpp"
#include "parallel/communicator.hpp"
#include "parallel/nccl_communicator.hpp"
#include "parallel/world.hpp"
#include "skip.hpp"

using namespace attnlab;

// With one GPU, a world of one still runs NCCL's code: id through the file, sums, broadcast and
// the bucketed sync on device gradients (bucket_replay.hpp; the CPU suite replays the same
// bookkeeping in test_dist.cpp).
TEST_CASE("cuda: nccl world of one reduces device gradients", "[cuda][nccl]") {
  REQUIRE_GPU_OR_SKIP();
  if (!built_with_nccl()) ATTNLAB_SKIP("no NCCL in this CUDA build (not found in the toolkit)");
  const std::string id_file = "attnlab_test_nccl_id." + std::to_string(std::rand());
  WorldInfo one;
  NcclCommunicator comm(one, nullptr, id_file);
  CHECK_FALSE(std::ifstream(id_file).good());  // removed once every rank joined
  CHECK(comm.allreduce_int64(41, ReduceOp::Sum) == 41);
  CHECK(comm.allreduce_double(-1.5, ReduceOp::Min) == -1.5);
  comm.barrier();

  test::replay_nccl_buckets(comm, *cuda_kernels());
}
