// Masked softmax over attention rows (kernels.hpp): forward
//   y_j = exp(s x_j - m) / sum_k exp(s x_k - m), m = max over unmasked keys, masked y_j = 0,
// backward  dx_j = s * y_j * (dy_j - sum_k dy_k y_k).  Rows are split across threads.
#include <algorithm>
#include <cmath>

#include "kernels/cpu.hpp"
#include "kernels/simd.hpp"
#include "kernels/threads.hpp"

namespace attnlab::kernels::cpu {

namespace {

using simd::fbatch;
using simd::W;

constexpr double kGrain = 32768;  // elements per thread

// One row: keys [0, len) may be visible (pad marks masked ones), keys [len, S) are masked.
// Masked keys are set to -inf before the exponent, which xsimd's exp maps to exactly 0, so the
// whole row runs in vectors (causal rows shorter than a vector included).
void softmax_row(float* y, const float* x, float scale, const uint8_t* pad, int len, int S) {
  const fbatch vs(scale);
  int j = 0;
  if (pad) {
    for (; j < len; ++j) y[j] = pad[j] ? -INFINITY : x[j] * scale;
  } else {
    for (; j + W <= len; j += W) simd::store(y + j, simd::load(x + j) * vs);
    for (; j < len; ++j) y[j] = x[j] * scale;
  }
  for (j = len; j < S; ++j) y[j] = -INFINITY;
  const float mx = simd::max(y, S);
  if (mx == -INFINITY) {
    for (j = 0; j < S; ++j) y[j] = 0.f;
    return;
  }
  const fbatch vm(mx);
  fbatch acc(0.f);
  for (j = 0; j + W <= S; j += W) {
    const fbatch e = xsimd::exp(simd::load(y + j) - vm);
    simd::store(y + j, e);
    acc += e;
  }
  float sum = xsimd::hadd(acc);
  for (; j < S; ++j) sum += y[j] = y[j] == -INFINITY ? 0.f : std::exp(y[j] - mx);
  simd::scale(y, 1.f / sum, S);
}

}  // namespace

void softmax_forward(float* y, const float* x, float scale, const uint8_t* key_pad, bool causal,
                     int B, int H, int T, int S) {
  const long R = long(B) * H * T;
  threads::parallel_for(R, threads::chunks_for(double(R) * S, kGrain), [&](long r0, long r1, int) {
    for (long r = r0; r < r1; ++r) {
      const int i = int(r % T), b = int(r / (long(H) * T));
      int len = S;
      if (causal) len = std::max(0, std::min(S, i + (S - T) + 1));
      softmax_row(y + r * S, x + r * S, scale, key_pad ? key_pad + size_t(b) * S : nullptr, len, S);
    }
  });
}

void softmax_backward(float* dx, const float* y, const float* dy, float scale, int R, int S) {
  threads::parallel_for(R, threads::chunks_for(double(R) * S, kGrain), [&](long r0, long r1, int) {
    for (long r = r0; r < r1; ++r) {
      const float* yr = y + r * S;
      const float* dyr = dy + r * S;
      float* dxr = dx + r * S;
      const float d = simd::dot(dyr, yr, S);
      const fbatch dot(d), vs(scale);
      int j = 0;
      for (; j + W <= S; j += W)
        simd::store(dxr + j, vs * simd::load(yr + j) * (simd::load(dyr + j) - dot));
      for (; j < S; ++j) dxr[j] = scale * yr[j] * (dyr[j] - d);
    }
  });
}

}  // namespace attnlab::kernels::cpu
