// Layer normalisation (Ba et al. 2016) over the last dimension, PyTorch names `.weight`/`.bias`:
//   y = (x - mean) / sqrt(var + eps) * gamma + beta,  eps = 1e-5, rows [R,C].
#pragma once
#include <string>

#include "layers/context.hpp"

namespace attnlab {

struct LayerNormCache {
  const float* x = nullptr;  // [R,C] input (kept by the caller)
  float* mean = nullptr;     // [R]
  float* rstd = nullptr;     // [R]
};

struct LayerNorm {
  int gamma = -1, beta = -1;
  int C = 0;
  float eps = 1e-5f;
  void declare(ParamArena& P, const std::string& prefix, int C_);
  void forward(const Ctx& c, LayerNormCache& cache, float* y, const float* x, int R) const;
  // y = LN(x + r), s = x + r (the LN input, kept for backward): one kernel where the table has
  // add_layernorm_forward, else a copy, an axpy and the forward. `drop` (only where the table
  // has add_layernorm_forward): r under that dropout, in the same kernel.
  void add_forward(const Ctx& c, LayerNormCache& cache, float* y, float* s, const float* x,
                   const float* r, int R, const DropoutArgs& drop = {}) const;
  // dx += dy·∂y/∂x = rstd (g - mean(g) - x̂ mean(g x̂)), g = dy γ ; dγ += Σ dy x̂ ; dβ += Σ dy
  // (accumulate false: dx = dy·∂y/∂x, dx not read; dx must not alias dy)
  void backward(const Ctx& c, const LayerNormCache& cache, float* dx, const float* dy, int R,
                bool accumulate = true) const;
};

}  // namespace attnlab
