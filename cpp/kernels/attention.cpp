// Scaled dot-product attention (see attention.hpp): two strided-batched GEMMs around the masked
// softmax of the CPU table, and the reference loops.
#include "kernels/attention.hpp"

#include <cmath>

#include "kernels/cpu.hpp"

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
  const int BH = B * H;
  // att[bh] = Q[bh] K[bh]^T  ([T,Dk] x [S,Dk]^T -> [T,S]), then the masked softmax of att /
  // sqrt(Dk)
  cpu::gemm_batched(false, true, T, S, Dk, 1.f, q, Dk, long(T) * Dk, k, Dk, long(S) * Dk, 0.f, att,
                    S, long(T) * S, BH);
  cpu::softmax_forward(att, att, 1.0f / std::sqrt(static_cast<float>(Dk)), key_pad, causal, B, H, T,
                       S);
  // out[bh] = att[bh] V[bh]  ([T,S] x [S,Dv] -> [T,Dv])
  cpu::gemm_batched(false, false, T, Dv, S, 1.f, att, S, long(T) * S, v, Dv, long(S) * Dv, 0.f, out,
                    Dv, long(T) * Dv, BH);
}

void attention_forward_ref(float* out, float* att, const float* q, const float* k, const float* v,
                           const uint8_t* key_pad, bool causal, int B, int H, int T, int S, int Dk,
                           int Dv) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dk));
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const size_t bh = static_cast<size_t>(b) * H + h;
      for (int i = 0; i < T; ++i) {
        double mx = -INFINITY;
        for (int j = 0; j < S; ++j) {
          if (masked(key_pad, causal, b, i, j, T, S)) continue;
          double s = 0;
          for (int d = 0; d < Dk; ++d)
            s += double(q[(bh * T + i) * Dk + d]) * k[(bh * S + j) * Dk + d];
          mx = s * scale > mx ? s * scale : mx;
        }
        double sum = 0;
        for (int j = 0; j < S; ++j) {
          double w = 0;
          if (!masked(key_pad, causal, b, i, j, T, S)) {
            double s = 0;
            for (int d = 0; d < Dk; ++d)
              s += double(q[(bh * T + i) * Dk + d]) * k[(bh * S + j) * Dk + d];
            w = std::exp(s * scale - mx);
          }
          att[(bh * T + i) * S + j] = static_cast<float>(w);
          sum += w;
        }
        for (int j = 0; j < S; ++j)
          att[(bh * T + i) * S + j] =
              sum > 0 ? static_cast<float>(att[(bh * T + i) * S + j] / sum) : 0.f;
        for (int d = 0; d < Dv; ++d) {
          double o = 0;
          for (int j = 0; j < S; ++j)
            o += double(att[(bh * T + i) * S + j]) * v[(bh * S + j) * Dv + d];
          out[(bh * T + i) * Dv + d] = static_cast<float>(o);
        }
      }
    }
}

}  // namespace attnlab::kernels
