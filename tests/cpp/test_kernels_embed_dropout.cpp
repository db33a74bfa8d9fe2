// Embedding gather/scatter-add and counter-hash dropout of the CPU table: against plain loops
// (repeated ids included), mask statistics over 1e5 elements, the mask as a pure function of
// (seed, offset + i), the backward pass as the mask, and the same bits for every thread count.
#include <cmath>
#include <cstdint>
#include <set>

#include "kernel_check.hpp"
#include "kernels/counter_hash.hpp"
#include "kernels/kernels.hpp"
#include "layers/dropout.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

std::vector<int32_t> random_ids(int R, int V, Rng& rng) {
  std::vector<int32_t> ids(static_cast<size_t>(R));
  for (auto& id : ids) id = int32_t(rng.below(uint32_t(V)));
  return ids;
}

std::vector<float> dropout_mask(long n, float p, uint64_t seed, uint64_t offset) {
  std::vector<float> x(size_t(n), 1.f), y(static_cast<size_t>(n)), mask(static_cast<size_t>(n));
  K().dropout_forward(y.data(), mask.data(), x.data(), n, p, seed, offset);
  return mask;
}

}  // namespace

TEST_CASE("embedding gather and scatter-add match plain loops with repeated ids",
          "[kernels][embedding]") {
  Rng rng(5);
  for (const int C : {1, 7, 37, 64, 300}) {
    const int V = 6, R = 41;  // 41 ids over 6 rows: every row repeats
    const float scale = rng.uniform(0.5f, 3.f);
    const auto W = randv(size_t(V) * C, rng), dout = randv(size_t(R) * C, rng),
               dW0 = randv(size_t(V) * C, rng);
    const auto ids = random_ids(R, V, rng);
    std::vector<float> out(size_t(R) * C, -7.f), want(size_t(R) * C);
    K().embedding_forward(out.data(), W.data(), ids.data(), R, C, scale);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) want[size_t(r) * C + c] = scale * W[size_t(ids[r]) * C + c];
    CHECK(out == want);

    auto dW = dW0;
    K().embedding_backward(dW.data(), dout.data(), ids.data(), R, C, scale);
    std::vector<double> acc(dW0.begin(), dW0.end());
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        acc[size_t(ids[r]) * C + c] += double(scale) * dout[size_t(r) * C + c];
    check_close(dW, std::vector<float>(acc.begin(), acc.end()), "embedding_backward");
  }
}

TEST_CASE("embedding kernels: same bits for every thread count", "[kernels][embedding]") {
  Rng rng(6);
  const int V = 50, R = 400, C = 515;  // above the threading threshold, C not a batch multiple
  const auto W = randv(size_t(V) * C, rng), dout = randv(size_t(R) * C, rng);
  const auto ids = random_ids(R, V, rng);
  std::vector<float> out1(size_t(R) * C), out2(size_t(R) * C), dW1(size_t(V) * C, 0.f),
      dW2(size_t(V) * C, 0.f);
  with_threads(1, [&] {
    K().embedding_forward(out1.data(), W.data(), ids.data(), R, C, 1.5f);
    K().embedding_backward(dW1.data(), dout.data(), ids.data(), R, C, 1.5f);
  });
  with_threads(2, [&] {
    K().embedding_forward(out2.data(), W.data(), ids.data(), R, C, 1.5f);
    K().embedding_backward(dW2.data(), dout.data(), ids.data(), R, C, 1.5f);
  });
  CHECK(out1 == out2);
  CHECK(dW1 == dW2);
}

TEST_CASE("counter hash is splitmix64 (known answers)", "[kernels][dropout]") {
  // splitmix64 seeded with 0: its first two outputs are mix64 of 1x and 2x the golden gamma.
  CHECK(counter_hash::mix64(0x9E3779B97F4A7C15ull) == 0xE220A8397B1DCDAFull);
  CHECK(counter_hash::mix64(0x3C6EF372FE94F82Aull) == 0x6E789E6AA1B965F4ull);
}

