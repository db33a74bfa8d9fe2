// Scaled dot-product attention on raw pointers (Vaswani et al. 2017, eq. 1):
//   out = softmax(Q Kᵀ / √d_k + M) · V
// Legend: B batch, H heads, T query length, S key length, Dk query/key size, Dv value size.
// q [B,H,T,Dk], k [B,H,S,Dk], v [B,H,S,Dv] -> out [B,H,T,Dv], att [B,H,T,S] (the weights).
// M masks key j for query i when key_pad[b,j] != 0 (padding) or, if causal, j > i + (S - T).
// A query whose every key is masked gets all-zero weights and a zero output (never NaN).
#pragma once
#include <cstdint>

namespace attnlab::kernels {

void attention_forward(float* out, float* att, const float* q, const float* k, const float* v,
                       const uint8_t* key_pad, bool causal, int B, int H, int T, int S, int Dk,
                       int Dv);

// The same computation as plain loops: the readable reference the SIMD version is tested against.
void attention_forward_ref(float* out, float* att, const float* q, const float* k, const float* v,
                           const uint8_t* key_pad, bool causal, int B, int H, int T, int S, int Dk,
                           int Dv);

}  // namespace attnlab::kernels
