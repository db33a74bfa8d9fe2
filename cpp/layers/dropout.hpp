// Inverted dropout (Srivastava et al. 2014): y = x · m / (1 - p), m ~ Bernoulli(1 - p). Each
// call draws one 64-bit seed from the context's Rng and the kernel table hashes the mask from
// it (kernels/counter_hash.hpp), so a run is reproducible and the CPU, CUDA and WebAssembly
// masks agree. Identity when not training or p = 0 (then no mask is kept and y may alias x).
#pragma once
#include <cstddef>

#include "layers/context.hpp"

namespace attnlab {

struct DropoutCache {
  float* mask = nullptr;  // [n] in the workspace: 0 or 1/(1-p); null when dropout was the identity
};

// y = x ⊙ mask (y may alias x)
void dropout_forward(const Ctx& c, DropoutCache& cache, float* y, const float* x, size_t n,
                     float p);
// The dropout of dropout_forward for a fused entry to apply (kernels.hpp DropoutArgs): the same
// seed drawn, the mask allocated in cache; none (mask null) when dropout_forward would be the
// identity.
DropoutArgs dropout_args(const Ctx& c, DropoutCache& cache, size_t n, float p);
// y = x ⊙ mask  =>  dx = dy ⊙ mask, applied in place to d (assigned)
void dropout_backward(const Ctx& c, const DropoutCache& cache, float* d, size_t n);

}  // namespace attnlab