TEST_CASE("dropout mask: keep rate within 3 sigma, kept values scaled by 1/(1-p)",
          "[kernels][dropout]") {
  const long n = 100000;
  Rng rng(9);
  const auto x = randv(size_t(n), rng);
  for (const float p : {0.1f, 0.3f, 0.5f, 0.9f}) {
    std::vector<float> y(static_cast<size_t>(n)), mask(static_cast<size_t>(n));
    K().dropout_forward(y.data(), mask.data(), x.data(), n, p, 1234, 0);
    const float keep = 1.f / (1.f - p);
    long kept = 0;
    for (long i = 0; i < n; ++i) {
      REQUIRE((mask[size_t(i)] == 0.f || mask[size_t(i)] == keep));
      REQUIRE(y[size_t(i)] == x[size_t(i)] * mask[size_t(i)]);
      kept += mask[size_t(i)] != 0.f;
    }
    const double mean = n * (1.0 - p), sigma = std::sqrt(n * p * (1.0 - p));
    INFO("p = " << p << ": kept " << kept << " of " << n << ", expected " << mean);
    CHECK(std::abs(kept - mean) <= 3 * sigma);
  }
  const auto all = dropout_mask(1000, 0.f, 5, 0);  // p = 0 keeps everything, unscaled
  CHECK(std::set<float>(all.begin(), all.end()) == std::set<float>{1.f});
}

TEST_CASE("dropout mask is a function of (seed, offset + i)", "[kernels][dropout]") {
  const long n = 5000;
  const auto a = dropout_mask(n, 0.5f, 77, 0), b = dropout_mask(n, 0.5f, 77, 0);
  CHECK(a == b);
  const auto shifted = dropout_mask(n - 100, 0.5f, 77, 100);  // offset k = the stream from i = k
  CHECK(shifted == std::vector<float>(a.begin() + 100, a.end()));
  const auto other_offset = dropout_mask(n, 0.5f, 77, 1), other_seed = dropout_mask(n, 0.5f, 78, 0);
  long diff_offset = 0, diff_seed = 0;
  for (long i = 0; i < n; ++i) {
    diff_offset += a[size_t(i)] != other_offset[size_t(i)];
    diff_seed += a[size_t(i)] != other_seed[size_t(i)];
  }
  // Independent masks at p = 0.5 differ in about half the places.
  CHECK(diff_offset > n / 3);
  CHECK(diff_seed > n / 3);
  std::vector<float> m1, m2;
  with_threads(1, [&] { m1 = dropout_mask(300000, 0.2f, 3, 11); });
  with_threads(2, [&] { m2 = dropout_mask(300000, 0.2f, 3, 11); });
  CHECK(m1 == m2);
}

TEST_CASE("dropout backward multiplies by the mask, in place too", "[kernels][dropout]") {
  Rng rng(10);
  const long n = 1001;
  const auto x = randv(size_t(n), rng), dy = randv(size_t(n), rng);
  std::vector<float> y = x, mask(static_cast<size_t>(n)), dx(static_cast<size_t>(n));
  K().dropout_forward(y.data(), mask.data(), y.data(), n, 0.25f, 42, 8);  // y aliases x
  K().dropout_backward(dx.data(), mask.data(), dy.data(), n);
  auto d = dy;
  K().dropout_backward(d.data(), mask.data(), d.data(), n);
  CHECK(d == dx);
  // y is linear in x: d(sum dy * y)/dx_i = dy_i * (y_i / x_i) wherever x_i != 0.
  for (long i = 0; i < n; ++i) {
    const float slope = y[size_t(i)] / x[size_t(i)];
    REQUIRE(dx[size_t(i)] == Approx(dy[size_t(i)] * slope).epsilon(1e-6));
  }
}

TEST_CASE("dropout layer: one seed per call from the Rng, reproducible", "[kernels][dropout]") {
  ParamArena P(K());
  Rng init(1);
  P.allocate(init);
  Workspace ws(K());
  const size_t n = 4096;
  std::vector<float> x(n, 1.f), y1(n), y2(n), y3(n);
  auto run = [&](Rng& rng, std::vector<float>& y, std::vector<float>& y_next) {
    const Ctx c{K(), P, ws, true, &rng};
    DropoutCache a, b;
    dropout_forward(c, a, y.data(), x.data(), n, 0.5f);
    dropout_forward(c, b, y_next.data(), x.data(), n, 0.5f);
  };
  Rng r1(3), r2(3);
  std::vector<float> z1(n), z2(n);
  run(r1, y1, z1);
  run(r2, y2, z2);
  CHECK(y1 == y2);  // same seed, same masks
  CHECK(z1 == z2);
  CHECK(y1 != z1);  // successive calls draw new masks
  Rng r3(3);
  const uint64_t hi = r3.next_u32(), seed = (hi << 32) | r3.next_u32();
  std::vector<float> mask(n);
  K().dropout_forward(y3.data(), mask.data(), x.data(), long(n), 0.5f, seed, 0);
  CHECK(y3 == y1);
  const Ctx eval{K(), P, ws, false, nullptr};  // not training: the identity, no mask
  DropoutCache none;
  dropout_forward(eval, none, y3.data(), x.data(), n, 0.5f);
  CHECK(none.mask == nullptr);
  CHECK(y3 == x);
}
