// LayerNorm over rows [R,C] (Ba et al. 2016): y = (x - mean) * rstd * gamma + beta,
// rstd = 1/sqrt(var + eps). Backward, with xhat = (x - mean) * rstd and g = dy * gamma:
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  dgamma += sum_r dy*xhat,  dbeta += sum_r
//   dy.
// Rows are split across threads; the dgamma/dbeta sums over rows are split by columns instead,
// so every sum runs in the same order whatever the thread count.
#include <algorithm>
#include <cmath>

#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

constexpr double kLayernormGrain = 32768;  // elements per thread

}  // namespace

void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, float eps, int R, int C) {
  threads::parallel_for(
      R, threads::chunks_for(double(R) * C, kLayernormGrain), [&](long r0, long r1, int) {
        for (long r = r0; r < r1; ++r) {
          const float* xr = x + r * C;
          float* yr = y + r * C;
          const float m = simd::sum(xr, C) / C;
          const fbatch vm(m);
          fbatch acc(0.f);
          int c = 0;
          for (; c + W <= C; c += W) {
            const fbatch d = simd::load(xr + c) - vm;
            acc = xsimd::fma(d, d, acc);
          }
          float var = xsimd::hadd(acc);
          for (; c < C; ++c) var += (xr[c] - m) * (xr[c] - m);
          const float rs = 1.f / std::sqrt(var / C + eps);
          const fbatch vr(rs);
          for (c = 0; c + W <= C; c += W)
            simd::store(yr + c, xsimd::fma((simd::load(xr + c) - vm) * vr, simd::load(gamma + c),
                                           simd::load(beta + c)));
          for (; c < C; ++c) yr[c] = (xr[c] - m) * rs * gamma[c] + beta[c];
          mean[r] = m;
          rstd[r] = rs;
        }
      });
}

void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int R, int C) {
  const double work = double(R) * C;
  // Column sums first (dx may alias dy): each thread owns a range of columns for all rows.
  const long col_blocks = (C + W - 1) / W;
  threads::parallel_for(col_blocks, threads::chunks_for(work, kLayernormGrain),
                        [&](long b0, long b1, int) {
                          const int c0 = int(b0) * W, c1 = std::min(C, int(b1) * W);
                          for (int r = 0; r < R; ++r) {
                            const size_t o = size_t(r) * C;
                            const fbatch vm(mean[r]), vr(rstd[r]);
                            int c = c0;
                            for (; c + W <= c1; c += W) {
                              const fbatch d = simd::load(dy + o + c);
                              const fbatch xhat = (simd::load(x + o + c) - vm) * vr;
                              simd::store(dgamma + c, xsimd::fma(d, xhat, simd::load(dgamma + c)));
                              simd::store(dbeta + c, simd::load(dbeta + c) + d);
                            }
                            for (; c < c1; ++c) {
                              dgamma[c] += dy[o + c] * ((x[o + c] - mean[r]) * rstd[r]);
                              dbeta[c] += dy[o + c];
                            }
                          }
                        });
  threads::parallel_for(R, threads::chunks_for(work, kLayernormGrain), [&](long r0, long r1, int) {
    for (long r = r0; r < r1; ++r) {
      const size_t o = size_t(r) * C;
      const float m = mean[r], rs = rstd[r];
      const fbatch vm(m), vr(rs);
      fbatch a1(0.f), a2(0.f);
      int c = 0;
      for (; c + W <= C; c += W) {
        const fbatch g = simd::load(dy + o + c) * simd::load(gamma + c);
        a1 += g;
        a2 = xsimd::fma(g, (simd::load(x + o + c) - vm) * vr, a2);
      }
      float s1 = xsimd::hadd(a1), s2 = xsimd::hadd(a2);
      for (; c < C; ++c) {
        const float g = dy[o + c] * gamma[c];
        s1 += g;
        s2 += g * ((x[o + c] - m) * rs);
      }
      s1 /= C;
      s2 /= C;
      const fbatch v1(s1), v2(s2);
      for (c = 0; c + W <= C; c += W) {
        const fbatch g = simd::load(dy + o + c) * simd::load(gamma + c);
        const fbatch xhat = (simd::load(x + o + c) - vm) * vr;
        simd::store(dx + o + c, vr * (g - v1 - xhat * v2));
      }
      for (; c < C; ++c) {
        const float xhat = (x[o + c] - m) * rs;
        dx[o + c] = rs * (dy[o + c] * gamma[c] - s1 - xhat * s2);
      }
    }
  });
}

}  // namespace attnlab::kernels::cpu
