// Adam / AdamW step (Kingma & Ba 2015; Loshchilov & Hutter 2019, decoupled decay wd):
//   m = b1 m + (1-b1) g,  v = b2 v + (1-b2) g^2,
//   p -= lr * ( (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps) + wd * p ).
// Elementwise; contiguous chunks across threads.
#include <cmath>

#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

void adam(float* p, float* m, float* v, const float* g, long n, float lr, float beta1, float beta2,
          float eps, float wd, int t) {
  using simd::fbatch;
  using simd::W;
  const float ibc1 = float(1.0 / (1.0 - std::pow(double(beta1), t)));
  const float ibc2 = float(1.0 / (1.0 - std::pow(double(beta2), t)));
  threads::parallel_for(n, threads::chunks_for(double(n), 65536), [&](long b, long e, int) {
    const fbatch b1(beta1), c1(1.f - beta1), b2(beta2), c2(1.f - beta2), vlr(lr), veps(eps),
        vwd(wd), i1(ibc1), i2(ibc2);
    long i = b;
    for (; i + W <= e; i += W) {
      const fbatch gi = simd::load(g + i);
      const fbatch mi = xsimd::fma(b1, simd::load(m + i), c1 * gi);
      const fbatch vi = xsimd::fma(b2, simd::load(v + i), c2 * gi * gi);
      const fbatch pi = simd::load(p + i);
      const fbatch upd = (mi * i1) / (xsimd::sqrt(vi * i2) + veps) + vwd * pi;
      simd::store(m + i, mi);
      simd::store(v + i, vi);
      simd::store(p + i, pi - vlr * upd);
    }
    for (; i < e; ++i) {
      m[i] = beta1 * m[i] + (1.f - beta1) * g[i];
      v[i] = beta2 * v[i] + (1.f - beta2) * g[i] * g[i];
      p[i] -= lr * ((m[i] * ibc1) / (std::sqrt(v[i] * ibc2) + eps) + wd * p[i]);
    }
  });
}

}  // namespace attnlab::kernels::cpu
