// Vector kernels: y += alpha x, y = alpha x (alias-safe), and sum of squares. sumsq adds
// fixed 4096-element blocks in double in index order, so its result does not depend on the
// thread count.
#include <algorithm>
#include <vector>

#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

constexpr double kBlas1Grain = 65536;  // elements per thread
constexpr long kBlock = 4096;          // sumsq partial-sum block

}  // namespace

void axpy(float* y, float alpha, const float* x, long n) {
  threads::parallel_for(n, threads::chunks_for(double(n), kBlas1Grain), [&](long b, long e, int) {
    const fbatch a(alpha);
    long i = b;
    for (; i + W <= e; i += W)
      simd::store(y + i, xsimd::fma(a, simd::load(x + i), simd::load(y + i)));
    for (; i < e; ++i) y[i] += alpha * x[i];
  });
}

void scale(float* y, float alpha, const float* x, long n) {
  threads::parallel_for(n, threads::chunks_for(double(n), kBlas1Grain), [&](long b, long e, int) {
    const fbatch a(alpha);
    long i = b;
    for (; i + W <= e; i += W) simd::store(y + i, a * simd::load(x + i));
    for (; i < e; ++i) y[i] = alpha * x[i];
  });
}

void sumsq(float* out_host, const float* x, long n) {
  const long blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> part(size_t(blocks > 0 ? blocks : 1), 0.0);
  threads::parallel_for(blocks, threads::chunks_for(double(n), kBlas1Grain),
                        [&](long b0, long b1, int) {
                          for (long blk = b0; blk < b1; ++blk) {
                            const long b = blk * kBlock, e = std::min(n, b + kBlock);
                            fbatch acc0(0.f), acc1(0.f);
                            long i = b;
                            for (; i + 2 * W <= e; i += 2 * W) {
                              const fbatch u = simd::load(x + i), w = simd::load(x + i + W);
                              acc0 = xsimd::fma(u, u, acc0);
                              acc1 = xsimd::fma(w, w, acc1);
                            }
                            double s = xsimd::hadd(acc0 + acc1);
                            for (; i < e; ++i) s += double(x[i]) * x[i];
                            part[size_t(blk)] = s;
                          }
                        });
  double s = 0;
  for (long blk = 0; blk < blocks; ++blk) s += part[size_t(blk)];
  *out_host = float(s);
}

}  // namespace attnlab::kernels::cpu
