// Transformer encoder and decoder layers (Vaswani et al. 2017, §3.1), named like PyTorch's
// nn.TransformerEncoderLayer / nn.TransformerDecoderLayer (self_attn, multihead_attn, linear1,
// linear2, norm1..3). Encoder: self-attention then FFN; decoder: causal self-attention,
// cross-attention over the encoder memory, FFN; each sublayer wrapped by Residual (post/pre-LN).
// Shapes: x [B,T,C], memory [B,S,C]; masks are backend uint8 [B,T] / [B,S] (nonzero = pad).
#pragma once
#include <string>

#include "layers/attention.hpp"
#include "layers/ffn.hpp"
#include "layers/residual.hpp"

namespace attnlab {

struct LayerOptions {
  int C = 0, H = 1, F = 0;
  float dropout = 0.f;  // on each sublayer's output
  bool norm_first = false;
  Act act = Act::ReLU;
  // on the attention weights and the FFN's hidden activations; negative: dropout
  float attn_dropout = -1.f, act_dropout = -1.f;
  float attn_p() const { return attn_dropout < 0 ? dropout : attn_dropout; }
  float act_p() const { return act_dropout < 0 ? dropout : act_dropout; }
};

struct EncoderLayerCache {
  ResidualCache r1, r2;
  MhaCache sa;
  FfnCache ff;
  int B = 0, T = 0;
};

struct EncoderLayer {
  MultiHeadAttention self_attn;
  FeedForward ff;
  Residual res1, res2;
  void declare(ParamArena& P, const std::string& prefix, const LayerOptions& o);
  // Returns the output [B,T,C] (workspace). causal: for decoder-only language models.
  float* forward(const Ctx& c, EncoderLayerCache& m, const float* x, const uint8_t* pad,
                 bool causal, int B, int T) const;
  // dx [B,T,C] += the gradient on x; returns dx (dx null: returns the gradient on x in the
  // workspace, which saves zeroing a buffer to add it to).
  float* backward(const Ctx& c, EncoderLayerCache& m, float* dx, const float* dy) const;
};

struct DecoderLayerCache {
  ResidualCache r1, r2, r3;
  MhaCache sa, ca;
  FfnCache ff;
  int B = 0, T = 0, S = 0;
};

struct DecoderLayer {
  MultiHeadAttention self_attn, multihead_attn;
  FeedForward ff;
  Residual res1, res2, res3;
  void declare(ParamArena& P, const std::string& prefix, const LayerOptions& o);
  // causal: mask key j > query i in the self-attention (always on except for inspection).
  float* forward(const Ctx& c, DecoderLayerCache& m, const float* x, const float* memory,
                 const uint8_t* tgt_pad, const uint8_t* mem_pad, bool causal, int B, int T,
                 int S) const;
  // dx [B,T,C] += the gradient on x, dmemory [B,S,C] += the gradient on memory; returns dx
  // (dx null: as EncoderLayer::backward).
  float* backward(const Ctx& c, DecoderLayerCache& m, float* dx, float* dmemory,
                  const float* dy) const;
};

}  // namespace attnlab
