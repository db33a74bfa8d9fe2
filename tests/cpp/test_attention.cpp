// Scaled dot-product attention: hand-checked values, masks, and SIMD vs. reference on odd sizes.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/tensor.hpp"
#include "kernels/attention.hpp"
#include "tolerances.hpp"

using namespace attnlab;
using attnlab::test::kKernelAbs;
using attnlab::test::kKernelRel;

TEST_CASE("attention: hand-checked 2x2 example", "[kernels][attention]") {
  // q = [[1,0],[0,1]], k = [[1,0],[0,1]], d_k = 2 -> scores = I/sqrt(2)
  // weights row 0 = softmax([1/sqrt2, 0]) = [e^a/(e^a+1), 1/(e^a+1)], a = 0.70710678
  std::vector<float> q = {1, 0, 0, 1}, k = {1, 0, 0, 1}, v = {10, 0, 0, 20};
  std::vector<float> out(4), att(4);
  kernels::attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), nullptr, false,
                             1, 1, 2, 2, 2, 2);
  const double a = 1.0 / std::sqrt(2.0);
  const double w0 = std::exp(a) / (std::exp(a) + 1.0);  // 0.66976155
  CHECK(att[0] == Approx(w0).epsilon(1e-6));
  CHECK(att[1] == Approx(1 - w0).epsilon(1e-6));
  CHECK(att[2] == Approx(1 - w0).epsilon(1e-6));
  CHECK(att[3] == Approx(w0).epsilon(1e-6));
  CHECK(out[0] == Approx(10 * w0).epsilon(1e-6));
  CHECK(out[1] == Approx(20 * (1 - w0)).epsilon(1e-6));
}

TEST_CASE("attention: causal mask zeroes the future, padding zeroes masked keys",
          "[kernels][attention]") {
  Rng rng(7);
  const int T = 5, S = 5, D = 3;
  Tensor q = randn({1, 1, T, D}, rng), k = randn({1, 1, S, D}, rng), v = randn({1, 1, S, D}, rng);
  Tensor out = Tensor::from_shape({1, 1, T, D}), att = Tensor::from_shape({1, 1, T, S});
  kernels::attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), nullptr, true, 1,
                             1, T, S, D, D);
  for (int i = 0; i < T; ++i) {
    double sum = 0;
    for (int j = 0; j < S; ++j) {
      if (j > i) CHECK(att(0, 0, i, j) == 0.f);
      sum += att(0, 0, i, j);
    }
    CHECK(sum == Approx(1.0).epsilon(1e-6));
  }
  // Row 0 under a causal mask sees only key 0: output equals v[0].
  for (int d = 0; d < D; ++d) CHECK(out(0, 0, 0, d) == Approx(v(0, 0, 0, d)).epsilon(1e-6));

  std::vector<uint8_t> pad = {0, 0, 1, 0, 1};
  kernels::attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), pad.data(),
                             false, 1, 1, T, S, D, D);
  for (int i = 0; i < T; ++i) {
    CHECK(att(0, 0, i, 2) == 0.f);
    CHECK(att(0, 0, i, 4) == 0.f);
  }
}

TEST_CASE("attention: a fully masked row gives zeros, not NaN", "[kernels][attention]") {
  std::vector<float> q = {1, 2}, k = {3, 4}, v = {5, 6}, out(2, -1.f), att(1, -1.f);
  std::vector<uint8_t> pad = {1};
  kernels::attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), pad.data(),
                             false, 1, 1, 1, 1, 2, 2);
  CHECK(att[0] == 0.f);
  CHECK(out[0] == 0.f);
  CHECK(out[1] == 0.f);
}

TEST_CASE("attention: SIMD matches the reference loop on odd sizes", "[kernels][attention]") {
  struct Case {
    int B, H, T, S, Dk, Dv;
    bool causal, pad;
  };
  const Case cases[] = {{1, 1, 1, 1, 1, 1, false, false},
                        {2, 3, 7, 7, 13, 5, true, false},
                        {1, 2, 3, 9, 17, 33, false, true},
                        {3, 1, 16, 16, 64, 64, true, true},
                        {1, 4, 5, 11, 8, 8, true, false}};
  Rng rng(42);
  for (const auto& c : cases) {
    Tensor q = randn({size_t(c.B), size_t(c.H), size_t(c.T), size_t(c.Dk)}, rng);
    Tensor k = randn({size_t(c.B), size_t(c.H), size_t(c.S), size_t(c.Dk)}, rng);
    Tensor v = randn({size_t(c.B), size_t(c.H), size_t(c.S), size_t(c.Dv)}, rng);
    std::vector<uint8_t> pad(size_t(c.B) * c.S, 0);
    if (c.pad)
      for (int b = 0; b < c.B; ++b) pad[size_t(b) * c.S + (c.S - 1 - b % c.S)] = 1;
    const uint8_t* padp = c.pad ? pad.data() : nullptr;
    Tensor o1 = Tensor::from_shape({size_t(c.B), size_t(c.H), size_t(c.T), size_t(c.Dv)});
    Tensor o2 = o1;
    Tensor a1 = Tensor::from_shape({size_t(c.B), size_t(c.H), size_t(c.T), size_t(c.S)});
    Tensor a2 = a1;
    kernels::attention_forward(o1.data(), a1.data(), q.data(), k.data(), v.data(), padp, c.causal,
                               c.B, c.H, c.T, c.S, c.Dk, c.Dv);
    kernels::attention_forward_ref(o2.data(), a2.data(), q.data(), k.data(), v.data(), padp,
                                   c.causal, c.B, c.H, c.T, c.S, c.Dk, c.Dv);
    for (size_t i = 0; i < a1.size(); ++i)
      REQUIRE(std::abs(a1.data()[i] - a2.data()[i]) <=
              kKernelAbs + kKernelRel * std::abs(a2.data()[i]));
    for (size_t i = 0; i < o1.size(); ++i)
      REQUIRE(std::abs(o1.data()[i] - o2.data()[i]) <=
              10 * kKernelAbs + kKernelRel * std::abs(o2.data()[i]));
  }
}
