// The guide's standalone computations (cpp/api/functions.hpp): values checked by hand or
// against a direct double-precision formula, and every argument error.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "api/functions.hpp"
#include "core/check.hpp"
#include "tolerances.hpp"

using namespace attnlab;
using attnlab::test::kKernelAbs;

TEST_CASE("api softmax: rows sum to one, temperature flattens", "[api]") {
  // softmax([1,2,3]) = [0.09003057, 0.24472847, 0.66524096]
  const std::vector<float> y = api::softmax({1, 2, 3, 0, 0, 0}, 2, 3);
  CHECK(y[0] == Approx(0.09003057).margin(kKernelAbs));
  CHECK(y[1] == Approx(0.24472847).margin(kKernelAbs));
  CHECK(y[2] == Approx(0.66524096).margin(kKernelAbs));
  for (int j = 3; j < 6; ++j) CHECK(y[j] == Approx(1.0 / 3).margin(kKernelAbs));
  // temperature 2: softmax([0.5, 1, 1.5]) = [0.18632372, 0.30719589, 0.50648039]
  const std::vector<float> t = api::softmax({1, 2, 3}, 1, 3, 2.f);
  CHECK(t[0] == Approx(0.18632372).margin(kKernelAbs));
  CHECK(t[2] == Approx(0.50648039).margin(kKernelAbs));
}

TEST_CASE("api softmax: bad arguments throw", "[api]") {
  CHECK_THROWS_WITH(api::softmax({1, 2}, 1, 3), Catch::Contains("expected R*C = 3"));
  CHECK_THROWS_WITH(api::softmax({1}, 0, 1), Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(api::softmax({1}, 1, 1, 0.f), Catch::Contains("temperature"));
  CHECK_THROWS_WITH(api::softmax({NAN}, 1, 1), Catch::Contains("finite"));
}

TEST_CASE("api positional_encoding: the sin/cos formula, unit-norm pairs", "[api]") {
  const int L = 50, C = 16;
  const std::vector<float> pe = api::positional_encoding(L, C);
  REQUIRE(pe.size() == size_t(L * C));
  for (int pos = 0; pos < L; ++pos)
    for (int i = 0; i < C / 2; ++i) {
      const double angle = pos / std::pow(10000.0, 2.0 * i / C);
      CHECK(pe[pos * C + 2 * i] == Approx(std::sin(angle)).margin(kKernelAbs));
      CHECK(pe[pos * C + 2 * i + 1] == Approx(std::cos(angle)).margin(kKernelAbs));
    }
  CHECK(pe[0] == 0.f);
  CHECK(pe[1] == 1.f);
  CHECK_THROWS_WITH(api::positional_encoding(0, 4), Catch::Contains("positional_encoding"));
}

TEST_CASE("api content_address: cosine similarity and sharpened softmax", "[api]") {
  // rows: same direction as the key, orthogonal, opposite, zero
  const std::vector<float> memory = {2, 0, 0, 3, -1, 0, 0, 0};
  const std::vector<float> key = {5, 0};
  const api::ContentAddress a = api::content_address(memory, key, 4, 2, 1.f);
  CHECK(a.similarity[0] == Approx(1).margin(1e-6));
  CHECK(a.similarity[1] == Approx(0).margin(1e-6));
  CHECK(a.similarity[2] == Approx(-1).margin(1e-6));
  CHECK(a.similarity[3] == Approx(0).margin(1e-6));
  // weights = softmax([1, 0, -1, 0]); e + 1 + 1/e + 1 = 5.08616127
  CHECK(a.weights[0] == Approx(std::exp(1.0) / 5.08616127).margin(kKernelAbs));
  CHECK(a.weights[2] == Approx(std::exp(-1.0) / 5.08616127).margin(kKernelAbs));
  // a large beta focuses on the best match, beta = 0 spreads evenly
  CHECK(api::content_address(memory, key, 4, 2, 50.f).weights[0] > 0.999f);
  for (float w : api::content_address(memory, key, 4, 2, 0.f).weights) CHECK(w == Approx(0.25));
  CHECK_THROWS_WITH(api::content_address(memory, {1, 2, 3}, 4, 2, 1.f),
                    Catch::Contains("expected W = 2"));
  CHECK_THROWS_WITH(api::content_address(memory, key, 4, 2, -1.f), Catch::Contains("beta"));
}
