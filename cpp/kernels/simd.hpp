// The SIMD vocabulary every kernel uses: one xsimd batch type for the build's best arch
// (AVX2/FMA natively, SSE4.1 lowered to WASM SIMD128 by Emscripten), plus small helpers
// for the pattern "batch main loop, scalar tail, horizontal add" (xsimd 8.1 names
// reduce_add `hadd`).
#pragma once
#include <cmath>
#include <xsimd/xsimd.hpp>

// GCC 12 reports the deliberately undefined vector of _mm512_undefined_ps() (used by xsimd's
// AVX-512 rounding in exp/tanh) as maybe-uninitialized after inlining (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace attnlab::simd {

using fbatch = xsimd::batch<float>;
constexpr int W = static_cast<int>(fbatch::size);

inline fbatch load(const float* p) { return fbatch::load_unaligned(p); }
inline void store(float* p, const fbatch& b) { b.store_unaligned(p); }

// a * b + c. Natively one FMA (xsimd::fma); in the plain wasm build a multiply and an add
// (xsimd's SSE4.1 fallback); in the relaxed-SIMD wasm build (build/wasm-relaxed,
// ATTNLAB_RELAXED_SIMD) one f32x4.relaxed_madd, which engines run as a fused multiply-add where
// the CPU has one (either rounding is allowed: results may differ from the plain build in the
// last bits). Emscripten 3.1.6's clang 14 knows the instruction only by its prototype builtin
// __builtin_wasm_fma_f32x4 and prototype opcode 0xfd 0xaf, which no shipping engine accepts:
// it pushes a, b, c in that order and wasm-build/relaxed-opcodes.mjs rewrites the opcode to
// the standard relaxed_madd (0xfd 0x105), whose meaning on that stack is a * b + c.
#if defined(ATTNLAB_RELAXED_SIMD)
inline fbatch madd(const fbatch& a, const fbatch& b, const fbatch& c) {
  return fbatch(__builtin_wasm_fma_f32x4(__m128(a), __m128(b), __m128(c)));
}
#else
inline fbatch madd(const fbatch& a, const fbatch& b, const fbatch& c) {
  return xsimd::fma(a, b, c);
}
#endif

// sum_i a[i] * b[i]
inline float dot(const float* a, const float* b, int n) {
  fbatch acc0(0.f), acc1(0.f);
  int i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    acc0 = madd(load(a + i), load(b + i), acc0);
    acc1 = madd(load(a + i + W), load(b + i + W), acc1);
  }
  for (; i + W <= n; i += W) acc0 = madd(load(a + i), load(b + i), acc0);
  float s = xsimd::hadd(acc0 + acc1);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// y[i] += alpha * x[i]
inline void axpy(float* y, float alpha, const float* x, int n) {
  const fbatch a(alpha);
  int i = 0;
  for (; i + W <= n; i += W) store(y + i, madd(a, load(x + i), load(y + i)));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

// x[i] *= alpha
inline void scale(float* x, float alpha, int n) {
  const fbatch a(alpha);
  int i = 0;
  for (; i + W <= n; i += W) store(x + i, load(x + i) * a);
  for (; i < n; ++i) x[i] *= alpha;
}

// max_i x[i] (-inf for n == 0)
inline float max(const float* x, int n) {
  float m = -INFINITY;
  int i = 0;
  if (n >= W) {
    fbatch acc = load(x);
    for (i = W; i + W <= n; i += W) acc = xsimd::max(acc, load(x + i));
    alignas(64) float t[W];
    acc.store_aligned(t);
    for (int j = 0; j < W; ++j) m = t[j] > m ? t[j] : m;
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// sum_i x[i]
inline float sum(const float* x, int n) {
  fbatch acc0(0.f), acc1(0.f);
  int i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    acc0 += load(x + i);
    acc1 += load(x + i + W);
  }
  for (; i + W <= n; i += W) acc0 += load(x + i);
  float s = xsimd::hadd(acc0 + acc1);
  for (; i < n; ++i) s += x[i];
  return s;
}

}  // namespace attnlab::simd
