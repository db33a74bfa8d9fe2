// Linear layer in PyTorch's nn.Linear layout: y[R,out] = x[R,in] Wᵀ + b, W [out,in], b [out].
// The free functions take raw pointers so sub-blocks of a weight (the q/k/v rows of an
// attention in_proj) can be used directly; Linear adds the named parameters.
#pragma once
#include <string>

#include "layers/context.hpp"

namespace attnlab {

void linear_forward(const KernelTable& kt, float* y, const float* x, const float* W, const float* b,
                    int R, int in, int out);
// y = x Wᵀ + b  =>  dx = dy W + dx_beta dx ; dW += dyᵀ x ; db += Σ_r dy[r,:]   (dx, db may
// be null; dx_beta 1 accumulates, 0 overwrites dx without reading it)
void linear_backward(const KernelTable& kt, float* dx, float* dW, float* db, const float* dy,
                     const float* x, const float* W, int R, int in, int out, float dx_beta = 1.f);

struct Linear {
  int W = -1, b = -1;  // parameter ids (b = -1: no bias)
  int in = 0, out = 0;
  void declare(ParamArena& P, const std::string& prefix, int in_, int out_, bool bias = true);
  void forward(const Ctx& c, float* y, const float* x, int R) const;
  void backward(const Ctx& c, float* dx, const float* dy, const float* x, int R,
                float dx_beta = 1.f) const;
};

}  // namespace attnlab
