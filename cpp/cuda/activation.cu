// Bias + ReLU/GELU kernels (see activation.cuh): element-wise grid-stride loops, and a
// column-tiled reduction over rows for the bias gradient.
#include "cuda/activation.cuh"
#include "cuda/common.cuh"

namespace attnlab::cuda {

namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;
constexpr int kColTile = 32;
constexpr int kRowLanes = 8;

// gelu(z) = z/2 * (1 + tanh(u)), u = sqrt(2/pi) (z + 0.044715 z^3)
__device__ __forceinline__ float gelu(float z) {
  return 0.5f * z * (1.f + tanhf(kSqrt2OverPi * (z + kGeluCubic * z * z * z)));
}

// gelu'(z) = (1 + t)/2 + z/2 (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 z^2), t = tanh(u)
__device__ __forceinline__ float gelu_grad(float z) {
  const float t = tanhf(kSqrt2OverPi * (z + kGeluCubic * z * z * z));
  return 0.5f * (1.f + t) +
         0.5f * z * (1.f - t * t) * kSqrt2OverPi * (1.f + 3.f * kGeluCubic * z * z);
}

__global__ void bias_act_forward_kernel(float* y, float* pre, const float* x, const float* bias,
                                        Act act, long n, int C) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    const float z = x[i] + (bias ? bias[i % C] : 0.f);
    if (pre) pre[i] = z;
    y[i] = act == Act::ReLU ? fmaxf(z, 0.f) : act == Act::GELU ? gelu(z) : z;
  }
}

__global__ void act_backward_kernel(float* dx, const float* dy, const float* pre, Act act, long n) {
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x) {
    float d = dy[i];
    if (act == Act::ReLU) d = pre[i] > 0.f ? d : 0.f;
    if (act == Act::GELU) d *= gelu_grad(pre[i]);
    dx[i] = d;
  }
}

// Block (kColTile, kRowLanes): kColTile columns, threads striding down the rows.
__global__ void column_sum_kernel(float* dst, const float* src, int R, int C) {
  __shared__ float part[kRowLanes][kColTile];
  const int c = blockIdx.x * kColTile + threadIdx.x;
  float s = 0.f;
  if (c < C)
    for (int r = blockIdx.y * kRowLanes + threadIdx.y; r < R; r += gridDim.y * kRowLanes)
      s += src[size_t(r) * C + c];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    for (int k = 1; k < kRowLanes; ++k) s += part[k][threadIdx.x];
    atomicAdd(dst + c, s);
  }
}

}  // namespace

void bias_act_forward(float* y, float* pre, const float* x, const float* bias, Act act, int R,
                      int C) {
  const long n = long(R) * C;
  if (n == 0) return;
  bias_act_forward_kernel<<<grid_for(n), kThreads>>>(y, pre, x, bias, act, n, C);
  AL_CUDA_LAUNCHED();
}

void bias_act_backward(float* dx, float* dbias, const float* dy, const float* pre, Act act, int R,
                       int C) {
  const long n = long(R) * C;
  if (n == 0) return;
  act_backward_kernel<<<grid_for(n), kThreads>>>(dx, dy, pre, act, n);
  AL_CUDA_LAUNCHED();
  if (dbias) column_sum_accumulate(dbias, dx, R, C);
}

void column_sum_accumulate(float* dst, const float* src, int R, int C) {
  if (R == 0 || C == 0) return;
  const int col_blocks = (C + kColTile - 1) / kColTile;
  const int row_blocks = (R + kRowLanes * 16 - 1) / (kRowLanes * 16);
  const dim3 grid(col_blocks, row_blocks > 1024 ? 1024 : row_blocks);
  column_sum_kernel<<<grid, dim3(kColTile, kRowLanes)>>>(dst, src, R, C);
  AL_CUDA_LAUNCHED();
}

}  // namespace attnlab::cuda
