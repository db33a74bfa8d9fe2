// Inverted dropout (see dropout.hpp).
#include "layers/dropout.hpp"

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
  const uint64_t hi = c.rng->next_u32();
  const uint64_t seed = (hi << 32) | c.rng->next_u32();
  cache.mask = c.ws.floats(n);  // [n]
  c.kt.dropout_forward(y, cache.mask, x, long(n), p, seed, 0);
}

DropoutArgs dropout_args(const Ctx& c, DropoutCache& cache, size_t n, float p) {
  cache.mask = nullptr;
  if (!c.train || p <= 0.f) return {};
  AL_CHECK(c.rng, "dropout in training needs a seeded Rng");
  AL_CHECK(p < 1.f, "dropout probability must be below 1, got " << p);
  const uint64_t hi = c.rng->next_u32();
  const uint64_t seed = (hi << 32) | c.rng->next_u32();
  cache.mask = c.ws.floats(n);  // [n]
  DropoutArgs a;
  a.mask = cache.mask;
  a.p = p;
  a.seed = seed;
  return a;
}

void dropout_backward(const Ctx& c, const DropoutCache& cache, float* d, size_t n) {
  if (!cache.mask) return;
  c.kt.dropout_backward(d, cache.mask, d, long(n));
}

}  // namespace attnlab
