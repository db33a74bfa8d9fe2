// Inspecting a Transformer's heads (Session::inspect with InspectOptions): the per-head Q, K, V
// it returns reproduce every attention map (softmax(q kᵀ/√hs) over the keys the map leaves
// unmasked), and muting heads zeroes their output for that pass only — with every cross-
// attention head muted the decoder no longer sees the source, a muted sublayer's own weights do
// not change while the logits do, the mask is gone afterwards, training refuses a muted pass,
// and bad names, heads and models are clear errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "tolerances.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

json heads_config(const std::string& kind = "transformer") {
  json m = {{"model", kind},   {"d_model", 16},   {"heads", 4},    {"d_ff", 32},
            {"enc_layers", 2}, {"dec_layers", 2}, {"dropout", 0.1}};
  if (kind == "rnnsearch") m = {{"model", kind}, {"emb", 8}, {"hidden", 16}, {"attn", 8}};
  return {{"model", m},
          {"task", "reverse"},
          {"task_options", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}}},
          {"seed", 5},
          {"train", {{"batch", 8}, {"warmup", 20}}}};
}

const api::Rows kSrc = {{3, 4, 5, 6}, {7, 3}};
const api::Rows kTgt = {{6, 5, 4, 3}, {3, 7}};

api::InspectOptions with_parts() {
  api::InspectOptions o;
  o.parts = true;
  return o;
}

api::InspectOptions muting(const HeadMask& mask) {
  api::InspectOptions o;
  o.mute = mask;
  return o;
}

float max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  float d = 0.f;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

}  // namespace

TEST_CASE("inspect parts: q, k, v per head reproduce every attention map", "[api][heads]") {
  auto s = api::Session::create(heads_config());
  s->train(3);
  const api::Inspection in = s->inspect(kSrc, kTgt, with_parts());
  REQUIRE(in.parts.size() == in.maps.size());
  REQUIRE(in.maps.size() == 6);  // 2 encoder self, 2 decoder self, 2 cross
  int checked = 0, masked = 0;
  for (size_t m = 0; m < in.maps.size(); ++m) {
    const AttentionMap& a = in.maps[m];
    const AttentionParts& p = in.parts[m];
    INFO(a.name);
    REQUIRE(p.name == a.name);
    REQUIRE((p.B == a.B && p.H == a.H && p.T == a.T && p.S == a.S && p.hs == 4));
    REQUIRE(p.q.size() == size_t(p.B) * p.H * p.T * p.hs);
    REQUIRE(p.k.size() == size_t(p.B) * p.H * p.S * p.hs);
    REQUIRE(p.v.size() == p.k.size());
    const float scale = 1.f / std::sqrt(float(p.hs));
    for (int b = 0; b < p.B; ++b)
      for (int h = 0; h < p.H; ++h)
        for (int t = 0; t < p.T; ++t) {
          const float* w = a.weights.data() + ((size_t(b) * a.H + h) * a.T + t) * a.S;
          const float* q = p.q.data() + ((size_t(b) * p.H + h) * p.T + t) * p.hs;
          std::vector<double> e(size_t(p.S), 0.0);
          double mx = -1e30, z = 0.0;
          for (int j = 0; j < p.S; ++j) {
            if (w[j] == 0.f) continue;  // a masked key (padding or a later position)
            const float* k = p.k.data() + ((size_t(b) * p.H + h) * p.S + j) * p.hs;
            double dot = 0.0;
            for (int d = 0; d < p.hs; ++d) dot += double(q[d]) * k[d];
            e[size_t(j)] = dot * scale;
            mx = std::max(mx, e[size_t(j)]);
          }
          for (int j = 0; j < p.S; ++j)
            if (w[j] != 0.f) z += std::exp(e[size_t(j)] - mx);
          for (int j = 0; j < p.S; ++j) {
            if (w[j] == 0.f) {
              ++masked;
              continue;
            }
            CHECK(std::fabs(std::exp(e[size_t(j)] - mx) / z - w[j]) < 1e-5);
            ++checked;
          }
        }
  }
  CHECK(checked > 300);
  CHECK(masked > 50);  // padding and the causal mask both occur in this batch
  // Without the option no parts are copied.
  CHECK(s->inspect(kSrc, kTgt).parts.empty());
}

