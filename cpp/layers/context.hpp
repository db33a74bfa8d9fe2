// What every layer's forward and backward receive: the kernel table, the parameter arena, the
// activation workspace, and the training switches (dropout on/off and its seeded generator).
// Conventions for all layers: parameter gradients accumulate (+=); a layer's input gradient is
// accumulated (+=) into the buffer its caller passes (callers zero it when they need assignment).
// Legend: B batch, S source length, T target length, C model width, H heads, hs head size,
// F feed-forward width, V vocabulary, R rows (B*T or B*S).
#pragma once
#include <vector>

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

// Runs f on a host copy of n floats of backend memory p and writes the result back (the CPU
// table works in place).
template <class F>
void on_host(const KernelTable& kt, float* p, size_t n, F&& f) {
  if (kt.upload == cpu_kernels().upload) {
    f(p);
    return;
  }
  std::vector<float> h(n);
  kt.download(h.data(), p, n * sizeof(float));
  f(h.data());
  kt.upload(p, h.data(), n * sizeof(float));
}

}  // namespace attnlab
