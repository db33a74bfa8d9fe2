// GEMM on the GPU through cuBLAS: fp32 operands and results in device memory, bf16 tensor-core
// products with fp32 accumulation (CUBLAS_COMPUTE_32F_FAST_16BF), so weights stay fp32 masters.
// Row-major C = op(A) op(B) is computed as the column-major C^T = op(B)^T op(A)^T (operands
// swapped, no copies). Same signatures and meaning as KernelTable::gemm / gemm_batched.
#pragma once

namespace attnlab::cuda {

void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc);
void gemm_batched(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                  int lda, long strideA, const float* B, int ldb, long strideB, float beta,
                  float* C, int ldc, long strideC, int batch);
// The grid of kernels/gemm_grid.hpp (GemmGridFn) in one cuBLAS call.
void gemm_grid(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
               long outerA, long innerA, const float* B, int ldb, long outerB, long innerB,
               float beta, float* C, int ldc, long outerC, long innerC, int outer, int inner);

}  // namespace attnlab::cuda
