// The SIMD CPU kernels behind cpu_kernels() (signatures as in KernelTable, kernels.hpp), one op
// family per file: gemm.cpp, softmax.cpp, layernorm.cpp, activation.cpp, cross_entropy.cpp,
// adam.cpp, blas1.cpp, embedding.cpp, dropout.cpp. Each is checked against kernels/reference.*
// or a plain loop in tests/cpp/test_kernels_*.
// Rows are split across the kernel thread pool above a size threshold; every output element is
// computed by one thread in a fixed order, so results are deterministic for any thread count.
#pragma once
#include "kernels/kernels.hpp"

namespace attnlab::kernels::cpu {

void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc);
void gemm_batched(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                  int lda, long strideA, const float* B, int ldb, long strideB, float beta,
                  float* C, int ldc, long strideC, int batch);
// Runs the GEMM's wide register tile `calls` times over one pair of packed panels, at least KC
// deep (L1-resident, no packing, no C read) and returns the flops done: the rate of the inner loop
// alone, which bounds every GEMM built on it (the benchmark's peak, api::bench_simd_peak_sweep).
double gemm_tile_run(long calls);
void softmax_forward(float* y, const float* x, float scale, const uint8_t* key_pad, bool causal,
                     int B, int H, int T, int S);
void softmax_backward(float* dx, const float* y, const float* dy, float scale, int R, int S);
void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, float eps, int R, int C);
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int R, int C);
void bias_act_forward(float* y, float* pre, const float* x, const float* bias, Act act, int R,
                      int C);
void bias_act_backward(float* dx, float* dbias, const float* dy, const float* pre, Act act, int R,
                       int C);
void cross_entropy(float* loss, float* dlogits, const float* logits, const int32_t* targets,
                   float smoothing, int ignore_index, float grad_scale, int R, int V);
void adam(float* p, float* m, float* v, const float* g, long n, float lr, float beta1, float beta2,
          float eps, float wd, int t);
void axpy(float* y, float alpha, const float* x, long n);
void scale(float* y, float alpha, const float* x, long n);
void sumsq(float* out_host, const float* x, long n);
void embedding_forward(float* out, const float* W, const int32_t* ids, int R, int C, float scale);
void embedding_backward(float* dW, const float* dout, const int32_t* ids, int R, int C,
                        float scale);
void dropout_forward(float* y, float* mask, const float* x, long n, float p, uint64_t seed,
                     uint64_t offset);
void dropout_backward(float* dx, const float* mask, const float* dy, long n);

}  // namespace attnlab::kernels::cpu
