// Fused cross-entropy (see cross_entropy.cuh). With lse = log sum_v exp(x_v) and
// q_v = off + (on - off) [v == t], on = 1 - eps + eps/V, off = eps/V:
//   loss = -sum_v q_v (x_v - lse) = (on - off)(lse - x_t) + off (V lse - sum_v x_v)
//   dloss/dx_v = softmax_v - q_v
// Three block reductions (max, sum exp, sum x) precede the write pass, so logits may be
// overwritten by dlogits in place.
#include "cuda/common.cuh"
#include "cuda/cross_entropy.cuh"

namespace attnlab::cuda {

namespace {

constexpr int kCeThreads = 512;

__global__ void cross_entropy_kernel(float* loss, float* dlogits, const float* logits,
                                     const int32_t* targets, float smoothing, int ignore_index,
                                     float grad_scale, int V) {
  __shared__ float scratch[kCeThreads / kWarp];
  const long r = blockIdx.x;
  const float* x = logits + r * V;
  float* d = dlogits + r * V;
  const int t = targets[r];
  if (t == ignore_index) {
    for (int v = threadIdx.x; v < V; v += blockDim.x) d[v] = 0.f;
    if (threadIdx.x == 0) loss[r] = 0.f;
    return;
  }
  float mx = -INFINITY;
  for (int v = threadIdx.x; v < V; v += blockDim.x) mx = fmaxf(mx, x[v]);
  mx = block_max(mx, scratch);
  float se = 0.f, sx = 0.f;
  for (int v = threadIdx.x; v < V; v += blockDim.x) {
    se += expf(x[v] - mx);
    sx += x[v];
  }
  se = block_sum(se, scratch);
  sx = block_sum(sx, scratch);
  const float lse = mx + logf(se);
  const float off = smoothing / V, on = 1.f - smoothing + off;
  const float xt = x[t];  // every thread reads x_t before any thread writes d
  __syncthreads();
  if (threadIdx.x == 0) loss[r] = (on - off) * (lse - xt) + off * (float(V) * lse - sx);
  for (int v = threadIdx.x; v < V; v += blockDim.x) {
    const float q = v == t ? on : off;
    d[v] = grad_scale * (expf(x[v] - lse) - q);
  }
}

}  // namespace

void cross_entropy(float* loss, float* dlogits, const float* logits, const int32_t* targets,
                   float smoothing, int ignore_index, float grad_scale, int R, int V) {
  if (R == 0) return;
  cross_entropy_kernel<<<R, kCeThreads>>>(loss, dlogits, logits, targets, smoothing, ignore_index,
                                          grad_scale, V);
  AL_CUDA_LAUNCHED();
}

}  // namespace attnlab::cuda
