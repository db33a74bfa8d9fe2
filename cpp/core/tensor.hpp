// The engine's owning tensor type and the one place that configures xtensor/xsimd.
// Tensors are row-major float32 xtensor arrays used at the edges (storage, data
// generation, I/O, tests); hot loops in kernels/ see only raw pointers from .data().
#pragma once
#include <cstddef>
#include <vector>
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "core/rng.hpp"

namespace attnlab {

using Tensor = xt::xarray<float, xt::layout_type::row_major>;
using Shape = std::vector<std::size_t>;

// A tensor of i.i.d. N(0, std^2) values drawn from rng (deterministic on every platform).
inline Tensor randn(const Shape& shape, Rng& rng, float std = 1.0f) {
  Tensor t = Tensor::from_shape(shape);
  for (auto& x : t) x = rng.normal() * std;
  return t;
}

// A tensor of i.i.d. U(lo, hi) values drawn from rng.
inline Tensor rand_uniform(const Shape& shape, Rng& rng, float lo, float hi) {
  Tensor t = Tensor::from_shape(shape);
  for (auto& x : t) x = rng.uniform(lo, hi);
  return t;
}

}  // namespace attnlab
