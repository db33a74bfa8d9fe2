// Pointwise kernels of the recurrent layers (GRU, LSTM), additive attention and the pointer
// loss on the GPU, one thread per element; same contracts as kernels/recurrent.hpp.
// GRU gates in xg [B,3C]: z | r | candidate; LSTM gates in pre/act [B,4C]: i | f | g | o.
#pragma once
#include <cstdint>

namespace attnlab::cuda {

void tanh_bias_forward(float* y, const float* x, const float* bias, int R, int C);
void tanh_bias_backward(float* dx, float* dbias, const float* dy, const float* y, int R, int C);
void gru_gates_forward(float* zr, float* rh, const float* xg, const float* hg, const float* h_prev,
                       int B, int C);
void gru_gates_backward(float* dxg, float* dh_prev, const float* drh, const float* zr,
                        const float* h_prev, int B, int C);
void gru_cell_forward(float* h, float* cand, const float* xg, const float* hc, const float* zr,
                      const float* h_prev, int B, int C);
void gru_cell_backward(float* dxg, float* dh_prev, const float* dh, const float* zr,
                       const float* cand, const float* h_prev, int B, int C);
void lstm_cell_forward(float* h, float* c, float* act, float* tc, const float* pre,
                       const float* c_prev, int B, int C);
void lstm_cell_backward(float* dpre, float* dc_prev, const float* dh, const float* dc,
                        const float* act, const float* c_prev, const float* tc, int B, int C);
void additive_score_forward(float* e, float* t, const float* k, const float* q, const float* v,
                            int S, int B, int A);
void additive_score_backward(float* dk, float* dq, float* dv, const float* de, const float* t,
                             const float* v, int S, int B, int A);
void probs_xent(float* loss, float* dlogits, const float* p, const int32_t* targets, float scale,
                int R, int S);

}  // namespace attnlab::cuda
