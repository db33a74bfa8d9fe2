// Optimizer and vector kernels on the GPU (same contract as KernelTable): Adam/AdamW with
// bias correction and decoupled weight decay; y += a x; y = a x; sum of squares to the host.
#pragma once

namespace attnlab::cuda {

void adam(float* p, float* m, float* v, const float* g, long n, float lr, float beta1, float beta2,
          float eps, float wd, int t);
void axpy(float* y, float alpha, const float* x, long n);
void scale(float* y, float alpha, const float* x, long n);
void sumsq(float* out_host, const float* x, long n);

}  // namespace attnlab::cuda
