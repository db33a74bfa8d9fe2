// Inspecting a Transformer decoder with and without its causal mask (Session::inspect's
// `causal`): with the mask no weight sits above the diagonal and position 0 cannot see later
// targets; without it the weights above the diagonal are positive, rows still sum to 1, key
// padding still holds, position 0 does see later targets, and training is causal afterwards.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "tolerances.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

json mask_config(const std::string& kind) {
  json m = {{"model", kind},   {"d_model", 16},   {"heads", 2},    {"d_ff", 32},
            {"enc_layers", 1}, {"dec_layers", 2}, {"dropout", 0.1}};
  if (kind == "rnnsearch") m = {{"model", kind}, {"emb", 8}, {"hidden", 16}, {"attn", 8}};
  return {{"model", m},
          {"task", "reverse"},
          {"task_options", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}}},
          {"seed", 11},
          {"train", {{"batch", 8}, {"warmup", 20}}}};
}

// Two rows of different lengths, so that the shorter one has padded keys.
const api::Rows kMaskSrc = {{3, 4, 5, 6}, {7, 3}};
const api::Rows kMaskTgt = {{6, 5, 4, 3}, {3, 7}};

// The target-side self-attention maps: weights [B,H,L,L] over the decoder's inputs (the LM's
// rows pack the source before them).
std::vector<const AttentionMap*> self_maps(const api::Inspection& in) {
  std::vector<const AttentionMap*> out;
  for (const AttentionMap& a : in.maps)
    if (a.name.rfind("decoder.", 0) == 0 && a.name.find("self_attn") != std::string::npos)
      out.push_back(&a);
  return out;
}

// Non-pad positions of row r: bos + target (+ the packed source for the LM).
int filled(const std::string& kind, size_t r) {
  return int(kMaskTgt[r].size()) + 1 + (kind == "lm" ? int(kMaskSrc[r].size()) : 0);
}

}  // namespace

TEST_CASE("inspect: the causal mask on and off in the decoder's self-attention", "[api]") {
  for (const std::string kind : {"transformer", "lm"}) {
    INFO(kind);
    auto s = api::Session::create(mask_config(kind));
    s->train(2);
    const api::Inspection on = s->inspect(kMaskSrc, kMaskTgt, true),
                          off = s->inspect(kMaskSrc, kMaskTgt, false);
    const auto mon = self_maps(on), moff = self_maps(off);
    REQUIRE(mon.size() == 2);
    REQUIRE(moff.size() == 2);
    for (size_t l = 0; l < mon.size(); ++l) {
      const AttentionMap &a = *mon[l], &u = *moff[l];
      REQUIRE(a.T == a.S);
      REQUIRE(u.T == a.T);
      const int L = a.T;
      for (int b = 0; b < a.B; ++b)
        for (int h = 0; h < a.H; ++h)
          for (int i = 0; i < filled(kind, size_t(b)); ++i) {
            const size_t row = ((size_t(b) * a.H + h) * L + i) * L;
            double sum_on = 0, sum_off = 0;
            for (int j = 0; j < L; ++j) {
              const float w = a.weights[row + j], v = u.weights[row + j];
              sum_on += w;
              sum_off += v;
              if (j > i) CHECK(w == 0.f);
              if (j >= filled(kind, size_t(b)))
                CHECK(v == 0.f);  // key padding still applies
              else if (j > i)
                CHECK(v > 0.f);  // later tokens are seen
            }
            CHECK(sum_on == Approx(1).margin(test::kKernelAbs * L));
            CHECK(sum_off == Approx(1).margin(test::kKernelAbs * L));
          }
    }

    // Change the last target token of row 0: with the mask the logits at target position 0
    // stay exactly the same; without it they move.
    api::Rows other = kMaskTgt;
    other[0].back() = 5;
    const int V = on.V;
    const api::Inspection on2 = s->inspect(kMaskSrc, other, true);
    const api::Inspection off2 = s->inspect(kMaskSrc, other, false);
    float moved_on = 0, moved_off = 0;
    for (int v = 0; v < V; ++v) {
      moved_on = std::max(moved_on, std::abs(on.logits[size_t(v)] - on2.logits[size_t(v)]));
      moved_off = std::max(moved_off, std::abs(off.logits[size_t(v)] - off2.logits[size_t(v)]));
    }
    CHECK(moved_on == 0.f);
    CHECK(moved_off > 1e-4f);
  }
}

TEST_CASE("inspect: an unmasked inspection leaves training causal", "[api]") {
  for (const std::string kind : {"transformer", "lm"}) {
    INFO(kind);
    auto a = api::Session::create(mask_config(kind)), b = api::Session::create(mask_config(kind));
    a->train(2);
    b->train(2);
    a->inspect(kMaskSrc, kMaskTgt, false);
    const api::TrainChunk ra = a->train(3), rb = b->train(3);
    for (size_t i = 0; i < 3; ++i) CHECK(ra.losses[i] == rb.losses[i]);
    const api::Inspection x = a->inspect(kMaskSrc, kMaskTgt), y = b->inspect(kMaskSrc, kMaskTgt);
    CHECK(x.logits == y.logits);
    CHECK(a->decode(kMaskSrc, 1, 0, 0.6f) == b->decode(kMaskSrc, 1, 0, 0.6f));
  }
  // Models without a causal target-side self-attention refuse the option.
  for (const std::string kind : {"encoder", "rnnsearch"}) {
    auto s = api::Session::create(mask_config(kind));
    CHECK_THROWS_WITH(s->inspect(kMaskSrc, kMaskTgt, false), Catch::Contains("causal = false"));
    CHECK(s->inspect(kMaskSrc, kMaskTgt, true).logits.size() > 0);
  }
}
