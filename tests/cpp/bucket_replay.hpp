// The bucket bookkeeping of the NCCL case (test_cuda_nccl.cpp) on any kernel table and
// communicator: the CUDA build runs it on the GPU through NCCL, the ordinary CPU suite replays it
// with the CPU table and the world of one (test_dist.cpp), so a mistake in its arithmetic
// shows up without a GPU.
#pragma once
#include <catch2/catch.hpp>
#include <vector>

#include "core/rng.hpp"
#include "kernels/kernels.hpp"
#include "layers/arena.hpp"
#include "parallel/bucketed_sync.hpp"
#include "parallel/communicator.hpp"

namespace attnlab::test {

// One 3000-float parameter in buckets of 1024 floats. The arena pads every parameter to 16
// floats, so the gradient block has 3008 floats: the tail bucket [2048, 3008) starts only once
// the padding is reported too (a model's backward reports each parameter with its padding).
inline void replay_nccl_buckets(Communicator& comm, const KernelTable& kt) {
  ParamArena P(kt);
  P.add("w", {3000}, Init::Normal, 1.f);
  Rng rng(3);
  P.allocate(rng);
  const size_t total = size_t(P.total());
  REQUIRE(total == 3008);
  std::vector<float> host(total);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i) * 0.25f;
  kt.upload(P.grads(), host.data(), host.size() * sizeof(float));
  const uint64_t before = param_checksum(P);
  broadcast_params(comm, P);
  CHECK(param_checksum(P) == before);

  BucketedGradientSync sync(comm, 1024 * sizeof(float));
  sync.begin(P, 8);
  REQUIRE(sync.buckets().size() == 3);
  CHECK(sync.buckets().back().n == total - 2048);
  sync.bucket_ready(0, 3000);  // the parameter's own floats: the tail bucket lacks its padding
  CHECK(sync.buckets_started() == 0);
  sync.bucket_ready(3000, total - 3000);  // the padding: every bucket complete, all started
  CHECK(sync.buckets_started() == 3);
  CHECK(sync.reduce(P, 0.75, 8) == Approx(0.75));
  std::vector<float> got(total);
  kt.download(got.data(), P.grads(), got.size() * sizeof(float));
  CHECK(got == host);  // a world of one: n_r / N = 1, the sum is the rank's own gradient
}

}  // namespace attnlab::test
