// The hook through which data-parallel training reduces gradients inside the one training step.
// After backward, the step calls reduce() with the local mean loss and the local count of target
// tokens; on return, P's gradients must hold the gradient of the loss normalised by the global
// count of target tokens (summed over ranks), and the return value is that global mean loss.
#pragma once
#include <cstdint>

namespace attnlab {

class ParamArena;

class GradientSync {
 public:
  virtual ~GradientSync() = default;
  virtual double reduce(ParamArena& P, double local_loss, int64_t local_tokens) = 0;
};

}  // namespace attnlab
