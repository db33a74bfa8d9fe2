// Pointwise kernels of the recurrent layers (GRU, LSTM), additive attention and the pointer
// loss, as reference loops with the kernel-table signatures (the CPU table points at them).
// Layout: rows are batch entries, gate blocks are contiguous column ranges of width C.
// GRU gate order in xg [B,3C]: z | r | candidate. LSTM gate order in pre/act [B,4C]: i | f | g | o.
#pragma once
#include <cstdint>

namespace attnlab::kernels::ref {

// y[r,j] = tanh(x[r,j] + bias[j]) over [R,C] (bias [C] or null; y may alias x).
void tanh_bias_forward(float* y, const float* x, const float* bias, int R, int C);
// dx = dy * (1 - y^2) (dx may alias dy); dbias [C] (may be null) accumulated with sum_r dx.
void tanh_bias_backward(float* dx, float* dbias, const float* dy, const float* y, int R, int C);

// zr[B,2C] = sigmoid(xg[:, 0:2C] + hg); rh[B,C] = r * h_prev.
void gru_gates_forward(float* zr, float* rh, const float* xg, const float* hg, const float* h_prev,
                       int B, int C);
// d(r pre) into dxg[:, C:2C] (assigned); dh_prev += drh * r.
void gru_gates_backward(float* dxg, float* dh_prev, const float* drh, const float* zr,
                        const float* h_prev, int B, int C);
// cand = tanh(xg[:, 2C:3C] + hc); h = (1 - z) * h_prev + z * cand.
void gru_cell_forward(float* h, float* cand, const float* xg, const float* hc, const float* zr,
                      const float* h_prev, int B, int C);
// From dh: dxg[:, 0:C] = dh (cand - h_prev) z (1-z); dxg[:, 2C:3C] = dh z (1 - cand^2);
// dh_prev = dh (1 - z) (all assigned).
void gru_cell_backward(float* dxg, float* dh_prev, const float* dh, const float* zr,
                       const float* cand, const float* h_prev, int B, int C);

// act = [sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)] of pre [B,4C];
// c = f c_prev + i g; tc = tanh(c); h = o tc.
void lstm_cell_forward(float* h, float* c, float* act, float* tc, const float* pre,
                       const float* c_prev, int B, int C);
// dc_total = dc + dh o (1 - tc^2) (dc may be null); dpre [B,4C] and dc_prev = dc_total f assigned.
void lstm_cell_backward(float* dpre, float* dc_prev, const float* dh, const float* dc,
                        const float* act, const float* c_prev, const float* tc, int B, int C);

// Additive attention scores (Bahdanau eq. 6) for keys k [S,B,A] and projected queries q [B,A]:
// t[s,b,:] = tanh(k[s,b,:] + q[b,:]) (saved), e[b,s] = v . t[s,b,:].
void additive_score_forward(float* e, float* t, const float* k, const float* q, const float* v,
                            int S, int B, int A);
// From de [B,S]: dk[s,b,:] = de[b,s] v (1 - t^2) (assigned; dk may alias t);
// dq[b,:] += sum_s dk[s,b,:]; dv += sum_{b,s} de[b,s] t[s,b,:].
void additive_score_backward(float* dk, float* dq, float* dv, const float* de, const float* t,
                             const float* v, int S, int B, int A);

// Cross-entropy from probabilities p [R,S] already softmaxed (masked entries are 0):
// loss[r] = -log p[r, t_r]; dlogits[r,:] = scale * (p[r,:] - onehot(t_r)); rows with t_r < 0
// give loss 0 and zero gradient. dlogits may alias p.
void probs_xent(float* loss, float* dlogits, const float* p, const int32_t* targets, float scale,
                int R, int S);

}  // namespace attnlab::kernels::ref
