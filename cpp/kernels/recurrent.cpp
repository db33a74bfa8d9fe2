// Reference loops for the recurrent pointwise kernels (see recurrent.hpp for each contract).
#include "kernels/recurrent.hpp"

#include <cmath>
#include <cstddef>

namespace attnlab::kernels::ref {

namespace {
inline float sigm(float x) { return 1.f / (1.f + std::exp(-x)); }
}  // namespace

void tanh_bias_forward(float* y, const float* x, const float* bias, int R, int C) {
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < C; ++j) {
      const size_t i = size_t(r) * C + j;
      y[i] = std::tanh(x[i] + (bias ? bias[j] : 0.f));
    }
}

// d tanh(u)/du = 1 - tanh(u)^2
void tanh_bias_backward(float* dx, float* dbias, const float* dy, const float* y, int R, int C) {
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < C; ++j) {
      const size_t i = size_t(r) * C + j;
      const float g = dy[i] * (1.f - y[i] * y[i]);
      dx[i] = g;
      if (dbias) dbias[j] += g;
    }
}

void gru_gates_forward(float* zr, float* rh, const float* xg, const float* hg, const float* h_prev,
                       int B, int C) {
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < 2 * C; ++j) {
      const float g = sigm(xg[size_t(b) * 3 * C + j] + hg[size_t(b) * 2 * C + j]);
      zr[size_t(b) * 2 * C + j] = g;
      if (j >= C) rh[size_t(b) * C + j - C] = g * h_prev[size_t(b) * C + j - C];
    }
}

// rh = r h  =>  d r = drh h, d h += drh r; d(r pre) = d r * r (1 - r)
void gru_gates_backward(float* dxg, float* dh_prev, const float* drh, const float* zr,
                        const float* h_prev, int B, int C) {
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < C; ++j) {
      const float r = zr[size_t(b) * 2 * C + C + j];
      const float g = drh[size_t(b) * C + j];
      dxg[size_t(b) * 3 * C + C + j] = g * h_prev[size_t(b) * C + j] * r * (1.f - r);
      dh_prev[size_t(b) * C + j] += g * r;
    }
}

void gru_cell_forward(float* h, float* cand, const float* xg, const float* hc, const float* zr,
                      const float* h_prev, int B, int C) {
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < C; ++j) {
      const size_t i = size_t(b) * C + j;
      const float z = zr[size_t(b) * 2 * C + j];
      const float u = std::tanh(xg[size_t(b) * 3 * C + 2 * C + j] + hc[i]);
      cand[i] = u;
      h[i] = (1.f - z) * h_prev[i] + z * u;
    }
}

// h = (1-z) h_prev + z u  =>  dz = dh (u - h_prev), du = dh z, dh_prev = dh (1-z)
void gru_cell_backward(float* dxg, float* dh_prev, const float* dh, const float* zr,
                       const float* cand, const float* h_prev, int B, int C) {
  for (int b = 0; b < B; ++b)
    for (int j = 0; j < C; ++j) {
      const size_t i = size_t(b) * C + j;
      const float z = zr[size_t(b) * 2 * C + j], u = cand[i], g = dh[i];
      dxg[size_t(b) * 3 * C + j] = g * (u - h_prev[i]) * z * (1.f - z);
      dxg[size_t(b) * 3 * C + 2 * C + j] = g * z * (1.f - u * u);
      dh_prev[i] = g * (1.f - z);
    }
}

void lstm_cell_forward(float* h, float* c, float* act, float* tc, const float* pre,
                       const float* c_prev, int B, int C) {
  for (int b = 0; b < B; ++b) {
    const float* p = pre + size_t(b) * 4 * C;
    float* a = act + size_t(b) * 4 * C;
    for (int j = 0; j < C; ++j) {
      a[j] = sigm(p[j]);
      a[C + j] = sigm(p[C + j]);
      a[2 * C + j] = std::tanh(p[2 * C + j]);
      a[3 * C + j] = sigm(p[3 * C + j]);
      const size_t i = size_t(b) * C + j;
      c[i] = a[C + j] * c_prev[i] + a[j] * a[2 * C + j];
      tc[i] = std::tanh(c[i]);
      h[i] = a[3 * C + j] * tc[i];
    }
  }
}

// h = o tanh(c), c = f c_prev + i g  =>  dc = dc_in + dh o (1 - tanh(c)^2);
// di = dc g, df = dc c_prev, dg = dc i, do = dh tanh(c); each times its activation's slope.
void lstm_cell_backward(float* dpre, float* dc_prev, const float* dh, const float* dc,
                        const float* act, const float* c_prev, const float* tc, int B, int C) {
  for (int b = 0; b < B; ++b) {
    const float* a = act + size_t(b) * 4 * C;
    float* d = dpre + size_t(b) * 4 * C;
    for (int j = 0; j < C; ++j) {
      const size_t i = size_t(b) * C + j;
      const float ig = a[j], fg = a[C + j], gg = a[2 * C + j], og = a[3 * C + j];
      const float dct = (dc ? dc[i] : 0.f) + dh[i] * og * (1.f - tc[i] * tc[i]);
      d[j] = dct * gg * ig * (1.f - ig);
      d[C + j] = dct * c_prev[i] * fg * (1.f - fg);
      d[2 * C + j] = dct * ig * (1.f - gg * gg);
      d[3 * C + j] = dh[i] * tc[i] * og * (1.f - og);
      dc_prev[i] = dct * fg;
    }
  }
}

void additive_score_forward(float* e, float* t, const float* k, const float* q, const float* v,
                            int S, int B, int A) {
  for (int s = 0; s < S; ++s)
    for (int b = 0; b < B; ++b) {
      const size_t o = (size_t(s) * B + b) * A;
      float sum = 0.f;
      for (int a = 0; a < A; ++a) {
        const float u = std::tanh(k[o + a] + q[size_t(b) * A + a]);
        t[o + a] = u;
        sum += v[a] * u;
      }
      e[size_t(b) * S + s] = sum;
    }
}

// e = v . tanh(k + q)  =>  d(k + q) = de v (1 - t^2), dv = de t
void additive_score_backward(float* dk, float* dq, float* dv, const float* de, const float* t,
                             const float* v, int S, int B, int A) {
  for (int s = 0; s < S; ++s)
    for (int b = 0; b < B; ++b) {
      const size_t o = (size_t(s) * B + b) * A;
      const float g = de[size_t(b) * S + s];
      for (int a = 0; a < A; ++a) {
        const float u = t[o + a];
        dv[a] += g * u;
        const float d = g * v[a] * (1.f - u * u);
        dk[o + a] = d;
        dq[size_t(b) * A + a] += d;
      }
    }
}

// -log softmax(u)_t  =>  d u = p - onehot(t)
void probs_xent(float* loss, float* dlogits, const float* p, const int32_t* targets, float scale,
                int R, int S) {
  for (int r = 0; r < R; ++r) {
    const int t = targets[r];
    float* d = dlogits + size_t(r) * S;
    const float* pr = p + size_t(r) * S;
    if (t < 0) {
      loss[r] = 0.f;
      for (int j = 0; j < S; ++j) d[j] = 0.f;
      continue;
    }
    loss[r] = -std::log(std::fmax(pr[t], 1e-12f));
    for (int j = 0; j < S; ++j) d[j] = scale * (pr[j] - (j == t ? 1.f : 0.f));
  }
}

}  // namespace attnlab::kernels::ref
