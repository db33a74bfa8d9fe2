// GEMMs over a grid of outer x inner matrices, each operand of matrix (o, i) at
// base + o * outer_stride + i * inner_stride: attention's products over batch x heads, whose
// heads sit side by side in one row ([B*T, H*hs]), so no single stride reaches every (b, h).
// A table may do the whole grid at once (the CUDA table: one cuBLAS call with pointer arrays;
// the WebGPU table: one dispatch, the grid's matrices along its z dimension);
// every other table gets one gemm_batched over the inner index per outer index, exactly the
// calls, and so the bits, of the CPU code before the grid existed.
#pragma once
#include "kernels/kernels.hpp"

namespace attnlab {

using GemmGridFn = void (*)(bool transA, bool transB, int M, int N, int K, float alpha,
                            const float* A, int lda, long outerA, long innerA, const float* B,
                            int ldb, long outerB, long innerB, float beta, float* C, int ldc,
                            long outerC, long innerC, int outer, int inner);

// The table's whole-grid GEMM, or nullptr (defined in cuda_table.cu in the CUDA build, where
// the table whose gemm_batched is cuBLAS's has one; in webgpu_table.cpp in WebAssembly, for
// the WebGPU table; cpu_table.cpp elsewhere).
GemmGridFn gemm_grid_entry(const KernelTable& kt);

// C(o,i) = alpha op(A(o,i)) op(B(o,i)) + beta C(o,i) for o < outer, i < inner (row-major, as
// KernelTable::gemm_batched).
inline void gemm_batched_grid(const KernelTable& kt, bool transA, bool transB, int M, int N, int K,
                              float alpha, const float* A, int lda, long outerA, long innerA,
                              const float* B, int ldb, long outerB, long innerB, float beta,
                              float* C, int ldc, long outerC, long innerC, int outer, int inner) {
  if (const GemmGridFn whole = gemm_grid_entry(kt)) {
    whole(transA, transB, M, N, K, alpha, A, lda, outerA, innerA, B, ldb, outerB, innerB, beta, C,
          ldc, outerC, innerC, outer, inner);
    return;
  }
  for (int o = 0; o < outer; ++o)
    kt.gemm_batched(transA, transB, M, N, K, alpha, A + o * outerA, lda, innerA, B + o * outerB,
                    ldb, innerB, beta, C + o * outerC, ldc, innerC, inner);
}

}  // namespace attnlab
