// Shared helpers for the CUDA kernel table: error checks that throw attnlab::Error, launch
// sizes, and warp/block sum and max reductions used by the row kernels.
// Every kernel here runs on the legacy default stream, so calls are ordered like CPU calls.
#pragma once
#include <cuda_runtime.h>

#include "core/check.hpp"

#define AL_CUDA_CHECK(expr)                                                         \
  do {                                                                              \
    const cudaError_t al_cuda_err_ = (expr);                                        \
    AL_CHECK(al_cuda_err_ == cudaSuccess,                                           \
             "CUDA error: " << cudaGetErrorString(al_cuda_err_) << " (" #expr ")"); \
  } while (0)

// After a launch: report a bad configuration at the call that made it.
#define AL_CUDA_LAUNCHED() AL_CUDA_CHECK(cudaGetLastError())

namespace attnlab::cuda {

constexpr int kWarp = 32;
constexpr int kThreads = 256;  // threads per block for element-wise and row kernels

// Blocks for a grid-stride loop over n elements (capped; the loop covers the rest).
inline int grid_for(long n, int threads = kThreads) {
  const long b = (n + threads - 1) / threads;
  return int(b < 1 ? 1 : (b > 65535L * 8 ? 65535L * 8 : b));
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Sum (or max) over the whole block; every thread gets the result. `scratch` holds one float
// per warp; the trailing __syncthreads lets the caller reuse it at once.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x % kWarp, w = threadIdx.x / kWarp, nw = blockDim.x / kWarp;
  v = warp_sum(v);
  if (lane == 0) scratch[w] = v;
  __syncthreads();
  v = lane < nw ? scratch[lane] : 0.f;
  v = warp_sum(v);
  __syncthreads();
  return v;
}

__device__ __forceinline__ float block_max(float v, float* scratch) {
  const int lane = threadIdx.x % kWarp, w = threadIdx.x / kWarp, nw = blockDim.x / kWarp;
  v = warp_max(v);
  if (lane == 0) scratch[w] = v;
  __syncthreads();
  v = lane < nw ? scratch[lane] : -INFINITY;
  v = warp_max(v);
  __syncthreads();
  return v;
}

}  // namespace attnlab::cuda
