// Softmax, positional encoding and content addressing for the guide (see functions.hpp).
#include "api/functions.hpp"

#include <cmath>
#include <cstdint>

#include "core/check.hpp"
#include "kernels/kernels.hpp"

namespace attnlab::api {

std::vector<float> softmax(const std::vector<float>& x, int R, int C, float temperature) {
  AL_CHECK(R > 0 && C > 0,
           "softmax: rows and columns must be positive (R=" << R << " C=" << C << ")");
  AL_CHECK(uint64_t(x.size()) == uint64_t(R) * uint64_t(C),
           "softmax: got " << x.size() << " scores, expected R*C = " << uint64_t(R) * uint64_t(C));
  AL_CHECK(std::isfinite(temperature) && temperature > 0,
           "softmax: temperature must be a positive number, got " << temperature);
  for (float v : x) AL_CHECK(std::isfinite(v), "softmax: scores must be finite, got " << v);
  std::vector<float> y(x.size());  // [R,C]
  cpu_kernels().softmax_forward(y.data(), x.data(), 1.f / temperature, nullptr, false, 1, 1, R, C);
  return y;
}

std::vector<float> positional_encoding(int L, int C) {
  AL_CHECK(L > 0 && C > 0 && int64_t(L) * C <= (int64_t(1) << 24),
           "positional_encoding: need 0 < L, 0 < C and L*C <= 2^24 (L=" << L << " C=" << C << ")");
  std::vector<float> pe(size_t(L) * C);  // [L,C]
  for (int pos = 0; pos < L; ++pos)
    for (int c = 0; c < C; ++c) {
      const double angle = pos * std::pow(10000.0, -double(c / 2 * 2) / C);
      pe[size_t(pos) * C + c] = float(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

ContentAddress content_address(const std::vector<float>& memory, const std::vector<float>& key,
                               int N, int W, float beta) {
  AL_CHECK(N > 0 && W > 0,
           "content_address: N and W must be positive (N=" << N << " W=" << W << ")");
  AL_CHECK(uint64_t(memory.size()) == uint64_t(N) * uint64_t(W),
           "content_address: memory has "
               << memory.size() << " values, expected N*W = " << uint64_t(N) * uint64_t(W));
  AL_CHECK(key.size() == size_t(W),
           "content_address: key has " << key.size() << " values, expected W = " << W);
  AL_CHECK(std::isfinite(beta) && beta >= 0,
           "content_address: beta must be a non-negative number, got " << beta);
  const double eps = 1e-8;  // keeps a zero row or key at similarity 0 instead of NaN
  double kk = 0;
  for (float v : key) kk += double(v) * v;
  ContentAddress r;
  r.similarity.resize(N);
  r.weights.resize(N);
  for (int i = 0; i < N; ++i) {
    double dot = 0, mm = 0;
    for (int w = 0; w < W; ++w) {
      const double m = memory[size_t(i) * W + w];
      dot += m * key[w];
      mm += m * m;
    }
    r.similarity[i] = float(dot / (std::sqrt(kk * mm) + eps));
  }
  cpu_kernels().softmax_forward(r.weights.data(), r.similarity.data(), beta, nullptr, false, 1, 1,
                                1, N);
  return r;
}

}  // namespace attnlab::api
