// Recurrent-cell kernels (see recurrent.cuh and kernels/recurrent.hpp for the derivatives).
// Each thread owns one (row, column) element, so every in-place alias the contracts allow is
// safe: an element is read before the same thread overwrites it.
#include "cuda/activation.cuh"
#include "cuda/common.cuh"
#include "cuda/recurrent.cuh"

namespace attnlab::cuda {

namespace {

__device__ __forceinline__ float sigm(float x) { return 1.f / (1.f + expf(-x)); }

#define AL_FOR_EACH(i, n) \
  for (long i = long(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += long(gridDim.x) * blockDim.x)

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
  lstm_cell_bwd<<<grid_for(long(B) * C), kThreads>>>(dpre, dc_prev, dh, dc, act, c_prev, tc, B,
                                                     C);
  AL_CUDA_LAUNCHED();
}

void probs_xent(float* loss, float* dlogits, const float* p, const int32_t* targets, float scale,
                int R, int S) {
  if (long(R) * S == 0) return;
  probs_xent_kernel<<<grid_for(long(R) * S), kThreads>>>(loss, dlogits, p, targets, scale, R, S);
  AL_CUDA_LAUNCHED();
}

}  // namespace attnlab::cuda
