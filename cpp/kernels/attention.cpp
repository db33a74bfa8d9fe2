// Scaled dot-product attention: SIMD version and reference loops (see attention.hpp).
#include "kernels/attention.hpp"

#include <cmath>
#include <limits>

#include "kernels/simd.hpp"

namespace attnlab::kernels {

namespace {

inline bool masked(const uint8_t* key_pad, bool causal, int b, int i, int j, int T, int S) {
  if (key_pad && key_pad[b * S + j]) return true;
  return causal && j > i + (S - T);
}

}  // namespace

void attention_forward(float* out, float* att, const float* q, const float* k, const float* v,
                       const uint8_t* key_pad, bool causal, int B, int H, int T, int S, int Dk,
                       int Dv) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(Dk));
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (int b = 0; b < B; ++b) {
    for (int h = 0; h < H; ++h) {
      const size_t bh = static_cast<size_t>(b) * H + h;
      const float* qh = q + bh * T * Dk;
      const float* kh = k + bh * S * Dk;
      const float* vh = v + bh * S * Dv;
      for (int i = 0; i < T; ++i) {
        float* row = att + (bh * T + i) * S;  // [S]
        float* o = out + (bh * T + i) * Dv;   // [Dv]
        float mx = neg_inf;
        for (int j = 0; j < S; ++j) {
          row[j] = masked(key_pad, causal, b, i, j, T, S)
                       ? neg_inf
                       : simd::dot(qh + static_cast<size_t>(i) * Dk,
                                   kh + static_cast<size_t>(j) * Dk, Dk) * scale;
          mx = row[j] > mx ? row[j] : mx;
        }
        for (int d = 0; d < Dv; ++d) o[d] = 0.f;
        if (mx == neg_inf) {
          for (int j = 0; j < S; ++j) row[j] = 0.f;
          continue;
        }
        float sum = 0.f;
        for (int j = 0; j < S; ++j) {
          row[j] = std::exp(row[j] - mx);
          sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (int j = 0; j < S; ++j) {
          row[j] *= inv;
          if (row[j] != 0.f) simd::axpy(o, row[j], vh + static_cast<size_t>(j) * Dv, Dv);
        }
      }
    }
  }
}

void attention_forward_ref(float* out, float* att, const float* q, const float* k,
                           const float* v, const uint8_t* key_pad, bool causal, int B, int H,
                           int T, int S, int Dk, int Dv) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dk));
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const size_t bh = static_cast<size_t>(b) * H + h;
      for (int i = 0; i < T; ++i) {
        double mx = -INFINITY;
        for (int j = 0; j < S; ++j) {
          if (masked(key_pad, causal, b, i, j, T, S)) continue;
          double s = 0;
          for (int d = 0; d < Dk; ++d) s += double(q[(bh * T + i) * Dk + d]) * k[(bh * S + j) * Dk + d];
          mx = s * scale > mx ? s * scale : mx;
        }
        double sum = 0;
        for (int j = 0; j < S; ++j) {
          double w = 0;
          if (!masked(key_pad, causal, b, i, j, T, S)) {
            double s = 0;
            for (int d = 0; d < Dk; ++d) s += double(q[(bh * T + i) * Dk + d]) * k[(bh * S + j) * Dk + d];
            w = std::exp(s * scale - mx);
          }
          att[(bh * T + i) * S + j] = static_cast<float>(w);
          sum += w;
        }
        for (int j = 0; j < S; ++j)
          att[(bh * T + i) * S + j] = sum > 0 ? static_cast<float>(att[(bh * T + i) * S + j] / sum) : 0.f;
        for (int d = 0; d < Dv; ++d) {
          double o = 0;
          for (int j = 0; j < S; ++j) o += double(att[(bh * T + i) * S + j]) * v[(bh * S + j) * Dv + d];
          out[(bh * T + i) * Dv + d] = static_cast<float>(o);
        }
      }
    }
}

}  // namespace attnlab::kernels
