// Half-precision checkpoints (attn export --half): binary16 conversion is exact where it can be
// (every half survives a round trip), rounds to the nearest half with ties to even (checked
// against the neighbouring halves, not a second implementation), and keeps subnormals, signed
// zeros, infinities and NaN; a model stored in float16 loads and gives nearly the same logits.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "core/check.hpp"
#include "core/rng.hpp"
#include "io/checkpoint.hpp"

using namespace attnlab;

TEST_CASE("half: every binary16 value survives f16 -> f32 -> f16", "[io]") {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const float x = f16_to_f32(uint16_t(h));
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
    if (nan) {
      CHECK(std::isnan(x));
      CHECK(std::isnan(f16_to_f32(f32_to_f16(x))));
    } else {
      INFO("h = " << h);
      REQUIRE(f32_to_f16(x) == h);
    }
  }
  CHECK(f16_to_f32(0x3c00) == 1.f);
  CHECK(f16_to_f32(0x7bff) == 65504.f);
  CHECK(f16_to_f32(0x0001) == std::ldexp(1.f, -24));
  CHECK(std::signbit(f16_to_f32(0x8000)));
}

TEST_CASE("half: floats round to the nearest half, ties to even", "[io]") {
  Rng rng(5);
  for (int i = 0; i < 200000; ++i) {
    // magnitudes from 2^-26 to 2^16 (subnormal halves, normals, overflow), both signs
    const float x = float((rng.uniform() < 0.5 ? -1 : 1) *
                          std::ldexp(1.0 + rng.uniform(), int(rng.uniform() * 42) - 26));
    const uint16_t h = f32_to_f16(x);
    const double err = std::fabs(double(f16_to_f32(h)) - x);
    if (std::isinf(f16_to_f32(h))) {
      CHECK(std::fabs(x) >= 65520.f);
      continue;
    }
    CHECK(std::fabs(x) < 65520.f);
    const uint16_t mag = h & 0x7fffu;
    for (const uint16_t n : {uint16_t(mag + 1), uint16_t(mag ? mag - 1 : 0)}) {
      if (n >= 0x7c00u) continue;
      const double e2 = std::fabs(double(f16_to_f32(uint16_t(n | (h & 0x8000u)))) - x);
      INFO("x = " << x << " h = " << h << " neighbour " << n);
      CHECK(err <= e2);
      if (err == e2 && n != mag) CHECK((mag & 1u) == 0u);  // a tie goes to the even half
    }
  }
  CHECK(f32_to_f16(1.f + std::ldexp(1.f, -11)) == 0x3c00);      // halfway, down to even
  CHECK(f32_to_f16(1.f + 3 * std::ldexp(1.f, -11)) == 0x3c02);  // halfway, up to even
  CHECK(f32_to_f16(std::ldexp(1.f, -25)) == 0x0000);            // half the smallest subnormal
  CHECK(f32_to_f16(65520.f) == 0x7c00);
  CHECK(f32_to_f16(-INFINITY) == 0xfc00);
  CHECK(std::isnan(f16_to_f32(f32_to_f16(NAN))));
}

TEST_CASE("half: a Transformer stored in float16 loads and keeps its outputs", "[io]") {
  const nlohmann::json cfg = {{"model", "transformer"}, {"src_vocab", 9},  {"tgt_vocab", 9},
                              {"d_model", 16},          {"heads", 2},      {"d_ff", 32},
                              {"enc_layers", 1},        {"dec_layers", 1}, {"max_len", 12}};
  auto a = make_model(cfg, cpu_kernels(), 3);
  const SafeTensors full = model_tensors(*a);
  SafeTensors half;
  half.metadata = full.metadata;
  for (const StTensor& t : full.tensors) {
    const std::vector<float> v = t.to_f32();
    half.add_f16(t.name, t.shape, v.data());
  }
  const std::vector<uint8_t> hb = serialize_safetensors(half), fb = serialize_safetensors(full);
  CHECK(hb.size() < fb.size() * 6 / 10);
  auto b = model_from_safetensors(parse_safetensors(hb.data(), hb.size()), cpu_kernels());
  Batch batch;
  batch.B = 1;
  batch.S = 4;
  batch.T = 3;
  batch.src = {3, 4, 5, 6};
  batch.tgt_in = {1, 6, 5};
  batch.tgt_out = {6, 5, 2};
  a->forward(batch, false, nullptr, 0.f);
  b->forward(batch, false, nullptr, 0.f);
  const std::vector<float> la = a->logits(), lb = b->logits();
  REQUIRE(la.size() == lb.size());
  double worst = 0, differs = 0;
  for (size_t i = 0; i < la.size(); ++i) {
    worst = std::max(worst, double(std::fabs(la[i] - lb[i])));
    differs += la[i] != lb[i];
  }
  CHECK(worst < 2e-2);  // float16 keeps ~3 decimal digits of each weight
  CHECK(differs > 0);   // and the model did change: the comparison is not vacuous
  std::vector<float> big(4, 1e5f);
  SafeTensors bad;
  CHECK_THROWS_AS(bad.add_f16("w", {4}, big.data()), Error);
}
