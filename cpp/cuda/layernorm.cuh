// LayerNorm on the GPU over rows [R,C] (Ba et al. 2016), same contract as KernelTable:
// forward y = (x - mean) * rstd * gamma + beta, saving mean/rstd [R];
// backward dx assigned, dgamma/dbeta accumulated (+=).
#pragma once

namespace attnlab::cuda {

void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, float eps, int R, int C);
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int R, int C);

}  // namespace attnlab::cuda
