// Multi-head attention (see attention.hpp).
#include "layers/attention.hpp"

#include <cmath>

#include "core/check.hpp"
#include "kernels/gemm_grid.hpp"

namespace attnlab {

namespace {

// Where Q, K, V live inside the projection buffers, with their row strides.
struct QkvView {
  float *q, *k, *v;
  int ldq, ldkv;
};

QkvView view(const MhaCache& m, float* qkv, float* kv, int C) {
  if (!m.xkv) return {qkv, qkv + C, qkv + 2 * C, 3 * C, 3 * C};
  return {qkv, kv, kv + C, C, 2 * C};
}

}  // namespace

void MultiHeadAttention::declare(ParamArena& P, const std::string& prefix, int C_, int H_,
                                 float dropout) {
  C = C_;
  H = H_;
  AL_CHECK(H > 0 && C % H == 0, "d_model " << C << " is not divisible by heads " << H);
  p_drop = dropout;
  in_w = P.add(prefix + ".in_proj_weight", {3 * C, C}, Init::XavierUniform);
  in_b = P.add(prefix + ".in_proj_bias", {3 * C}, Init::Zeros);
  out_proj.declare(P, prefix + ".out_proj", C, C);
}

void MultiHeadAttention::forward(const Ctx& c, MhaCache& m, float* out, const float* xq,
                                 const float* xkv, const uint8_t* key_pad, bool causal, int B,
                                 int T, int S) const {
  const KernelTable& kt = c.kt;
  const int hs = C / H;
  m.B = B;
  m.T = T;
  m.S = S;
  m.xq = xq;
  m.xkv = xkv;
  const float* W = c.P.val(in_w);
  const float* bias = c.P.val(in_b);
  if (!xkv) {
    AL_CHECK(S == T, "self-attention needs S == T");
    m.qkv = c.ws.floats(size_t(B) * T * 3 * C);  // [B*T,3C]
    linear_forward(kt, m.qkv, xq, W, bias, B * T, C, 3 * C);
  } else {
    m.qkv = c.ws.floats(size_t(B) * T * C);     // q [B*T,C]
    m.kv = c.ws.floats(size_t(B) * S * 2 * C);  // kv [B*S,2C]
    linear_forward(kt, m.qkv, xq, W, bias, B * T, C, C);
    linear_forward(kt, m.kv, xkv, W + size_t(C) * C, bias + C, B * S, C, 2 * C);
  }
  const QkvView v = view(m, m.qkv, m.kv, C);
  const long TS = long(T) * S;
  m.att = c.ws.floats(size_t(B) * H * TS);  // [B,H,T,S]
  // scores[b,h] = Q_h K_hᵀ, over batch x heads (one call on the GPU: kernels/gemm_grid.hpp)
  gemm_batched_grid(kt, false, true, T, S, hs, 1.f, v.q, v.ldq, long(T) * v.ldq, hs, v.k, v.ldkv,
                    long(S) * v.ldkv, hs, 0.f, m.att, S, H * TS, TS, B, H);
  if (m.keep_scores) {
    m.scores = c.ws.floats(size_t(B) * H * TS);
    kt.copy(m.scores, m.att, size_t(B) * H * TS * sizeof(float));
  }
  const float scale = 1.f / std::sqrt(float(hs));
  m.attd = m.att;
  if (c.train && p_drop > 0.f && kt.softmax_dropout_forward) {  // softmax and dropout, one kernel
    m.attd = c.ws.floats(size_t(B) * H * TS);
    const DropoutArgs drop = dropout_args(c, m.drop, size_t(B) * H * TS, p_drop);
    kt.softmax_dropout_forward(m.att, m.attd, m.att, scale, key_pad, causal, B, H, T, S, drop);
  } else {
    kt.softmax_forward(m.att, m.att, scale, key_pad, causal, B, H, T, S);
    if (c.train && p_drop > 0.f) {
      m.attd = c.ws.floats(size_t(B) * H * TS);
      dropout_forward(c, m.drop, m.attd, m.att, size_t(B) * H * TS, p_drop);
    }
  }
  m.ctx = c.ws.floats(size_t(B) * T * C);  // [B*T,C], head h in columns h*hs..
  if (!m.mute)                             // ctx[b,:,h] = A_h V_h
    gemm_batched_grid(kt, false, false, T, hs, S, 1.f, m.attd, S, H * TS, TS, v.v, v.ldkv,
                      long(S) * v.ldkv, hs, 0.f, m.ctx, C, long(T) * C, hs, B, H);
  for (int b = 0; m.mute && b < B; ++b) {
    for (int h = 0; h < H; ++h)  // a muted head contributes 0 · A_h V_h (alpha 0, beta 0: zeros)
      kt.gemm_batched(false, false, T, hs, S, m.mute[h] ? 0.f : 1.f, m.attd + (b * H + h) * TS, S,
                      TS, v.v + size_t(b) * S * v.ldkv + size_t(h) * hs, v.ldkv, hs, 0.f,
                      m.ctx + size_t(b) * T * C + size_t(h) * hs, C, hs, 1);
  }
  out_proj.forward(c, out, m.ctx, B * T);
}

void MultiHeadAttention::backward(const Ctx& c, const MhaCache& m, float* dxq, float* dxkv,
                                  const float* dout) const {
  AL_CHECK(!m.mute, "muted heads are for inference only: clear the head mask before training");
  const KernelTable& kt = c.kt;
  const int B = m.B, T = m.T, S = m.S, hs = C / H;
  const long TS = long(T) * S;
  float* dctx = c.ws.floats(size_t(B) * T * C);  // [B*T,C]
  out_proj.backward(c, dctx, dout, m.ctx, B * T, 0.f);

  float *dqkv, *dkv = nullptr;
  if (!m.xkv) {
    dqkv = c.ws.floats(size_t(B) * T * 3 * C);  // [B*T,3C]
  } else {
    dqkv = c.ws.floats(size_t(B) * T * C);     // [B*T,C]
    dkv = c.ws.floats(size_t(B) * S * 2 * C);  // [B*S,2C]
  }
  const QkvView v = view(m, m.qkv, m.kv, C);
  const QkvView d = view(m, dqkv, dkv, C);
  float* datt = c.ws.floats(size_t(B) * H * TS);  // [B,H,T,S]
  // dA_h = dCtx_h V_hᵀ ; dV_h = A_hᵀ dCtx_h, over batch x heads
  gemm_batched_grid(kt, false, true, T, S, hs, 1.f, dctx, C, long(T) * C, hs, v.v, v.ldkv,
                    long(S) * v.ldkv, hs, 0.f, datt, S, H * TS, TS, B, H);
  gemm_batched_grid(kt, true, false, S, hs, T, 1.f, m.attd, S, H * TS, TS, dctx, C, long(T) * C, hs,
                    0.f, d.v, d.ldkv, long(S) * d.ldkv, hs, B, H);
  if (m.drop.mask && kt.softmax_backward_masked) {  // the dropout's backward in the softmax's
    kt.softmax_backward_masked(datt, m.att, datt, m.drop.mask, 1.f / std::sqrt(float(hs)),
                               B * H * T, S);
  } else {
    dropout_backward(c, m.drop, datt, size_t(B) * H * TS);
    kt.softmax_backward(datt, m.att, datt, 1.f / std::sqrt(float(hs)), B * H * T, S);
  }
  // dQ_h = dS_h K_h ; dK_h = dS_hᵀ Q_h, over batch x heads
  gemm_batched_grid(kt, false, false, T, hs, S, 1.f, datt, S, H * TS, TS, v.k, v.ldkv,
                    long(S) * v.ldkv, hs, 0.f, d.q, d.ldq, long(T) * d.ldq, hs, B, H);
  gemm_batched_grid(kt, true, false, S, hs, T, 1.f, datt, S, H * TS, TS, v.q, v.ldq,
                    long(T) * v.ldq, hs, 0.f, d.k, d.ldkv, long(S) * d.ldkv, hs, B, H);
  const float* W = c.P.val(in_w);
  float* dW = c.P.grad(in_w);
  float* db = c.P.grad(in_b);
  if (!m.xkv) {
    linear_backward(kt, dxq, dW, db, dqkv, m.xq, W, B * T, C, 3 * C);
  } else {
    linear_backward(kt, dxq, dW, db, dqkv, m.xq, W, B * T, C, C);
    linear_backward(kt, dxkv, dW + size_t(C) * C, db + C, dkv, m.xkv, W + size_t(C) * C, B * S, C,
                    2 * C);
  }
}

void MultiHeadAttention::parts(const KernelTable& kt, const MhaCache& m, std::vector<float>& q,
                               std::vector<float>& k, std::vector<float>& v) const {
  AL_CHECK(m.qkv && m.B > 0, "no forward pass to read Q, K and V from");
  const int B = m.B, T = m.T, S = m.S, hs = C / H;
  const bool self = !m.xkv;
  std::vector<float> hq(size_t(B) * T * (self ? 3 * C : C)), hkv(self ? 0 : size_t(B) * S * 2 * C);
  kt.download(hq.data(), m.qkv, hq.size() * sizeof(float));
  if (!self) kt.download(hkv.data(), m.kv, hkv.size() * sizeof(float));
  const QkvView w = view(m, hq.data(), self ? nullptr : hkv.data(), C);
  q.assign(size_t(B) * H * T * hs, 0.f);
  k.assign(size_t(B) * H * S * hs, 0.f);
  v.assign(size_t(B) * H * S * hs, 0.f);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      for (int t = 0; t < T; ++t)
        for (int d = 0; d < hs; ++d)
          q[((size_t(b) * H + h) * T + t) * hs + d] =
              w.q[(size_t(b) * T + t) * w.ldq + size_t(h) * hs + d];
      for (int s = 0; s < S; ++s)
        for (int d = 0; d < hs; ++d) {
          const size_t at = (size_t(b) * S + s) * w.ldkv + size_t(h) * hs + d;
          k[((size_t(b) * H + h) * S + s) * hs + d] = w.k[at];
          v[((size_t(b) * H + h) * S + s) * hs + d] = w.v[at];
        }
    }
}

}  // namespace attnlab
