// LayerNorm kernels (see layernorm.cuh). Row statistics: one warp per row, two passes (mean,
// then centred variance) for accuracy. Parameter gradients: a column-tiled reduction over rows,
// one atomicAdd per column per tile of rows.
#include "cuda/common.cuh"
#include "cuda/layernorm.cuh"

namespace attnlab::cuda {

namespace {

constexpr int kRowsPerBlock = kThreads / kWarp;
constexpr int kColTile = 32;  // columns per block in the dgamma/dbeta reduction
constexpr int kRowLanes = 8;  // threads down the rows in that reduction

__global__ void layernorm_forward_kernel(float* y, float* mean, float* rstd, const float* x,
                                         const float* gamma, const float* beta, float eps, int R,
                                         int C) {
  const int r = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarp;
  if (r >= R) return;
  const int lane = threadIdx.x % kWarp;
  const float* xr = x + size_t(r) * C;
  float s = 0.f;
  for (int c = lane; c < C; c += kWarp) s += xr[c];
  const float m = warp_sum(s) / C;
  float v = 0.f;
  for (int c = lane; c < C; c += kWarp) v += (xr[c] - m) * (xr[c] - m);
  const float rs = rsqrtf(warp_sum(v) / C + eps);
  float* yr = y + size_t(r) * C;
  for (int c = lane; c < C; c += kWarp) yr[c] = (xr[c] - m) * rs * gamma[c] + beta[c];
  if (lane == 0) {
    mean[r] = m;
    rstd[r] = rs;
  }
}

// With g = dy * gamma and xhat = (x - mean) * rstd:
// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)).
__global__ void layernorm_dx_kernel(float* dx, const float* dy, const float* x, const float* mean,
                                    const float* rstd, const float* gamma, int R, int C) {
  const int r = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarp;
  if (r >= R) return;
  const int lane = threadIdx.x % kWarp;
  const size_t o = size_t(r) * C;
  const float m = mean[r], rs = rstd[r];
  float s1 = 0.f, s2 = 0.f;
  for (int c = lane; c < C; c += kWarp) {
    const float g = dy[o + c] * gamma[c];
    s1 += g;
    s2 += g * (x[o + c] - m) * rs;
  }
  s1 = warp_sum(s1) / C;
  s2 = warp_sum(s2) / C;
  for (int c = lane; c < C; c += kWarp) {
    const float xhat = (x[o + c] - m) * rs;
    dx[o + c] = rs * (dy[o + c] * gamma[c] - s1 - xhat * s2);
  }
}

// dgamma[c] += sum_r dy[r,c] * xhat[r,c] ; dbeta[c] += sum_r dy[r,c].
// Block (kColTile, kRowLanes) covers kColTile columns and strides through rows.
__global__ void layernorm_dparams_kernel(float* dgamma, float* dbeta, const float* dy,
                                         const float* x, const float* mean, const float* rstd,
                                         int R, int C) {
  __shared__ float sg[kRowLanes][kColTile];
  __shared__ float sb[kRowLanes][kColTile];
  const int c = blockIdx.x * kColTile + threadIdx.x;
  float g = 0.f, b = 0.f;
  if (c < C)
    for (int r = blockIdx.y * kRowLanes + threadIdx.y; r < R; r += gridDim.y * kRowLanes) {
      const size_t i = size_t(r) * C + c;
      g += dy[i] * (x[i] - mean[r]) * rstd[r];
      b += dy[i];
    }
  sg[threadIdx.y][threadIdx.x] = g;
  sb[threadIdx.y][threadIdx.x] = b;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    for (int k = 1; k < kRowLanes; ++k) {
      g += sg[k][threadIdx.x];
      b += sb[k][threadIdx.x];
    }
    atomicAdd(dgamma + c, g);
    atomicAdd(dbeta + c, b);
  }
}

}  // namespace

void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, float eps, int R, int C) {
  if (R == 0 || C == 0) return;
  const int blocks = (R + kRowsPerBlock - 1) / kRowsPerBlock;
  layernorm_forward_kernel<<<blocks, kThreads>>>(y, mean, rstd, x, gamma, beta, eps, R, C);
  AL_CUDA_LAUNCHED();
}

void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int R, int C) {
  if (R == 0 || C == 0) return;
  // Parameter gradients first, so the dx pass may even overwrite dy in place.
  const int col_blocks = (C + kColTile - 1) / kColTile;
  const int row_blocks = (R + kRowLanes * 16 - 1) / (kRowLanes * 16);  // ~16 rows per thread
  const dim3 grid(col_blocks, row_blocks < 1 ? 1 : (row_blocks > 1024 ? 1024 : row_blocks));
  layernorm_dparams_kernel<<<grid, dim3(kColTile, kRowLanes)>>>(dgamma, dbeta, dy, x, mean, rstd, R,
                                                                C);
  AL_CUDA_LAUNCHED();
  const int blocks = (R + kRowsPerBlock - 1) / kRowsPerBlock;
  layernorm_dx_kernel<<<blocks, kThreads>>>(dx, dy, x, mean, rstd, gamma, R, C);
  AL_CUDA_LAUNCHED();
}

}  // namespace attnlab::cuda
