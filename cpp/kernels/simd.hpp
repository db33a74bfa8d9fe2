// The SIMD vocabulary every kernel uses: one xsimd batch type for the build's best arch
// (AVX2/FMA natively, SSE4.1 lowered to WASM SIMD128 by Emscripten), plus small helpers
// for the pattern "batch main loop, scalar tail, horizontal add" (xsimd 8.1 names
// reduce_add `hadd`).
#pragma once
#include <xsimd/xsimd.hpp>

namespace attnlab::simd {

using fbatch = xsimd::batch<float>;
constexpr int W = static_cast<int>(fbatch::size);

inline fbatch load(const float* p) { return fbatch::load_unaligned(p); }
inline void store(float* p, const fbatch& b) { b.store_unaligned(p); }

// sum_i a[i] * b[i]
inline float dot(const float* a, const float* b, int n) {
  fbatch acc0(0.f), acc1(0.f);
  int i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    acc0 = xsimd::fma(load(a + i), load(b + i), acc0);
    acc1 = xsimd::fma(load(a + i + W), load(b + i + W), acc1);
  }
  for (; i + W <= n; i += W) acc0 = xsimd::fma(load(a + i), load(b + i), acc0);
  float s = xsimd::hadd(acc0 + acc1);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// y[i] += alpha * x[i]
inline void axpy(float* y, float alpha, const float* x, int n) {
  const fbatch a(alpha);
  int i = 0;
  for (; i + W <= n; i += W) store(y + i, xsimd::fma(a, load(x + i), load(y + i)));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

// x[i] *= alpha
inline void scale(float* x, float alpha, int n) {
  const fbatch a(alpha);
  int i = 0;
  for (; i + W <= n; i += W) store(x + i, load(x + i) * a);
  for (; i < n; ++i) x[i] *= alpha;
}

}  // namespace attnlab::simd
