// Inverted dropout (see dropout.hpp).
#include "layers/dropout.hpp"

#include <vector>

#include "core/check.hpp"

namespace attnlab {

void dropout_forward(const Ctx& c, DropoutCache& cache, float* y, const float* x, size_t n,
                     float p) {
  if (!c.train || p <= 0.f) {
    cache.mask = nullptr;
    if (y != x) c.kt.copy(y, x, n * sizeof(float));
    return;
  }
  AL_CHECK(c.rng, "dropout in training needs a seeded Rng");
  AL_CHECK(p < 1.f, "dropout probability must be below 1, got " << p);
  std::vector<float> m(n);
  const float keep = 1.f / (1.f - p);
  for (size_t i = 0; i < n; ++i) m[i] = c.rng->uniform() < p ? 0.f : keep;
  cache.mask = c.ws.floats(n);
  c.kt.upload(cache.mask, m.data(), n * sizeof(float));
  if (y != x) c.kt.copy(y, x, n * sizeof(float));
  on_host(c.kt, y, n, [&](float* h) {
    for (size_t i = 0; i < n; ++i) h[i] *= m[i];
  });
}

void dropout_backward(const Ctx& c, const DropoutCache& cache, float* d, size_t n) {
  if (!cache.mask) return;
  std::vector<float> m(n);
  c.kt.download(m.data(), cache.mask, n * sizeof(float));
  on_host(c.kt, d, n, [&](float* h) {
    for (size_t i = 0; i < n; ++i) h[i] *= m[i];
  });
}

}  // namespace attnlab
