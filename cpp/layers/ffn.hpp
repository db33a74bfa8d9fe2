// Position-wise feed-forward network (Vaswani et al. 2017, eq. 2), PyTorch names linear1/linear2:
//   FFN(x) = act(x W1ᵀ + b1) W2ᵀ + b2,  act = ReLU (the paper) or GELU (tanh form),
// with dropout on the hidden activations. Shapes: x [R,C], hidden [R,F], out [R,C].
#pragma once
#include <string>

#include "layers/dropout.hpp"
#include "layers/linear.hpp"

namespace attnlab {

struct FfnCache {
  const float* x = nullptr;  // [R,C]
  float* pre = nullptr;      // [R,F] x W1ᵀ + b1
  float* h = nullptr;        // [R,F] act(pre), after dropout
  DropoutCache drop;
};

struct FeedForward {
  Linear linear1, linear2;
  Act act = Act::ReLU;
  float p_drop = 0.f;
  void declare(ParamArena& P, const std::string& prefix, int C, int F, Act act_, float dropout);
  void forward(const Ctx& c, FfnCache& cache, float* out, const float* x, int R) const;
  // dh = dout W2 ⊙ mask ; dpre = dh ⊙ act'(pre) ; dx += dpre W1   (+ parameter grads)
  void backward(const Ctx& c, const FfnCache& cache, float* dx, const float* dout, int R) const;
};

}  // namespace attnlab
