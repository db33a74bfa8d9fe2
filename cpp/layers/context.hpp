// What every layer's forward and backward receive: the kernel table, the parameter arena, the
// activation workspace, and the training switches (dropout on/off and its seeded generator).
// Conventions for all layers: parameter gradients accumulate (+=); a layer's input gradient is
// accumulated (+=) into the buffer its caller passes (callers zero it when they need assignment).
// Legend: B batch, S source length, T target length, C model width, H heads, hs head size,
// F feed-forward width, V vocabulary, R rows (B*T or B*S).
#pragma once
#include "core/arena.hpp"
#include "core/rng.hpp"
#include "kernels/kernels.hpp"

namespace attnlab {

struct Ctx {
  const KernelTable& kt;
  ParamArena& P;
  Workspace& ws;
  bool train = false;
  Rng* rng = nullptr;  // dropout masks; required when train && p > 0
};

}  // namespace attnlab
