// Masked softmax kernels (see softmax.cuh). A warp owns a row [S]: it finds the max over the
// unmasked keys, sums the exponentials, then writes the normalised row; each lane rereads only
// the entries it will overwrite, which makes x == y safe.
#include "cuda/common.cuh"
#include "cuda/softmax.cuh"

namespace attnlab::cuda {

namespace {

constexpr int kRowsPerBlock = kThreads / kWarp;

// Row r = ((b*H + h)*T + i); key j masked by padding of batch b or by the causal rule
// j > i + (S - T) (queries are the last T of S positions).
__global__ void softmax_forward_kernel(float* y, const float* x, float scale,
                                       const uint8_t* key_pad, bool causal, int H, int T, int S,
                                       long R) {
  const long r = long(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
  if (r >= R) return;
  const int lane = threadIdx.x % kWarp;
  const int i = int(r % T);
  const long b = r / (long(H) * T);
  const float* xr = x + r * S;
  float* yr = y + r * S;
  const uint8_t* pad = key_pad ? key_pad + b * S : nullptr;
  const int limit = causal ? i + (S - T) : S - 1;  // last visible key
  auto visible = [&](int j) { return j <= limit && !(pad && pad[j]); };

  float mx = -INFINITY;
  for (int j = lane; j < S; j += kWarp)
    if (visible(j)) mx = fmaxf(mx, xr[j] * scale);
  mx = warp_max(mx);
  float sum = 0.f;
  if (mx != -INFINITY)
    for (int j = lane; j < S; j += kWarp)
      if (visible(j)) sum += expf(xr[j] * scale - mx);
  sum = warp_sum(sum);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  for (int j = lane; j < S; j += kWarp)
    yr[j] = visible(j) && inv > 0.f ? expf(xr[j] * scale - mx) * inv : 0.f;
}

// dx = scale * y * (dy - <dy, y>) over each row: the Jacobian of softmax applied to dy.
__global__ void softmax_backward_kernel(float* dx, const float* y, const float* dy, float scale,
                                        int S, long R) {
  const long r = long(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
  if (r >= R) return;
  const int lane = threadIdx.x % kWarp;
  const float* yr = y + r * S;
  const float* dyr = dy + r * S;
  float* dxr = dx + r * S;
  float dot = 0.f;
  for (int j = lane; j < S; j += kWarp) dot += dyr[j] * yr[j];
  dot = warp_sum(dot);
  for (int j = lane; j < S; j += kWarp) dxr[j] = scale * yr[j] * (dyr[j] - dot);
}

int row_blocks(long R) { return int((R + kRowsPerBlock - 1) / kRowsPerBlock); }

}  // namespace

void softmax_forward(float* y, const float* x, float scale, const uint8_t* key_pad, bool causal,
                     int B, int H, int T, int S) {
  const long R = long(B) * H * T;
  if (R == 0 || S == 0) return;
  softmax_forward_kernel<<<row_blocks(R), kThreads>>>(y, x, scale, key_pad, causal, H, T, S, R);
  AL_CUDA_LAUNCHED();
}

void softmax_backward(float* dx, const float* y, const float* dy, float scale, int R, int S) {
  if (R == 0 || S == 0) return;
  softmax_backward_kernel<<<row_blocks(R), kThreads>>>(dx, y, dy, scale, S, R);
  AL_CUDA_LAUNCHED();
}

}  // namespace attnlab::cuda
