// Inverted dropout with a counter-based mask (kernels/counter_hash.hpp): mask[i] = 0 or
// 1/(1-p) from the hash of (seed, offset + i), y = x * mask; backward dx = dy * mask. Each
// element depends only on its own index, so threads split the range freely and the CPU, CUDA
// and WebAssembly masks are identical.
#include "kernels/counter_hash.hpp"
#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

constexpr double kHashGrain = 16384;     // hashed elements per thread
constexpr double kDropoutGrain = 65536;  // multiplied elements per thread

}  // namespace

void dropout_forward(float* y, float* mask, const float* x, long n, float p, uint64_t seed,
                     uint64_t offset) {
  const uint32_t threshold = counter_hash::drop_threshold(p);
  const float keep = 1.f / (1.f - p);
  threads::parallel_for(n, threads::chunks_for(double(n), kHashGrain), [&](long b, long e, int) {
    for (long i = b; i < e; ++i) {
      const float m = counter_hash::dropout_mask(seed, offset + uint64_t(i), threshold, keep);
      mask[i] = m;
      y[i] = x[i] * m;
    }
  });
}

void dropout_backward(float* dx, const float* mask, const float* dy, long n) {
  threads::parallel_for(n, threads::chunks_for(double(n), kDropoutGrain), [&](long b, long e, int) {
    long i = b;
    for (; i + W <= e; i += W) simd::store(dx + i, simd::load(dy + i) * simd::load(mask + i));
    for (; i < e; ++i) dx[i] = dy[i] * mask[i];
  });
}

}  // namespace attnlab::kernels::cpu
