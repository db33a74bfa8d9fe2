// cuBLAS GEMMs for the CUDA kernel table (see gemm.cuh). One handle per process, created on
// first use, on the legacy default stream like every other kernel of the table.
#include <cublas_v2.h>

#include "cuda/common.cuh"
#include "cuda/gemm.cuh"

#define AL_CUBLAS_CHECK(expr)                                                             \
  do {                                                                                    \
    const cublasStatus_t al_cublas_st_ = (expr);                                          \
    AL_CHECK(al_cublas_st_ == CUBLAS_STATUS_SUCCESS,                                      \
             "cuBLAS error: " << cublasGetStatusString(al_cublas_st_) << " (" #expr ")"); \
  } while (0)

namespace attnlab::cuda {

namespace {

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t made = nullptr;
    AL_CUBLAS_CHECK(cublasCreate(&made));
    return made;
  }();
  return h;
}

constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_32F_FAST_16BF;

}  // namespace

// Column-major view of row-major data: a row-major [R, L] array with leading dimension ld is the
// column-major [L, R] array with the same ld. So C^T[N,M] = op(B)^T[N,K] * op(A)^T[K,M], where
// op(B)^T needs cuBLAS op N exactly when B is not transposed (and likewise for A).
void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
  if (M == 0 || N == 0) return;
  const cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  AL_CUBLAS_CHECK(cublasGemmEx(handle(), opB, opA, N, M, K, &alpha, B, CUDA_R_32F, ldb, A,
                               CUDA_R_32F, lda, &beta, C, CUDA_R_32F, ldc, kCompute,
                               CUBLAS_GEMM_DEFAULT));
}

void gemm_batched(bool transA, bool transB, int M, int N, int K, float alpha, const float* A,
                  int lda, long strideA, const float* B, int ldb, long strideB, float beta,
                  float* C, int ldc, long strideC, int batch) {
  if (M == 0 || N == 0 || batch == 0) return;
  const cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  AL_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      handle(), opB, opA, N, M, K, &alpha, B, CUDA_R_32F, ldb, (long long)strideB, A, CUDA_R_32F,
      lda, (long long)strideA, &beta, C, CUDA_R_32F, ldc, (long long)strideC, batch, kCompute,
      CUBLAS_GEMM_DEFAULT));
}

}  // namespace attnlab::cuda
