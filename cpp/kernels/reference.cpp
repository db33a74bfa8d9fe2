// Reference loops for the kernel table (see reference.hpp). Sums in double where it matters.
#include "kernels/reference.hpp"

#include <cmath>
#include <vector>

namespace attnlab::kernels::ref {

void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) {
        const float a = transA ? A[size_t(k) * lda + i] : A[size_t(i) * lda + k];
        const float b = transB ? B[size_t(j) * ldb + k] : B[size_t(k) * ldb + j];
        s += double(a) * b;
      }
      float& c = C[size_t(i) * ldc + j];
      c = float(alpha * s + (beta == 0.f ? 0.0 : double(beta) * c));
    }
}

void gemm_batched(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                  int lda, long strideA, const float* B, int ldb, long strideB, float beta,
                  float* C, int ldc, long strideC, int batch) {
  for (int i = 0; i < batch; ++i)
    gemm(transA, transB, M, N, K, alpha, A + i * strideA, lda, B + i * strideB, ldb, beta,
         C + i * strideC, ldc);
}

void softmax_forward(float* y, const float* x, float scale, const uint8_t* key_pad, bool causal,
                     int B, int H, int T, int S) {
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < T; ++i) {
        const size_t r = (size_t(b) * H + h) * T + i;
        const float* xr = x + r * S;
        float* yr = y + r * S;
        auto masked = [&](int j) {
          return (key_pad && key_pad[size_t(b) * S + j]) || (causal && j > i + (S - T));
        };
        double mx = -INFINITY;
        for (int j = 0; j < S; ++j)
          if (!masked(j)) mx = std::fmax(mx, double(xr[j]) * scale);
        std::vector<double> e(S, 0.0);
        double sum = 0;
        for (int j = 0; j < S; ++j)
          if (!masked(j)) sum += e[j] = std::exp(double(xr[j]) * scale - mx);
        for (int j = 0; j < S; ++j) yr[j] = sum > 0 ? float(e[j] / sum) : 0.f;
      }
}

void softmax_backward(float* dx, const float* y, const float* dy, float scale, int R, int S) {
  for (int r = 0; r < R; ++r) {
    const size_t o = size_t(r) * S;
    double dot = 0;
    for (int j = 0; j < S; ++j) dot += double(dy[o + j]) * y[o + j];
    for (int j = 0; j < S; ++j) dx[o + j] = float(scale * y[o + j] * (dy[o + j] - dot));
  }
}

void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, float eps, int R, int C) {
  for (int r = 0; r < R; ++r) {
    const float* xr = x + size_t(r) * C;
    double m = 0, v = 0;
    for (int c = 0; c < C; ++c) m += xr[c];
    m /= C;
    for (int c = 0; c < C; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= C;
    const double rs = 1.0 / std::sqrt(v + eps);
    for (int c = 0; c < C; ++c) y[size_t(r) * C + c] = float((xr[c] - m) * rs * gamma[c] + beta[c]);
    mean[r] = float(m);
    rstd[r] = float(rs);
  }
}

void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int R, int C) {
  for (int r = 0; r < R; ++r) {
    const size_t o = size_t(r) * C;
    double s1 = 0, s2 = 0;  // mean(dy*gamma), mean(dy*gamma*xhat)
    for (int c = 0; c < C; ++c) {
      const double xhat = (x[o + c] - mean[r]) * double(rstd[r]);
      const double g = double(dy[o + c]) * gamma[c];
      s1 += g;
      s2 += g * xhat;
      dgamma[c] += float(dy[o + c] * xhat);
      dbeta[c] += dy[o + c];
    }
    s1 /= C;
    s2 /= C;
    for (int c = 0; c < C; ++c) {
      const double xhat = (x[o + c] - mean[r]) * double(rstd[r]);
      dx[o + c] = float(rstd[r] * (double(dy[o + c]) * gamma[c] - s1 - xhat * s2));
    }
  }
}

float gelu(float x) {
  const float k = 0.7978845608028654f;  // sqrt(2/pi)
  return 0.5f * x * (1.f + std::tanh(k * (x + 0.044715f * x * x * x)));
}

float gelu_grad(float x) {
  const float k = 0.7978845608028654f;
  const float u = k * (x + 0.044715f * x * x * x);
  const float t = std::tanh(u);
  return 0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * k * (1.f + 3.f * 0.044715f * x * x);
}

void bias_act_forward(float* y, float* pre, const float* x, const float* bias, Act act, int R,
                      int C) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const size_t i = size_t(r) * C + c;
      const float z = x[i] + (bias ? bias[c] : 0.f);
      if (pre) pre[i] = z;
      y[i] = act == Act::ReLU ? (z > 0 ? z : 0.f) : act == Act::GELU ? gelu(z) : z;
    }
}

void bias_act_backward(float* dx, float* dbias, const float* dy, const float* pre, Act act, int R,
                       int C) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const size_t i = size_t(r) * C + c;
      float d = dy[i];
      if (act == Act::ReLU) d = pre[i] > 0 ? d : 0.f;
      if (act == Act::GELU) d *= gelu_grad(pre[i]);
      dx[i] = d;
      if (dbias) dbias[c] += d;
    }
}

void cross_entropy(float* loss, float* dlogits, const float* logits, const int32_t* targets,
                   float smoothing, int ignore_index, float grad_scale, int R, int V) {
  for (int r = 0; r < R; ++r) {
    const size_t o = size_t(r) * V;
    if (targets[r] == ignore_index) {
      loss[r] = 0.f;
      for (int v = 0; v < V; ++v) dlogits[o + v] = 0.f;
      continue;
    }
    double mx = -INFINITY;
    for (int v = 0; v < V; ++v) mx = std::fmax(mx, double(logits[o + v]));
    double sum = 0;
    for (int v = 0; v < V; ++v) sum += std::exp(logits[o + v] - mx);
    const double lse = mx + std::log(sum);
    const double off = smoothing / V, on = 1.0 - smoothing + off;
    double l = 0;
    for (int v = 0; v < V; ++v) {
      const double q = v == targets[r] ? on : off;
      const double logp = logits[o + v] - lse;
      l -= q * logp;
      dlogits[o + v] = float(grad_scale * (std::exp(logp) - q));
    }
    loss[r] = float(l);
  }
}

void adam(float* p, float* m, float* v, const float* g, long n, float lr, float beta1, float beta2,
          float eps, float wd, int t) {
  const double bc1 = 1.0 - std::pow(double(beta1), t), bc2 = 1.0 - std::pow(double(beta2), t);
  for (long i = 0; i < n; ++i) {
    m[i] = beta1 * m[i] + (1 - beta1) * g[i];
    v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
    const double mhat = m[i] / bc1, vhat = v[i] / bc2;
    p[i] = float(p[i] - lr * (mhat / (std::sqrt(vhat) + eps) + double(wd) * p[i]));
  }
}

void axpy(float* y, float alpha, const float* x, long n) {
  for (long i = 0; i < n; ++i) y[i] += alpha * x[i];
}

void scale(float* y, float alpha, const float* x, long n) {
  for (long i = 0; i < n; ++i) y[i] = alpha * x[i];
}

void sumsq(float* out_host, const float* x, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += double(x[i]) * x[i];
  *out_host = float(s);
}

}  // namespace attnlab::kernels::ref
