// Embedding and dropout kernels (see embedding_dropout.cuh): grid-stride loops with one thread
// per element of [R,C] or [n]; the scatter-add uses atomicAdd into dW, the mask is hashed per
// element from (seed, offset + i).
#include "cuda/common.cuh"
#include "cuda/embedding_dropout.cuh"
#include "kernels/counter_hash.hpp"

namespace attnlab::cuda {

namespace {

// out[r,c] = scale * W[ids[r],c]
__global__ void embedding_forward_kernel(float* out, const float* W, const int32_t* ids, long n,
                                         int C, float scale) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    const long r = i / C, c = i - r * C;
    out[i] = scale * W[long(ids[r]) * C + c];
  }
}

// dW[ids[r],c] += scale * dout[r,c]
__global__ void embedding_backward_kernel(float* dW, const float* dout, const int32_t* ids, long n,
                                          int C, float scale) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    const long r = i / C, c = i - r * C;
    atomicAdd(dW + long(ids[r]) * C + c, scale * dout[i]);
  }
}

__global__ void dropout_forward_kernel(float* y, float* mask, const float* x, long n, uint64_t seed,
                                       uint64_t offset, uint32_t threshold, float keep) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    const float m = counter_hash::dropout_mask(seed, offset + uint64_t(i), threshold, keep);
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

__global__ void dropout_backward_kernel(float* dx, const float* mask, const float* dy, long n) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    dx[i] = dy[i] * mask[i];
}

}  // namespace

void embedding_forward(float* out, const float* W, const int32_t* ids, int R, int C, float scale) {
  const long n = long(R) * C;
  if (n == 0) return;
  embedding_forward_kernel<<<grid_for(n), kThreads>>>(out, W, ids, n, C, scale);
  AL_CUDA_LAUNCHED();
}

void embedding_backward(float* dW, const float* dout, const int32_t* ids, int R, int C,
                        float scale) {
  const long n = long(R) * C;
  if (n == 0) return;
  embedding_backward_kernel<<<grid_for(n), kThreads>>>(dW, dout, ids, n, C, scale);
  AL_CUDA_LAUNCHED();
}

void dropout_forward(float* y, float* mask, const float* x, long n, float p, uint64_t seed,
                     uint64_t offset) {
  if (n == 0) return;
  // Threshold and keep scale computed on the host exactly as the CPU table does.
  const uint32_t threshold = counter_hash::drop_threshold(p);
  const float keep = 1.f / (1.f - p);
  dropout_forward_kernel<<<grid_for(n), kThreads>>>(y, mask, x, n, seed, offset, threshold, keep);
  AL_CUDA_LAUNCHED();
}

void dropout_backward(float* dx, const float* mask, const float* dy, long n) {
  if (n == 0) return;
  dropout_backward_kernel<<<grid_for(n), kThreads>>>(dx, mask, dy, n);
  AL_CUDA_LAUNCHED();
}

}  // namespace attnlab::cuda
