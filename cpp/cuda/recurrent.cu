// Recurrent-cell kernels (see recurrent.cuh and kernels/recurrent.hpp for the derivatives).
// Each thread owns one (row, column) element, so every in-place alias the contracts allow is
// safe: an element is read before the same thread overwrites it.
#include "cuda/activation.cuh"
#include "cuda/common.cuh"
#include "cuda/recurrent.cuh"

namespace attnlab::cuda {

namespace {

__device__ __forceinline__ float sigm(float x) { return 1.f / (1.f + expf(-x)); }

#define AL_FOR_EACH(i, n)                                             \
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += long(gridDim.x) * blockDim.x)

__global__ void tanh_bias_fwd(float* y, const float* x, const float* bias, long n, int C) {
  AL_FOR_EACH(i, n) y[i] = tanhf(x[i] + (bias ? bias[i % C] : 0.f));
}

// d tanh(u)/du = 1 - tanh(u)^2
__global__ void tanh_bwd(float* dx, const float* dy, const float* y, long n) {
  AL_FOR_EACH(i, n) dx[i] = dy[i] * (1.f - y[i] * y[i]);
}

__global__ void gru_gates_fwd(float* zr, float* rh, const float* xg, const float* hg,
                              const float* h_prev, int B, int C) {
  AL_FOR_EACH(i, long(B) * 2 * C) {
    const long b = i / (2 * C);
    const int j = int(i % (2 * C));
    const float g = sigm(xg[b * 3 * C + j] + hg[i]);
    zr[i] = g;
    if (j >= C) rh[b * C + j - C] = g * h_prev[b * C + j - C];
  }
}

// rh = r h  =>  d(r pre) = drh h r (1 - r), dh_prev += drh r
__global__ void gru_gates_bwd(float* dxg, float* dh_prev, const float* drh, const float* zr,
                              const float* h_prev, int B, int C) {
  AL_FOR_EACH(i, long(B) * C) {
    const long b = i / C;
    const int j = int(i % C);
    const float r = zr[b * 2 * C + C + j], g = drh[i];
    dxg[b * 3 * C + C + j] = g * h_prev[i] * r * (1.f - r);
    dh_prev[i] += g * r;
  }
}

__global__ void gru_cell_fwd(float* h, float* cand, const float* xg, const float* hc,
                             const float* zr, const float* h_prev, int B, int C) {
  AL_FOR_EACH(i, long(B) * C) {
    const long b = i / C;
    const int j = int(i % C);
    const float z = zr[b * 2 * C + j];
    const float u = tanhf(xg[b * 3 * C + 2 * C + j] + hc[i]);
    cand[i] = u;
    h[i] = (1.f - z) * h_prev[i] + z * u;
  }
}

// h = (1-z) h_prev + z u  =>  dz = dh (u - h_prev), du = dh z, dh_prev = dh (1-z)
__global__ void gru_cell_bwd(float* dxg, float* dh_prev, const float* dh, const float* zr,
                             const float* cand, const float* h_prev, int B, int C) {
  AL_FOR_EACH(i, long(B) * C) {
    const long b = i / C;
    const int j = int(i % C);
    const float z = zr[b * 2 * C + j], u = cand[i], g = dh[i], hp = h_prev[i];
    dxg[b * 3 * C + j] = g * (u - hp) * z * (1.f - z);
    dxg[b * 3 * C + 2 * C + j] = g * z * (1.f - u * u);
    dh_prev[i] = g * (1.f - z);
  }
}

__global__ void lstm_cell_fwd(float* h, float* c, float* act, float* tc, const float* pre,
                              const float* c_prev, int B, int C) {
  AL_FOR_EACH(i, long(B) * C) {
    const long b = i / C;
    const int j = int(i % C);
    const float* p = pre + b * 4 * C;
    float* a = act + b * 4 * C;
    const float ig = sigm(p[j]), fg = sigm(p[C + j]), gg = tanhf(p[2 * C + j]),
                og = sigm(p[3 * C + j]);
    a[j] = ig;
    a[C + j] = fg;
    a[2 * C + j] = gg;
    a[3 * C + j] = og;
    const float ci = fg * c_prev[i] + ig * gg;
    c[i] = ci;
    tc[i] = tanhf(ci);
    h[i] = og * tanhf(ci);
  }
}

// h = o tanh(c), c = f c_prev + i g  =>  dc = dc_in + dh o (1 - tanh(c)^2);
// di = dc g, df = dc c_prev, dg = dc i, do = dh tanh(c), each times its activation's slope.
__global__ void lstm_cell_bwd(float* dpre, float* dc_prev, const float* dh, const float* dc,
                              const float* act, const float* c_prev, const float* tc, int B,
                              int C) {
  AL_FOR_EACH(i, long(B) * C) {
    const long b = i / C;
    const int j = int(i % C);
    const float* a = act + b * 4 * C;
    float* d = dpre + b * 4 * C;
    const float ig = a[j], fg = a[C + j], gg = a[2 * C + j], og = a[3 * C + j];
    const float dct = (dc ? dc[i] : 0.f) + dh[i] * og * (1.f - tc[i] * tc[i]);
    d[j] = dct * gg * ig * (1.f - ig);
    d[C + j] = dct * c_prev[i] * fg * (1.f - fg);
    d[2 * C + j] = dct * ig * (1.f - gg * gg);
    d[3 * C + j] = dh[i] * tc[i] * og * (1.f - og);
    dc_prev[i] = dct * fg;
  }
}

// -log p_t over already-normalised probabilities  =>  d u = p - onehot(t)
__global__ void probs_xent_kernel(float* loss, float* dlogits, const float* p,
                                  const int32_t* targets, float scale, int R, int S) {
  AL_FOR_EACH(i, long(R) * S) {
    const long r = i / S;
    const int j = int(i % S), t = targets[r];
    const float pj = p[i];
    if (t < 0) {
      dlogits[i] = 0.f;
      if (j == 0) loss[r] = 0.f;
      continue;
    }
    if (j == t) loss[r] = -logf(fmaxf(pj, 1e-12f));
    dlogits[i] = scale * (pj - (j == t ? 1.f : 0.f));
  }
}

// Additive scores: one warp per (s, b) row; lanes stride over A, then a shuffle reduction.
__global__ void additive_score_fwd(float* e, float* t, const float* k, const float* q,
                                   const float* v, int S, int B, int A) {
  const long row = (long(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= long(S) * B) return;
  const long s = row / B, b = row % B;
  const float* kr = k + row * A;
  const float* qr = q + b * A;
  float* tr = t + row * A;
  float sum = 0.f;
  for (int a = lane; a < A; a += 32) {
    const float u = tanhf(kr[a] + qr[a]);
    tr[a] = u;
    sum += v[a] * u;
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) e[b * S + s] = sum;
}

// dv[a] += sum_{s,b} de[b,s] t[s,b,a] (before dk may overwrite t): one thread per a.
__global__ void additive_score_dv(float* dv, const float* de, const float* t, int S, int B, int A) {
  AL_FOR_EACH(a, long(A)) {
    float sum = 0.f;
    for (long r = 0; r < long(S) * B; ++r) sum += de[(r % B) * S + r / B] * t[r * A + a];
    dv[a] += sum;
  }
}

// dk = de v (1 - t^2), element-wise (dk may alias t).
__global__ void additive_score_dk(float* dk, const float* de, const float* t, const float* v, int S,
                                  int B, int A) {
  AL_FOR_EACH(i, long(S) * B * A) {
    const long r = i / A;
    const int a = int(i % A);
    const float u = t[i];
    dk[i] = de[(r % B) * S + r / B] * v[a] * (1.f - u * u);
  }
}

// dq[b,a] += sum_s dk[s,b,a]
__global__ void additive_score_dq(float* dq, const float* dk, int S, int B, int A) {
  AL_FOR_EACH(i, long(B) * A) {
    float sum = 0.f;
    for (int s = 0; s < S; ++s) sum += dk[long(s) * B * A + i];
    dq[i] += sum;
  }
}

#undef AL_FOR_EACH

}  // namespace

void tanh_bias_forward(float* y, const float* x, const float* bias, int R, int C) {
  const long n = long(R) * C;
  if (n == 0) return;
  tanh_bias_fwd<<<grid_for(n), kThreads>>>(y, x, bias, n, C);
  AL_CUDA_LAUNCHED();
}

void tanh_bias_backward(float* dx, float* dbias, const float* dy, const float* y, int R, int C) {
  const long n = long(R) * C;
  if (n == 0) return;
  tanh_bwd<<<grid_for(n), kThreads>>>(dx, dy, y, n);
  AL_CUDA_LAUNCHED();
  if (dbias) column_sum_accumulate(dbias, dx, R, C);
}

void gru_gates_forward(float* zr, float* rh, const float* xg, const float* hg, const float* h_prev,
                       int B, int C) {
  if (long(B) * C == 0) return;
  gru_gates_fwd<<<grid_for(long(B) * 2 * C), kThreads>>>(zr, rh, xg, hg, h_prev, B, C);
  AL_CUDA_LAUNCHED();
}

void gru_gates_backward(float* dxg, float* dh_prev, const float* drh, const float* zr,
                        const float* h_prev, int B, int C) {
  if (long(B) * C == 0) return;
  gru_gates_bwd<<<grid_for(long(B) * C), kThreads>>>(dxg, dh_prev, drh, zr, h_prev, B, C);
  AL_CUDA_LAUNCHED();
}

void gru_cell_forward(float* h, float* cand, const float* xg, const float* hc, const float* zr,
                      const float* h_prev, int B, int C) {
  if (long(B) * C == 0) return;
  gru_cell_fwd<<<grid_for(long(B) * C), kThreads>>>(h, cand, xg, hc, zr, h_prev, B, C);
  AL_CUDA_LAUNCHED();
}

void gru_cell_backward(float* dxg, float* dh_prev, const float* dh, const float* zr,
                       const float* cand, const float* h_prev, int B, int C) {
  if (long(B) * C == 0) return;
  gru_cell_bwd<<<grid_for(long(B) * C), kThreads>>>(dxg, dh_prev, dh, zr, cand, h_prev, B, C);
  AL_CUDA_LAUNCHED();
}

void lstm_cell_forward(float* h, float* c, float* act, float* tc, const float* pre,
                       const float* c_prev, int B, int C) {
  if (long(B) * C == 0) return;
  lstm_cell_fwd<<<grid_for(long(B) * C), kThreads>>>(h, c, act, tc, pre, c_prev, B, C);
  AL_CUDA_LAUNCHED();
}

void lstm_cell_backward(float* dpre, float* dc_prev, const float* dh, const float* dc,
                        const float* act, const float* c_prev, const float* tc, int B, int C) {
  if (long(B) * C == 0) return;
  lstm_cell_bwd<<<grid_for(long(B) * C), kThreads>>>(dpre, dc_prev, dh, dc, act, c_prev, tc, B, C);
  AL_CUDA_LAUNCHED();
}

void additive_score_forward(float* e, float* t, const float* k, const float* q, const float* v,
                            int S, int B, int A) {
  const long rows = long(S) * B;
  if (rows == 0) return;
  const int per_block = kThreads / 32;
  additive_score_fwd<<<unsigned((rows + per_block - 1) / per_block), kThreads>>>(e, t, k, q, v, S,
                                                                                 B, A);
  AL_CUDA_CHECK(cudaGetLastError());
}

void additive_score_backward(float* dk, float* dq, float* dv, const float* de, const float* t,
                             const float* v, int S, int B, int A) {
  if (long(S) * B * A == 0) return;
  additive_score_dv<<<grid_for(A), kThreads>>>(dv, de, t, S, B, A);
  additive_score_dk<<<grid_for(long(S) * B * A), kThreads>>>(dk, de, t, v, S, B, A);
  additive_score_dq<<<grid_for(long(B) * A), kThreads>>>(dq, dk, S, B, A);
  AL_CUDA_CHECK(cudaGetLastError());
}

void probs_xent(float* loss, float* dlogits, const float* p, const int32_t* targets, float scale,
                int R, int S) {
  if (long(R) * S == 0) return;
  probs_xent_kernel<<<grid_for(long(R) * S), kThreads>>>(loss, dlogits, p, targets, scale, R, S);
  AL_CUDA_LAUNCHED();
}

}  // namespace attnlab::cuda