TEST_CASE("inspect mute: zeroed heads, for one pass only", "[api][heads]") {
  auto s = api::Session::create(heads_config());
  s->train(5);
  // Two sources of the same length, one target: only the source differs between the rows.
  const api::Rows src = {{3, 4, 5, 6}, {6, 8, 4, 7}}, tgt = {{6, 5, 4, 3}, {6, 5, 4, 3}};
  const api::Inspection plain = s->inspect(src, tgt);
  const size_t row = plain.logits.size() / 2;
  auto rows_differ = [&](const std::vector<float>& l) {
    float d = 0.f;
    for (size_t i = 0; i < row; ++i) d = std::max(d, std::fabs(l[i] - l[row + i]));
    return d;
  };
  CHECK(rows_differ(plain.logits) > 1e-3f);

  SECTION("every cross-attention head muted: the output no longer depends on the source") {
    const HeadMask all = {{"decoder.layers.0.multihead_attn", {0, 1, 2, 3}},
                          {"decoder.layers.1.multihead_attn", {0, 1, 2, 3}}};
    const api::Inspection blind = s->inspect(src, tgt, muting(all));
    CHECK(rows_differ(blind.logits) < 1e-6f);
    // One head left: the source is visible again.
    HeadMask three = all;
    three["decoder.layers.1.multihead_attn"] = {0, 1, 3};
    CHECK(rows_differ(s->inspect(src, tgt, muting(three)).logits) > 1e-4f);
  }
  SECTION("a muted head leaves its own weights, changes what comes after, and is unmuted after") {
    const api::Inspection muted =
        s->inspect(src, tgt, muting({{"encoder.layers.0.self_attn", {1}}}));
    CHECK(max_diff(muted.maps[0].weights, plain.maps[0].weights) == 0.f);   // the muted sublayer
    CHECK(max_diff(muted.maps[1].weights, plain.maps[1].weights) > 1e-4f);  // the next layer
    CHECK(max_diff(muted.logits, plain.logits) > 1e-4f);
    CHECK(max_diff(s->inspect(src, tgt).logits, plain.logits) == 0.f);
    // Greedy decoding (no targets given) runs with the heads muted too, and is unmuted after.
    const api::Inspection decoded =
        s->inspect(src, {},
                   muting({{"decoder.layers.0.multihead_attn", {0, 1, 2, 3}},
                           {"decoder.layers.1.multihead_attn", {0, 1, 2, 3}}}));
    CHECK(decoded.tgt[0] == decoded.tgt[1]);  // the source is out of sight
    CHECK(max_diff(s->inspect(src, tgt).logits, plain.logits) == 0.f);
  }
  SECTION("training refuses a muted pass; cleared, it trains") {
    set_muted_heads(s->model(), {{"encoder.layers.1.self_attn", {0}}});
    CHECK_THROWS_WITH(s->train(1), Catch::Contains("inference only"));
    set_muted_heads(s->model(), {});
    CHECK_NOTHROW(s->train(1));
  }
  SECTION("bad names and heads are clear errors and leave no mask behind") {
    CHECK_THROWS_WITH(
        s->inspect(src, tgt, muting({{"encoder.layers.5.self_attn", {0}}})),
        Catch::Contains("no attention sublayer named \"encoder.layers.5.self_attn\""));
    CHECK_THROWS_WITH(s->inspect(src, tgt, muting({{"encoder.layers.0.self_attn", {4}}})),
                      Catch::Contains("head 4 of encoder.layers.0.self_attn is out of range"));
    CHECK(max_diff(s->inspect(src, tgt).logits, plain.logits) == 0.f);
  }
}

TEST_CASE("inspect mute: a model without heads takes only the empty mask", "[api][heads]") {
  auto s = api::Session::create(heads_config("rnnsearch"));
  CHECK_NOTHROW(s->inspect(kSrc, kTgt, muting({})));
  CHECK_THROWS_WITH(s->inspect(kSrc, kTgt, muting({{"bahdanau", {0}}})),
                    Catch::Contains("has no attention heads to mute"));
  CHECK(s->inspect(kSrc, kTgt, with_parts()).parts.empty());
}
