// Adam and vector kernels (see optimizer.cuh): grid-stride loops over n elements; sumsq
// accumulates per-block partial sums in double into one device scalar, then copies it back.
#include <algorithm>
#include <cmath>

#include "cuda/common.cuh"
#include "cuda/optimizer.cuh"

namespace attnlab::cuda {

namespace {

// Adam (Kingma & Ba 2015) with AdamW's decoupled decay (Loshchilov & Hutter 2019):
// m = b1 m + (1-b1) g ; v = b2 v + (1-b2) g^2 ; p -= lr (m/bc1 / (sqrt(v/bc2) + eps) + wd p)
__global__ void adam_kernel(float* p, float* m, float* v, const float* g, long n, float lr,
                            float beta1, float beta2, float eps, float wd, float inv_bc1,
                            float inv_bc2) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    const float gi = g[i];
    const float mi = beta1 * m[i] + (1.f - beta1) * gi;
    const float vi = beta2 * v[i] + (1.f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr * (mi * inv_bc1 / (sqrtf(vi * inv_bc2) + eps) + wd * p[i]);
  }
}

__global__ void axpy_kernel(float* y, float alpha, const float* x, long n) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    y[i] += alpha * x[i];
}

__global__ void scale_kernel(float* y, float alpha, const float* x, long n) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    y[i] = alpha * x[i];
}

__global__ void sumsq_kernel(double* out, const float* x, long n) {
  __shared__ double part[kThreads];
  double s = 0.0;
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    s += double(x[i]) * x[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

constexpr int kReduceBlocks = 1024;  // enough to fill the GPU; few atomics on the scalar

}  // namespace

void adam(float* p, float* m, float* v, const float* g, long n, float lr, float beta1, float beta2,
          float eps, float wd, int t) {
  if (n == 0) return;
  const double bc1 = 1.0 - std::pow(double(beta1), t), bc2 = 1.0 - std::pow(double(beta2), t);
  adam_kernel<<<grid_for(n), kThreads>>>(p, m, v, g, n, lr, beta1, beta2, eps, wd, float(1.0 / bc1),
                                         float(1.0 / bc2));
  AL_CUDA_LAUNCHED();
}

void axpy(float* y, float alpha, const float* x, long n) {
  if (n == 0) return;
  axpy_kernel<<<grid_for(n), kThreads>>>(y, alpha, x, n);
  AL_CUDA_LAUNCHED();
}

void scale(float* y, float alpha, const float* x, long n) {
  if (n == 0) return;
  scale_kernel<<<grid_for(n), kThreads>>>(y, alpha, x, n);
  AL_CUDA_LAUNCHED();
}

void sumsq(float* out_host, const float* x, long n) {
  static double* acc = [] {
    double* d = nullptr;
    AL_CUDA_CHECK(cudaMalloc(&d, sizeof(double)));
    return d;
  }();
  AL_CUDA_CHECK(cudaMemset(acc, 0, sizeof(double)));
  if (n > 0) {
    const int blocks = std::min(grid_for(n), kReduceBlocks);
    sumsq_kernel<<<blocks, kThreads>>>(acc, x, n);
    AL_CUDA_LAUNCHED();
  }
  double s = 0.0;
  AL_CUDA_CHECK(cudaMemcpy(&s, acc, sizeof(double), cudaMemcpyDeviceToHost));
  *out_host = float(s);
}

}  // namespace attnlab::cuda
