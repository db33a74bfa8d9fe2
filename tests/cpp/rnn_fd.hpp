// Finite-difference gradient checks for the recurrent layers: a loss closure in float32,
// central differences per checked coordinate, compared with the analytic gradient.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "tolerances.hpp"

namespace attnlab::test {

struct FdTarget {
  std::string name;
  float* value;       // the parameter or input (host memory)
  const float* grad;  // its analytic gradient
  size_t n;
};

// Checks up to `per_tensor` coordinates of each target (all when n is small).
inline void fd_check(const std::function<double()>& loss, const std::vector<FdTarget>& targets,
                     Rng& rng, int per_tensor = 12) {
  for (const auto& t : targets) {
    const int count = int(std::min<size_t>(t.n, size_t(per_tensor)));
    for (int k = 0; k < count; ++k) {
      const size_t i = t.n <= size_t(per_tensor) ? size_t(k) : rng.below(uint32_t(t.n));
      const float keep = t.value[i];
      t.value[i] = float(keep + kFdStep);
      const double up = loss();
      t.value[i] = float(keep - kFdStep);
      const double down = loss();
      t.value[i] = keep;
      const double fd = (up - down) / (2 * kFdStep);
      INFO(t.name << "[" << i << "] analytic " << t.grad[i] << " numeric " << fd);
      CHECK(std::abs(fd - t.grad[i]) <= kFdAbs + kFdRel * std::abs(fd));
    }
  }
}

// Fills a host float range with N(0, std^2) draws.
inline void fill_normal(float* p, size_t n, Rng& rng, float std = 1.f) {
  for (size_t i = 0; i < n; ++i) p[i] = rng.normal() * std;
}

// sum_i w_i y_i in double
inline double dot(const float* w, const float* y, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double(w[i]) * y[i];
  return s;
}

}  // namespace attnlab::test
