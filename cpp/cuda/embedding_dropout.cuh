// Embedding gather/scatter-add and counter-based dropout on the GPU (same contracts as
// KernelTable). The scatter adds with atomics, so repeated ids are correct but their sum order
// is unspecified; the dropout mask comes from kernels/counter_hash.hpp, bit-identical to the
// CPU table's for the same (seed, offset).
#pragma once
#include <cstdint>

namespace attnlab::cuda {

void embedding_forward(float* out, const float* W, const int32_t* ids, int R, int C, float scale);
void embedding_backward(float* dW, const float* dout, const int32_t* ids, int R, int C,
                        float scale);
void dropout_forward(float* y, float* mask, const float* x, long n, float p, uint64_t seed,
                     uint64_t offset);
void dropout_backward(float* dx, const float* mask, const float* dy, long n);

}  // namespace attnlab::cuda
