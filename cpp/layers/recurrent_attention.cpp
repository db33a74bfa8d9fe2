// Recurrent attention: additive and dot-product scores, masked softmax and context (see the
// header).
#include "layers/recurrent_attention.hpp"

#include <cmath>

namespace attnlab {

AttnParams AttnParams::carve(Carver& c, int C, int D, int A) {
  AttnParams p;
  p.W = c.take(size_t(C) * A);
  p.U = c.take(size_t(D) * A);
  p.v = c.take(size_t(A));
  return p;
}

void AttnIds::declare(ParamArena& P, const std::string& prefix, int C, int D, int A) {
  W = P.add(prefix + ".W", {C, A}, Init::Uniform, 1.f / std::sqrt(float(C)));
  U = P.add(prefix + ".U", {D, A}, Init::Uniform, 1.f / std::sqrt(float(D)));
  v = P.add(prefix + ".v", {A}, Init::Uniform, 1.f / std::sqrt(float(A)));
}

void RecurrentAttention::prepare(const KernelTable& K, const AttnParams& P, const float* Hs,
                                 const uint8_t* key_pad, Score score, int S, int B, int D, int C,
                                 int A) {
  Hs_ = Hs, pad_ = key_pad, score_ = score;
  S_ = S, B_ = B, D_ = D, C_ = C, A_ = A;
  const size_t sba = size_t(S) * B * A;
  for (int pass = 0; pass < 2; ++pass) {
    Carver c(pass ? buf_.data() : nullptr);
    Uh_ = c.take(sba);
    dUh_ = c.take(sba);
    tmp_ = c.take(sba);
    qa_ = c.take(size_t(B) * A);
    dqa_ = c.take(size_t(B) * A);
    if (pass == 0 && c.used() > buf_.size()) buf_ = Buffer(K, c.used());
  }
  K.gemm(false, false, S * B, A, D, 1.f, Hs, D, P.U, A, 0.f, Uh_, A);
  K.zero(dUh_, sba * sizeof(float));
}

size_t RecurrentAttention::step_cache_floats() const {
  return score_ == Score::Additive ? size_t(S_) * B_ * A_ : size_t(B_) * A_;
}

void RecurrentAttention::forward(const KernelTable& K, const AttnParams& P, float* alpha, float* e,
                                 float* cache, const float* q, const uint8_t* mask) {
  const int S = S_, B = B_, A = A_;
  const float* Uh = Uh_;
  if (score_ == Score::Additive) {
    float* t = cache;  // [S,B,A] tanh(W q_b + U h_sb)
    K.gemm(false, false, B, A, C_, 1.f, q, C_, P.W, A, 0.f, qa_, A);
    K.additive_score_forward(e, t, Uh, qa_, P.v, S, B, A);
  } else {
    float* qa = cache;  // [B,A] q W
    K.gemm(false, false, B, A, C_, 1.f, q, C_, P.W, A, 0.f, qa, A);
    K.gemm_batched(false, true, 1, S, A, 1.f / std::sqrt(float(A)), qa, A, A, Uh, B * A, A, 0.f, e,
                   S, S, B);
  }
  K.softmax_forward(alpha, e, 1.f, mask ? mask : pad_, false, B, 1, 1, S);
}

// additive: de -> dt_sb = de_bs v, dv += sum de_bs t_sb, dpre = dt (1 - t^2),
//           dqa_b = sum_s dpre_sb, dUh += dpre, dW += q^T dqa, dq += dqa W^T
// dot:      dqa_b = sum_s de_bs Uh_sb / sqrt(A), dUh_sb += de_bs qa_b / sqrt(A)
void RecurrentAttention::backward(const KernelTable& K, const AttnParams& P, const AttnParams& dP,
                                  float* dq, const float* de, const float* cache, const float* q) {
  const int S = S_, B = B_, A = A_;
  if (score_ == Score::Additive) {
    const float* t = cache;
    float* dt = tmp_;  // [S,B,A] gradient on the pre-activation W q_b + U h_sb
    K.zero(dqa_, size_t(B) * A * sizeof(float));
    K.additive_score_backward(dt, dqa_, dP.v, de, t, P.v, S, B, A);
    K.axpy(dUh_, 1.f, dt, long(S) * B * A);
  } else {
    const float* qa = cache;
    const float sc = 1.f / std::sqrt(float(A));
    K.gemm_batched(false, false, 1, A, S, sc, de, S, S, Uh_, B * A, A, 0.f, dqa_, A, A, B);
    K.gemm_batched(true, false, S, A, 1, sc, de, S, S, qa, A, A, 1.f, dUh_, B * A, A, B);
  }
  K.gemm(true, false, C_, A, B, 1.f, q, C_, dqa_, A, 1.f, dP.W, A);
  K.gemm(false, true, B, C_, A, 1.f, dqa_, A, P.W, A, 1.f, dq, C_);
}

// Uh = Hs U  =>  dHs += dUh U^T, dU += Hs^T dUh
void RecurrentAttention::finish_backward(const KernelTable& K, const AttnParams& P,
                                         const AttnParams& dP, float* dHs) {
  const int R = S_ * B_;
  K.gemm(false, true, R, D_, A_, 1.f, dUh_, A_, P.U, A_, 1.f, dHs, D_);
  K.gemm(true, false, D_, A_, R, 1.f, Hs_, D_, dUh_, A_, 1.f, dP.U, A_);
  K.zero(dUh_, size_t(R) * A_ * sizeof(float));
}

void context_forward(const KernelTable& K, float* ctx, const float* alpha, const float* Hs, int S,
                     int B, int D) {
  // ctx_b [1,D] = alpha_b [1,S] Hs_b [S,D] (row stride B*D)
  K.gemm_batched(false, false, 1, D, S, 1.f, alpha, S, S, Hs, B * D, D, 0.f, ctx, D, D, B);
}

// ctx_b = alpha_b Hs_b  =>  dalpha_b = dctx_b Hs_b^T, dHs_b += alpha_b^T dctx_b
void context_backward(const KernelTable& K, float* dalpha, float* dHs, const float* dctx,
                      const float* alpha, const float* Hs, int S, int B, int D) {
  K.gemm_batched(false, true, 1, S, D, 1.f, dctx, D, D, Hs, B * D, D, 0.f, dalpha, S, S, B);
  K.gemm_batched(true, false, S, D, 1, 1.f, alpha, S, S, dctx, D, D, 1.f, dHs, B * D, D, B);
}

}  // namespace attnlab
