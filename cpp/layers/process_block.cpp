// Read and process blocks of the Read-Process-Write encoder (see process_block.hpp).
#include "layers/process_block.hpp"

#include <cmath>

namespace attnlab {

void ProcessIds::declare(ParamArena& P, const std::string& prefix, int Ci, int C, int A) {
  Wr = P.add(prefix + ".read.W", {Ci, C}, Init::Uniform, 1.f / std::sqrt(float(Ci)));
  br = P.add(prefix + ".read.b", {C}, Init::Zeros);
  lstm.declare(P, prefix + ".lstm", C, C);
  att.declare(P, prefix + ".attention", C, C, A);
}

LstmStep ProcessBlock::step(int t) const {
  const size_t bc = size_t(B_) * C_;
  return {act_ + t * 4 * bc, c_ + (t + 1) * bc, tc_ + t * bc};
}

void ProcessBlock::forward(const KernelTable& K, const ParamArena& P, const ProcessIds& ids,
                           const float* x, int S, int B, int Ci, int C, int A, int steps) {
  x_ = x, S_ = S, B_ = B, Ci_ = Ci, C_ = C, A_ = A, P_ = steps;
  const size_t bc = size_t(B) * C, sbc = size_t(S) * bc;
  for (int pass = 0; pass < 2; ++pass) {
    Carver c(pass ? buf_.data() : nullptr);
    M_ = c.take(sbc);
    q_ = c.take((steps + 1) * bc);  // [P+1,B,C] q_0 = 0
    c_ = c.take((steps + 1) * bc);  // cells
    r_ = c.take((steps + 1) * bc);  // reads, r_0 = 0
    act_ = c.take(steps * 4 * bc);
    tc_ = c.take(steps * bc);
    xg_ = c.take(4 * bc);
    alpha_ = c.take(size_t(steps) * B * S);
    e_ = c.take(size_t(steps) * B * S);
    cache_ = c.take(size_t(steps) * B * A);  // dot score: q W per step [B,A]
    scratch_ = c.take(4 * bc);
    dh_ = c.take(bc), dc_ = c.take(bc), dr_ = c.take(bc);
    dalpha_ = c.take(size_t(B) * S);
    if (pass == 0 && c.used() > buf_.size()) buf_ = Buffer(K, c.used());
  }
  K.gemm(false, false, S * B, C, Ci, 1.f, x, Ci, P.val(ids.Wr), C, 0.f, M_, C);
  K.bias_act_forward(M_, nullptr, M_, P.val(ids.br), Act::None, S * B, C);
  att_.prepare(K, ids.att.val(P), M_, nullptr, Score::Dot, S, B, C, C, A);
  K.zero(q_, bc * sizeof(float));
  K.zero(c_, bc * sizeof(float));
  K.zero(r_, bc * sizeof(float));
  const LstmParams lp = ids.lstm.val(P);
  for (int t = 0; t < steps; ++t) {
    lstm_input_forward(K, lp, xg_, r_ + t * bc, B, C, C);
    lstm_step_forward(K, lp, q_ + (t + 1) * bc, step(t), scratch_, xg_, q_ + t * bc, c_ + t * bc, B,
                      C);
    float* alpha = alpha_ + size_t(t) * B * S;
    att_.forward(K, ids.att.val(P), alpha, e_ + size_t(t) * B * S,
                 cache_ + t * att_.step_cache_floats(), q_ + (t + 1) * bc, nullptr);
    context_forward(K, r_ + (t + 1) * bc, alpha, M_, S, B, C);
  }
}

// Step t maps (q_t, c_t, r_t) to (q_{t+1}, c_{t+1}) and then r_{t+1} = attend(q_{t+1}, M).
// Backward walks t = P-1..0 carrying dq_{t+1}, dc_{t+1} and dr_{t+1} (r_P feeds nothing).
void ProcessBlock::backward(const KernelTable& K, const ParamArena& P, const ProcessIds& ids,
                            float* dM, const float* dq, const float* dc) {
  const int S = S_, B = B_, C = C_;
  const size_t bc = size_t(B) * C;
  const LstmParams lp = ids.lstm.val(P), dlp = ids.lstm.grad(P);
  const AttnParams ap = ids.att.val(P), dap = ids.att.grad(P);
  K.copy(dh_, dq, bc * sizeof(float));
  K.copy(dc_, dc, bc * sizeof(float));
  K.zero(dr_, bc * sizeof(float));
  for (int t = P_ - 1; t >= 0; --t) {
    const float* alpha = alpha_ + size_t(t) * B * S;
    context_backward(K, dalpha_, dM, dr_, alpha, M_, S, B, C);
    K.softmax_backward(dalpha_, alpha, dalpha_, 1.f, B, S);
    att_.backward(K, ap, dap, dh_, dalpha_, cache_ + t * att_.step_cache_floats(),
                  q_ + (t + 1) * bc);
    // dh_ is read by the cell kernel before the step's gemm overwrites it with dq_t.
    lstm_step_backward(K, lp, dlp, xg_, dh_, dc_, step(t), dh_, dc_, q_ + t * bc, c_ + t * bc, B,
                       C);
    lstm_input_backward(K, lp, dlp, dr_, xg_, r_ + t * bc, B, C, C);
  }
  att_.finish_backward(K, ap, dap, dM);
  // M = x Wr + br
  K.gemm(true, false, Ci_, C, S * B, 1.f, x_, Ci_, dM, C, 1.f, P.grad(ids.Wr), C);
  K.bias_act_backward(dM, P.grad(ids.br), dM, nullptr, Act::None, S * B, C);
}

}  // namespace attnlab
