// Embedding gather and scatter-add over rows [R,C] of a table [V,C]:
//   forward out[r,:] = scale * W[ids[r],:];  backward dW[ids[r],:] += scale * dout[r,:].
// The gather splits rows across threads. The scatter splits columns, and each thread adds the
// rows in index order, so repeated ids accumulate in a fixed order for any thread count.
#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

constexpr double kEmbeddingGrain = 65536;  // elements per thread

}  // namespace

void embedding_forward(float* out, const float* Wt, const int32_t* ids, int R, int C, float scale) {
  threads::parallel_for(R, threads::chunks_for(double(R) * C, kEmbeddingGrain),
                        [&](long r0, long r1, int) {
                          const fbatch a(scale);
                          for (long r = r0; r < r1; ++r) {
                            const float* src = Wt + size_t(ids[r]) * C;
                            float* dst = out + size_t(r) * C;
                            int c = 0;
                            for (; c + W <= C; c += W)
                              simd::store(dst + c, a * simd::load(src + c));
                            for (; c < C; ++c) dst[c] = scale * src[c];
                          }
                        });
}

void embedding_backward(float* dW, const float* dout, const int32_t* ids, int R, int C,
                        float scale) {
  const int chunks = threads::chunks_for(double(R) * C, kEmbeddingGrain);
  // Column chunks rounded to whole SIMD batches, so every thread runs the vector loop.
  const long batches = (C + W - 1) / W;
  threads::parallel_for(batches, chunks, [&](long b0, long b1, int) {
    const int c0 = int(b0 * W), c1 = int(b1 * W < C ? b1 * W : C);
    const fbatch a(scale);
    for (int r = 0; r < R; ++r) {
      float* dst = dW + size_t(ids[r]) * C;
      const float* src = dout + size_t(r) * C;
      int c = c0;
      for (; c + W <= c1; c += W)
        simd::store(dst + c, xsimd::fma(a, simd::load(src + c), simd::load(dst + c)));
      for (; c < c1; ++c) dst[c] += scale * src[c];
    }
  });
}

}  // namespace attnlab::kernels::cpu
