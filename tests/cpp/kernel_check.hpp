// Helpers for the [kernels] tests: random buffers from attnlab::Rng and an element-wise
// comparison against the reference loops that reports the first mismatch.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/rng.hpp"
#include "kernels/kernels.hpp"
#include "tolerances.hpp"

namespace attnlab::test {

// The CPU kernel table the [kernels] tests check.
inline const KernelTable& K() { return cpu_kernels(); }

inline std::vector<float> randv(size_t n, Rng& rng, float std = 1.f) {
  std::vector<float> v(n);
  for (auto& x : v) x = rng.normal() * std;
  return v;
}

// |got - want| <= rel * |want| + abs for every element; `what` names the check on failure.
inline void check_close(const std::vector<float>& got, const std::vector<float>& want,
                        const std::string& what, float rel = kKernelRel, float abs = kKernelAbs) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok = std::fabs(got[i] - want[i]) <= rel * std::fabs(want[i]) + abs;
    if (!ok) {
      INFO(what << ": element " << i << " got " << got[i] << " want " << want[i]);
      CHECK(ok);
      return;
    }
  }
  SUCCEED();
}

// Runs a kernel with `threads` CPU threads, restoring the previous setting.
template <class F>
void with_threads(int threads, F&& f) {
  const int prev = num_threads();
  set_num_threads(threads);
  f();
  set_num_threads(prev);
}

}  // namespace attnlab::test
