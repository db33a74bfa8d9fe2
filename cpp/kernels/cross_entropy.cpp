// Softmax cross-entropy with label smoothing eps and an ignore index over rows [R,V]:
//   q_v = eps/V + (1-eps)[v = target], logp = l - lse(l), loss = -sum_v q_v logp_v
//       = -(eps * (mean_v l_v - lse) + (1-eps) * (l_t - lse)),
//   dlogits = grad_scale * (softmax(l) - q)   (dlogits may alias logits; read before written).
// Rows are split across threads.
#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

constexpr double kCrossEntropyGrain = 16384;  // elements per thread

}  // namespace

void cross_entropy(float* loss, float* dlogits, const float* logits, const int32_t* targets,
                   float smoothing, int ignore_index, float grad_scale, int R, int V) {
  for (int r = 0; r < R; ++r)
    AL_CHECK(
        targets[r] == ignore_index || (targets[r] >= 0 && targets[r] < V),
        "cross_entropy: target " << targets[r] << " of row " << r << " outside [0, " << V << ")");
  threads::parallel_for(
      R, threads::chunks_for(double(R) * V, kCrossEntropyGrain), [&](long r0, long r1, int) {
        for (long r = r0; r < r1; ++r) {
          const float* l = logits + r * V;
          float* d = dlogits + r * V;
          const int t = targets[r];
          if (t == ignore_index) {
            loss[r] = 0.f;
            std::fill(d, d + V, 0.f);
            continue;
          }
          const float mx = simd::max(l, V);
          const fbatch vm(mx);
          fbatch acc(0.f);
          int v = 0;
          for (; v + W <= V; v += W) acc += xsimd::exp(simd::load(l + v) - vm);
          float sum = xsimd::hadd(acc);
          for (; v < V; ++v) sum += std::exp(l[v] - mx);
          const float lse = mx + std::log(sum);
          const float off = smoothing / V, on = 1.f - smoothing + off;
          const float mean_l = simd::sum(l, V) / V;
          const float lt = l[t];
          loss[r] = -(smoothing * (mean_l - lse) + (1.f - smoothing) * (lt - lse));
          const fbatch vl(lse), vg(grad_scale), voff(off);
          for (v = 0; v + W <= V; v += W)
            simd::store(d + v, vg * (xsimd::exp(simd::load(l + v) - vl) - voff));
          for (; v < V; ++v) d[v] = grad_scale * (std::exp(l[v] - lse) - off);
          d[t] = grad_scale * (std::exp(lt - lse) - on);
        }
      });
}

}  // namespace attnlab::kernels::cpu
