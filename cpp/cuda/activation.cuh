// Bias + activation on the GPU over rows [R,C] (same contract as KernelTable):
// forward y = act(x + bias), `pre` (may be null) keeps x + bias; backward dx = dy * act'(pre),
// dbias (may be null) accumulated with sum_r dx. GELU is the tanh approximation.
#pragma once
#include "kernels/kernels.hpp"

namespace attnlab::cuda {

void bias_act_forward(float* y, float* pre, const float* x, const float* bias, Act act, int R,
                      int C);
void bias_act_backward(float* dx, float* dbias, const float* dy, const float* pre, Act act, int R,
                       int C);
// dst[c] += sum_r src[r,c] over rows [R,C] (also the bias gradient of a linear layer).
void column_sum_accumulate(float* dst, const float* src, int R, int C);

}  // namespace attnlab::cuda
