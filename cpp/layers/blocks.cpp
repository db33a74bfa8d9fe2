// Transformer encoder and decoder layers (see blocks.hpp).
#include "layers/blocks.hpp"

namespace attnlab {

void EncoderLayer::declare(ParamArena& P, const std::string& prefix, const LayerOptions& o) {
  self_attn.declare(P, prefix + ".self_attn", o.C, o.H, o.attn_p());
  ff.declare(P, prefix, o.C, o.F, o.act, o.act_p());
  res1.declare(P, prefix + ".norm1", o.C, o.norm_first, o.dropout);
  res2.declare(P, prefix + ".norm2", o.C, o.norm_first, o.dropout);
}

float* EncoderLayer::forward(const Ctx& c, EncoderLayerCache& m, const float* x, const uint8_t* pad,
                             bool causal, int B, int T) const {
  m.B = B;
  m.T = T;
  const int R = B * T;
  const float* in = res1.enter(c, m.r1, x, R);
  self_attn.forward(c, m.sa, m.r1.sub, in, nullptr, pad, causal, B, T, T);
  const float* h = res1.leave(c, m.r1, R);
  in = res2.enter(c, m.r2, h, R);
  ff.forward(c, m.ff, m.r2.sub, in, R);
  return res2.leave(c, m.r2, R);
}

float* EncoderLayer::backward(const Ctx& c, EncoderLayerCache& m, float* dx,
                              const float* dy) const {
  const int R = m.B * m.T;
  const float* dsub = res2.back_enter(c, m.r2, dy, R);
  ff.backward(c, m.ff, m.r2.din, dsub, R);
  const float* dh = res2.back_out(c, m.r2, R);  // [B,T,C] gradient between the sublayers
  dsub = res1.back_enter(c, m.r1, dh, R);
  self_attn.backward(c, m.sa, m.r1.din, nullptr, dsub);
  if (!dx) return res1.back_out(c, m.r1, R);
  res1.back_leave(c, m.r1, dx, R);
  return dx;
}

void DecoderLayer::declare(ParamArena& P, const std::string& prefix, const LayerOptions& o) {
  self_attn.declare(P, prefix + ".self_attn", o.C, o.H, o.attn_p());
  multihead_attn.declare(P, prefix + ".multihead_attn", o.C, o.H, o.attn_p());
  ff.declare(P, prefix, o.C, o.F, o.act, o.act_p());
  res1.declare(P, prefix + ".norm1", o.C, o.norm_first, o.dropout);
  res2.declare(P, prefix + ".norm2", o.C, o.norm_first, o.dropout);
  res3.declare(P, prefix + ".norm3", o.C, o.norm_first, o.dropout);
}

float* DecoderLayer::forward(const Ctx& c, DecoderLayerCache& m, const float* x,
                             const float* memory, const uint8_t* tgt_pad, const uint8_t* mem_pad,
                             bool causal, int B, int T, int S) const {
  m.B = B;
  m.T = T;
  m.S = S;
  const int R = B * T;
  const float* in = res1.enter(c, m.r1, x, R);
  self_attn.forward(c, m.sa, m.r1.sub, in, nullptr, tgt_pad, causal, B, T, T);
  const float* h = res1.leave(c, m.r1, R);
  in = res2.enter(c, m.r2, h, R);
  multihead_attn.forward(c, m.ca, m.r2.sub, in, memory, mem_pad, false, B, T, S);
  h = res2.leave(c, m.r2, R);
  in = res3.enter(c, m.r3, h, R);
  ff.forward(c, m.ff, m.r3.sub, in, R);
  return res3.leave(c, m.r3, R);
}

float* DecoderLayer::backward(const Ctx& c, DecoderLayerCache& m, float* dx, float* dmemory,
                              const float* dy) const {
  const int R = m.B * m.T;
  const float* dsub = res3.back_enter(c, m.r3, dy, R);
  ff.backward(c, m.ff, m.r3.din, dsub, R);
  const float* dh2 = res3.back_out(c, m.r3, R);  // [B,T,C] between cross-attention and FFN
  dsub = res2.back_enter(c, m.r2, dh2, R);
  multihead_attn.backward(c, m.ca, m.r2.din, dmemory, dsub);
  const float* dh1 = res2.back_out(c, m.r2, R);  // [B,T,C] between self- and cross-attention
  dsub = res1.back_enter(c, m.r1, dh1, R);
  self_attn.backward(c, m.sa, m.r1.din, nullptr, dsub);
  if (!dx) return res1.back_out(c, m.r1, R);
  res1.back_leave(c, m.r1, dx, R);
  return dx;
}

}  // namespace attnlab
