// Multi-head attention (Vaswani et al. 2017, §3.2.2), in PyTorch's nn.MultiheadAttention layout:
//   MultiHead(Q, K, V) = Concat(head_1..head_H) W_O,  head_h = softmax(Q W_h^Q (K W_h^K)ᵀ / √hs) V
//   W_h^V
// in_proj_weight [3C,C] stacks W^Q, W^K, W^V (rows), in_proj_bias [3C], out_proj.{weight,bias}.
// Self-attention (xkv = null) or cross-attention (queries from x [B,T,C], keys/values from
// memory [B,S,C]); causal and key-padding masks; the weights [B,H,T,S] stay in the cache.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "layers/dropout.hpp"
#include "layers/linear.hpp"

namespace attnlab {

struct MhaCache {
  int B = 0, T = 0, S = 0;
  const float* xq = nullptr;   // [B,T,C]
  const float* xkv = nullptr;  // [B,S,C] (null for self-attention)
  float* qkv = nullptr;        // self: [B*T,3C]; cross: q [B*T,C] then kv [B*S,2C]
  float* kv = nullptr;
  float* att = nullptr;   // [B,H,T,S] softmax weights (for display and backward)
  float* attd = nullptr;  // [B,H,T,S] after attention dropout (== att without dropout)
  DropoutCache drop;
  float* ctx = nullptr;  // [B*T,C] concatenated heads
  // [H] host flags the model sets before a forward pass: heads whose output (their slice of
  // ctx) is zeroed, as if they were removed. Inference only: backward refuses a muted pass.
  const uint8_t* mute = nullptr;
  // Set before a forward pass to keep scores [B,H,T,S] = Q_h K_hᵀ (before the scaling, the masks
  // and the softmax, which overwrite them in att): a traced pass only.
  bool keep_scores = false;
  float* scores = nullptr;
};

struct MultiHeadAttention {
  int in_w = -1, in_b = -1;
  Linear out_proj;
  int C = 0, H = 0;
  float p_drop = 0.f;  // dropout on the attention weights
  void declare(ParamArena& P, const std::string& prefix, int C_, int H_, float dropout);
  // key_pad [B,S] in backend memory (nonzero = padding) or null; causal: key j > query i masked.
  void forward(const Ctx& c, MhaCache& cache, float* out, const float* xq, const float* xkv,
               const uint8_t* key_pad, bool causal, int B, int T, int S) const;
  // Gradients of out = MHA(xq, xkv): dxq += ∂/∂xq, dxkv += ∂/∂xkv (cross only), via
  // dScores = softmax'(dA) with dA = dCtx Vᵀ, dV = Aᵀ dCtx, dQ = dScores K, dK = dScoresᵀ Q.
  void backward(const Ctx& c, const MhaCache& cache, float* dxq, float* dxkv,
                const float* dout) const;
  // Q, K and V of the last forward pass, per head, copied to the host: q [B,H,T,hs],
  // k and v [B,H,S,hs] (after the input projection, biases included; hs = C/H).
  void parts(const KernelTable& kt, const MhaCache& cache, std::vector<float>& q,
             std::vector<float>& k, std::vector<float>& v) const;
};

}  // namespace attnlab
