// Bias + activation over rows [R,C]: forward z = x + bias, y = act(z) (pre = z saved);
// backward dx = dy * act'(z), dbias += sum_r dx. ReLU'(z) = [z > 0]; GELU (tanh form):
//   gelu(z) = z/2 (1 + tanh u), u = k (z + 0.044715 z^3), k = sqrt(2/pi)
//   gelu'(z) = (1 + tanh u)/2 + z/2 (1 - tanh^2 u) k (1 + 3*0.044715 z^2).
// Rows are split across threads; the dbias sum over rows is split by columns (fixed order).
#include <algorithm>

#include "kernels/cpu.hpp"
#include "kernels/reference.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

constexpr double kActivationGrain = 32768;  // elements per thread
constexpr float kK = 0.7978845608028654f, kA = 0.044715f;

inline fbatch act_fwd(const fbatch& z, Act act) {
  if (act == Act::ReLU) return xsimd::select(z > fbatch(0.f), z, fbatch(0.f));
  if (act == Act::GELU) {
    const fbatch u = fbatch(kK) * xsimd::fma(fbatch(kA) * z, z * z, z);
    return fbatch(0.5f) * z * (fbatch(1.f) + xsimd::tanh(u));
  }
  return z;
}

inline fbatch act_grad(const fbatch& z, Act act) {
  if (act == Act::ReLU) return xsimd::select(z > fbatch(0.f), fbatch(1.f), fbatch(0.f));
  const fbatch z2 = z * z;
  const fbatch t = xsimd::tanh(fbatch(kK) * xsimd::fma(fbatch(kA) * z, z2, z));
  const fbatch half(0.5f), one(1.f);
  return half * (one + t) +
         half * z * (one - t * t) * fbatch(kK) * xsimd::fma(fbatch(3.f * kA), z2, one);
}

inline float act_fwd(float z, Act act) {
  return act == Act::ReLU ? (z > 0 ? z : 0.f) : act == Act::GELU ? ref::gelu(z) : z;
}

}  // namespace

void bias_act_forward(float* y, float* pre, const float* x, const float* bias, Act act, int R,
                      int C) {
  threads::parallel_for(R, threads::chunks_for(double(R) * C, kActivationGrain),
                        [&](long r0, long r1, int) {
                          for (long r = r0; r < r1; ++r) {
                            const size_t o = size_t(r) * C;
                            int c = 0;
                            for (; c + W <= C; c += W) {
                              fbatch z = simd::load(x + o + c);
                              if (bias) z += simd::load(bias + c);
                              if (pre) simd::store(pre + o + c, z);
                              simd::store(y + o + c, act_fwd(z, act));
                            }
                            for (; c < C; ++c) {
                              const float z = x[o + c] + (bias ? bias[c] : 0.f);
                              if (pre) pre[o + c] = z;
                              y[o + c] = act_fwd(z, act);
                            }
                          }
                        });
}

void bias_act_backward(float* dx, float* dbias, const float* dy, const float* pre, Act act, int R,
                       int C) {
  const double work = double(R) * C;
  threads::parallel_for(R, threads::chunks_for(work, kActivationGrain), [&](long r0, long r1, int) {
    for (long r = r0; r < r1; ++r) {
      const size_t o = size_t(r) * C;
      int c = 0;
      if (act == Act::None) {
        if (dx != dy) std::copy(dy + o, dy + o + C, dx + o);
        continue;
      }
      for (; c + W <= C; c += W)
        simd::store(dx + o + c, simd::load(dy + o + c) * act_grad(simd::load(pre + o + c), act));
      for (; c < C; ++c) {
        const float z = pre[o + c];
        dx[o + c] = dy[o + c] * (act == Act::ReLU ? (z > 0 ? 1.f : 0.f) : ref::gelu_grad(z));
      }
    }
  });
  if (!dbias) return;
  const long col_blocks = (C + W - 1) / W;
  threads::parallel_for(col_blocks, threads::chunks_for(work, kActivationGrain),
                        [&](long b0, long b1, int) {
                          const int c0 = int(b0) * W, c1 = std::min(C, int(b1) * W);
                          for (int r = 0; r < R; ++r) {
                            const float* d = dx + size_t(r) * C;
                            int c = c0;
                            for (; c + W <= c1; c += W)
                              simd::store(dbias + c, simd::load(dbias + c) + simd::load(d + c));
                            for (; c < c1; ++c) dbias[c] += d[c];
                          }
                        });
}

}  // namespace attnlab::kernels::cpu
