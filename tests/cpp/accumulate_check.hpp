// The input-gradient convention of layers/context.hpp, checked: a backward that accumulates
// (+=) into the caller's buffers, run once into zeros and once into buffers pre-filled with
// known values, must give pre + (the first result) in the second run.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tolerances.hpp"

namespace attnlab::test {

using GradBuffers = std::vector<std::vector<float>>;

// `backward` runs the layer's forward (when its backward consumes the cache) and its backward
// into the buffers it is given, one per name in `names`, of the sizes in `sizes`.
inline void check_accumulates(const std::vector<std::string>& names,
                              const std::vector<size_t>& sizes,
                              const std::function<void(GradBuffers&)>& backward) {
  GradBuffers zero, pre;
  for (size_t n : sizes) {
    zero.emplace_back(n, 0.f);
    std::vector<float> p(n);
    for (size_t i = 0; i < n; ++i) p[i] = 0.5f - 0.125f * float(i % 9);
    pre.push_back(std::move(p));
  }
  GradBuffers acc = pre;
  backward(zero);
  backward(acc);
  for (size_t k = 0; k < names.size(); ++k) {
    bool nonzero = false;
    for (size_t i = 0; i < sizes[k]; ++i) {
      const float want = pre[k][i] + zero[k][i];
      INFO(names[k] << "[" << i << "] pre " << pre[k][i] << " gradient " << zero[k][i] << " got "
                    << acc[k][i]);
      CHECK(std::fabs(acc[k][i] - want) <= kAccumAbs + kAccumRel * std::fabs(want));
      nonzero = nonzero || zero[k][i] != 0.f;
    }
    INFO(names[k] << ": the gradient is zero everywhere, so the check proves nothing");
    CHECK(nonzero);
  }
}

}  // namespace attnlab::test
