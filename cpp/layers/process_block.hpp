// The Read-Process-Write set encoder's first two blocks (Vinyals, Bengio & Kudlur 2016, §4.2):
//   read:    m_j = x_j Wr + br                         (each element alone: order-free memories)
//   process: q_t = LSTM(r_{t-1}, q_{t-1}),  a_tj = softmax_j(score(q_t, m_j)),
//            r_t = sum_j a_tj m_j,  for t = 1..P (no input but the previous read)
// The write block is the pointer decoder, initialised with (q_P, c_P) and attending over M.
// Memories M [S,B,C] time-major; score is the dot-product one of layers/recurrent_attention.
// Parameter gradients accumulate; the gradient on M is consumed by backward.
#pragma once
#include <string>

#include "layers/lstm.hpp"
#include "layers/recurrent_attention.hpp"

namespace attnlab {

struct ProcessIds {
  int Wr = -1, br = -1;  // [Ci, C], [C]
  LstmIds lstm;          // input r (C), state C
  AttnIds att;           // dot-product score
  void declare(ParamArena& P, const std::string& prefix, int Ci, int C, int A);
};

class ProcessBlock {
 public:
  // M [S,B,C] (owned here) from x [S,B,Ci]; q_final()/c_final() then hold the final state.
  void forward(const KernelTable& K, const ParamArena& P, const ProcessIds& ids, const float* x,
               int S, int B, int Ci, int C, int A, int steps);
  // dM [S,B,C] (gradient on the memories, modified), dq, dc [B,C] gradients on the final state.
  void backward(const KernelTable& K, const ParamArena& P, const ProcessIds& ids, float* dM,
                const float* dq, const float* dc);
  const float* memories() const { return M_; }
  const float* q_final() const { return q_ + size_t(P_) * B_ * C_; }
  const float* c_final() const { return c_ + size_t(P_) * B_ * C_; }

 private:
  LstmStep step(int t) const;
  RecurrentAttention att_;
  Buffer buf_;
  const float* x_ = nullptr;
  float *M_ = nullptr, *q_ = nullptr, *c_ = nullptr, *r_ = nullptr, *act_ = nullptr, *tc_ = nullptr,
        *xg_ = nullptr, *alpha_ = nullptr, *e_ = nullptr, *cache_ = nullptr, *scratch_ = nullptr,
        *dh_ = nullptr, *dc_ = nullptr, *dr_ = nullptr, *dalpha_ = nullptr;
  int S_ = 0, B_ = 0, Ci_ = 0, C_ = 0, A_ = 0, P_ = 0;
};

}  // namespace attnlab
