// cuBLAS GEMMs for the CUDA kernel table (see gemm.cuh). One handle per process, created on
// first use, on the legacy default stream like every other kernel of the table.
#include <cublas_v2.h>

#include <atomic>

#include "cuda/common.cuh"
#include "cuda/device.hpp"
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

std::atomic<long> g_cublas_calls{0};

// The pointer arrays of gemm_grid: matrix k = o * inner + i of each operand.
__global__ void grid_pointers(const float** a, const float** b, float** c, const float* A,
                              long outerA, long innerA, const float* B, long outerB, long innerB,
                              float* C, long outerC, long innerC, int outer, int inner) {
  const long n = long(outer) * inner;
  for (long k = blockIdx.x * long(blockDim.x) + threadIdx.x; k < n;
       k += long(gridDim.x) * blockDim.x) {
    const long o = k / inner, i = k % inner;
    a[k] = A + o * outerA + i * innerA;
    b[k] = B + o * outerB + i * innerB;
    c[k] = C + o * outerC + i * innerC;
  }
}

// Device room for 3 x n pointers, grown on demand and kept for the process: every call runs on
// the legacy default stream, so a later call's pointers are written after the earlier GEMM ran.
void** pointer_room(long n) {
  static void** room = nullptr;
  static long capacity = 0;
  if (n > capacity) {
    if (room) AL_CUDA_CHECK(cudaFree(room));  // cudaFree waits for the device
    room = nullptr;
    AL_CUDA_CHECK(cudaMalloc(&room, size_t(3 * n) * sizeof(void*)));
    capacity = n;
  }
  return room;
}

}  // namespace

long gemm_calls() { return g_cublas_calls.load(std::memory_order_relaxed); }

// Column-major view of row-major data: a row-major [R, L] array with leading dimension ld is the
// column-major [L, R] array with the same ld. So C^T[N,M] = op(B)^T[N,K] * op(A)^T[K,M], where
// op(B)^T needs cuBLAS op N exactly when B is not transposed (and likewise for A).
void gemm(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
  if (M == 0 || N == 0) return;
  const cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  g_cublas_calls.fetch_add(1, std::memory_order_relaxed);
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
  g_cublas_calls.fetch_add(1, std::memory_order_relaxed);
  AL_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      handle(), opB, opA, N, M, K, &alpha, B, CUDA_R_32F, ldb, (long long)strideB, A, CUDA_R_32F,
      lda, (long long)strideA, &beta, C, CUDA_R_32F, ldc, (long long)strideC, batch, kCompute,
      CUBLAS_GEMM_DEFAULT));
}

// The whole grid in one cuBLAS call: a strided batch when the outer stride is inner x the inner
// stride for all three operands, else pointer arrays (one small kernel writes them) and
// cublasGemmBatchedEx.
void gemm_grid(bool transA, bool transB, int M, int N, int K, float alpha, const float* A, int lda,
               long outerA, long innerA, const float* B, int ldb, long outerB, long innerB,
               float beta, float* C, int ldc, long outerC, long innerC, int outer, int inner) {
  if (M == 0 || N == 0 || outer == 0 || inner == 0) return;
  if (outer == 1 ||
      (outerA == inner * innerA && outerB == inner * innerB && outerC == inner * innerC)) {
    gemm_batched(transA, transB, M, N, K, alpha, A, lda, innerA, B, ldb, innerB, beta, C, ldc,
                 innerC, outer * inner);
    return;
  }
  const long n = long(outer) * inner;
  void** room = pointer_room(n);
  const float** a = static_cast<const float**>(static_cast<void*>(room));
  const float** b = a + n;
  float** c = static_cast<float**>(static_cast<void*>(room + 2 * n));
  grid_pointers<<<grid_for(n), kThreads>>>(a, b, c, A, outerA, innerA, B, outerB, innerB, C, outerC,
                                           innerC, outer, inner);
  AL_CUDA_LAUNCHED();
  const cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  g_cublas_calls.fetch_add(1, std::memory_order_relaxed);
  AL_CUBLAS_CHECK(cublasGemmBatchedEx(
      handle(), opB, opA, N, M, K, &alpha, reinterpret_cast<const void* const*>(b), CUDA_R_32F, ldb,
      reinterpret_cast<const void* const*>(a), CUDA_R_32F, lda, &beta,
      reinterpret_cast<void* const*>(c), CUDA_R_32F, ldc, int(n), kCompute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace attnlab::cuda
