// RecurrentAttention: the attention of a recurrent decoder over encoder annotations, one class
// for both scores (the Score chosen in prepare()):
//   additive (Bahdanau et al. 2015, eq. 6): e_bs = v^T tanh(W q_b + U h_sb)
//   dot (Luong et al. 2015, "general"):     e_bs = (q_b W) . (h_sb U) / sqrt(A)
// then alpha = masked softmax_s(e) (padded source positions get weight 0). Keys U h are computed
// once per source (prepare); each decoder step saves a small cache the caller owns.
// Annotations are time-major Hs [S,B,D]; queries q [B,C]; A is the attention width.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/kernels.hpp"
#include "layers/arena.hpp"
#include "layers/buffer.hpp"

namespace attnlab {

enum class Score { Additive = 0, Dot = 1 };

struct AttnParams {
  float* W = nullptr;  // [C, A] query projection
  float* U = nullptr;  // [D, A] key projection
  float* v = nullptr;  // [A]    score vector (additive only; unused by Dot)
  static AttnParams carve(Carver& c, int C, int D, int A);
};

// <prefix>.W, .U uniform in +-1/sqrt(fan in), .v uniform in +-1/sqrt(A).
struct AttnIds {
  int W = -1, U = -1, v = -1;
  void declare(ParamArena& P, const std::string& prefix, int C, int D, int A);
  AttnParams val(const ParamArena& P) const { return {P.val(W), P.val(U), P.val(v)}; }
  AttnParams grad(const ParamArena& P) const { return {P.grad(W), P.grad(U), P.grad(v)}; }
};

// The scores share the keys, the masked softmax, the per-step cache and the key gradient; they
// differ in the score function and its backward only.
class RecurrentAttention {
 public:
  // Keys Uh [S,B,A] = Hs U; clears the key gradient. key_pad [B,S] (nonzero = padding) or null
  // is kept by pointer, so it must outlive the steps.
  void prepare(const KernelTable& K, const AttnParams& P, const float* Hs, const uint8_t* key_pad,
               Score score, int S, int B, int D, int C, int A);
  size_t step_cache_floats() const;  // what one step saves

  // alpha [B,S] and logits e [B,S] for queries q [B,C]. mask [B,S] (or null: the key_pad of
  // prepare) replaces the padding mask for this step (pointer decoding masks chosen positions).
  // cache: step_cache_floats() floats.
  void forward(const KernelTable& K, const AttnParams& P, float* alpha, float* e, float* cache,
               const float* q, const uint8_t* mask);
  // From de [B,S] (gradient on the logits): dq [B,C] accumulated (+=); dW, dv accumulated;
  // the key gradient is kept until finish_backward.
  void backward(const KernelTable& K, const AttnParams& P, const AttnParams& dP, float* dq,
                const float* de, const float* cache, const float* q);
  // dHs [S,B,D] += dUh U^T, dU += Hs^T dUh: call once after all steps' backward.
  void finish_backward(const KernelTable& K, const AttnParams& P, const AttnParams& dP, float* dHs);

  const float* keys() const { return Uh_; }
  int S() const { return S_; }

 private:
  const float* Hs_ = nullptr;
  const uint8_t* pad_ = nullptr;
  Score score_ = Score::Additive;
  int S_ = 0, B_ = 0, D_ = 0, C_ = 0, A_ = 0;
  Buffer buf_;
  float *Uh_ = nullptr, *dUh_ = nullptr, *tmp_ = nullptr, *qa_ = nullptr, *dqa_ = nullptr;
};

// Context c_b = sum_s alpha_bs h_sb: ctx [B,D] from alpha [B,S] and Hs [S,B,D].
void context_forward(const KernelTable& K, float* ctx, const float* alpha, const float* Hs, int S,
                     int B, int D);
// dalpha [B,S] assigned; dHs [S,B,D] accumulated (+=).
void context_backward(const KernelTable& K, float* dalpha, float* dHs, const float* dctx,
                      const float* alpha, const float* Hs, int S, int B, int D);

}  // namespace attnlab
