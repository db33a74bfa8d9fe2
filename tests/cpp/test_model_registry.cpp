// The model registry is the only place a kind lives: every registered kind builds, checks its
// config and estimates its size from its row; an unknown kind is an error everywhere (the size
// estimate too); the capabilities front ends used to find by casting are virtuals of Model.
#include <catch2/catch.hpp>

#include "core/check.hpp"
#include "models/memory.hpp"
#include "models/model.hpp"

using namespace attnlab;

namespace {

nlohmann::json registry_small(const std::string& kind) {
  if (kind == "pointer") return {{"model", kind}, {"hidden", 16}};
  if (kind == "rnnsearch" || kind == "rnnencdec" || kind == "luong")
    return {{"model", kind}, {"src_vocab", 12}, {"tgt_vocab", 12}, {"emb", 8}, {"hidden", 16}};
  return {{"model", kind}, {"src_vocab", 12}, {"tgt_vocab", 12}, {"d_model", 16}, {"heads", 2},
          {"d_ff", 32},    {"enc_layers", 1}, {"dec_layers", 1}, {"max_len", 20}};
}

}  // namespace

TEST_CASE("registry: every kind builds, checks and estimates itself from its row", "[train]") {
  for (const std::string& kind : model_kinds()) {
    INFO(kind);
    const nlohmann::json cfg = registry_small(kind);
    CHECK_NOTHROW(check_model_config(cfg));
    const SizeEstimate e = estimate_model(cfg, 4, 8, 8);
    const double held = double(make_model(cfg, cpu_kernels(), 1)->params().total());
    CHECK(e.params > 0.5 * held);
    CHECK(e.params < 2.0 * held);
    CHECK(e.param_bytes == 16 * e.params);
    CHECK(e.activation_bytes > 0);
    CHECK(attnlab::estimate_size(cfg, 4, 8, 8).total() == e.total());
  }
  // larger batches need more activations, not more parameters
  const SizeEstimate one = estimate_model(registry_small("transformer"), 1, 8, 8);
  const SizeEstimate many = estimate_model(registry_small("transformer"), 64, 8, 8);
  CHECK(many.params == one.params);
  CHECK(many.activation_bytes > 32 * one.activation_bytes);
}

TEST_CASE("registry: an unknown or missing kind is an error, not a zero estimate", "[train]") {
  const nlohmann::json unknown = {{"model", "nosuchkind"}, {"hidden", 16}};
  CHECK_THROWS_WITH(estimate_model(unknown, 1, 1, 1),
                    Catch::Contains("unknown model \"nosuchkind\""));
  CHECK_THROWS_WITH(attnlab::estimate_size(unknown, 1, 1, 1),
                    Catch::Contains("known: transformer"));
  CHECK_THROWS_WITH(check_model_config(unknown), Catch::Contains("unknown model \"nosuchkind\""));
  CHECK_THROWS_WITH(make_model(unknown, cpu_kernels(), 1),
                    Catch::Contains("unknown model \"nosuchkind\""));
  CHECK_THROWS_WITH(estimate_model({{"hidden", 16}}, 1, 1, 1),
                    Catch::Contains("needs a string \"model\""));
  // a config too large for memory is estimated before its values are range-checked
  nlohmann::json huge = registry_small("transformer");
  huge["d_model"] = 65536;
  CHECK_THROWS_AS(check_model_config(huge), Error);
  CHECK(estimate_model(huge, 1, 8, 8).params > 1e9);
}

TEST_CASE("model capabilities: stepwise decoding, alignment and the causal mask", "[train]") {
  struct Want {
    const char* kind;
    bool stepwise, aligns, causal;
  };
  for (const Want& w :
       {Want{"transformer", false, false, true}, Want{"lm", false, false, true},
        Want{"encoder", false, false, false}, Want{"rnnsearch", true, true, false},
        Want{"rnnencdec", true, false, false}, Want{"pointer", false, false, false}}) {
    INFO(w.kind);
    auto m = make_model(registry_small(w.kind), cpu_kernels(), 1);
    CHECK(decodes_stepwise(*m) == w.stepwise);
    CHECK(m->aligns() == w.aligns);
    CHECK(has_causal_mask(*m) == w.causal);
    CHECK(m->src_vocab() == (std::string(w.kind) == "pointer" ? 0 : 12));
    if (!w.stepwise)
      CHECK_THROWS_WITH(greedy_stepwise(*m, {{3, 4}}, 4), Catch::Contains("no stepwise decoder"));
    if (!w.causal && std::string(w.kind) != "encoder")
      CHECK_THROWS_WITH(set_causal(*m, false), Catch::Contains("no causal mask"));
    CHECK_NOTHROW(set_causal(*m, true));
  }
  auto t = make_model(registry_small("transformer"), cpu_kernels(), 1);
  CHECK(t->max_len() == 20);
  CHECK(t->schedule_width() == 16);
  auto r = make_model(registry_small("rnnsearch"), cpu_kernels(), 1);
  CHECK(r->max_len() == 1 << 16);
  CHECK(r->schedule_width() == 64);  // what sessions and `attn train` have always used
}

TEST_CASE("kind info: each row's capabilities are what its model does", "[train]") {
  for (const std::string& kind : model_kinds()) {
    INFO(kind);
    const KindInfo& info = kind_info(kind);
    CHECK(info.name == kind);
    CHECK(find_kind_info(kind) == &info);
    auto m = make_model(registry_small(kind), cpu_kernels(), 1);
    CHECK(info.packs_source == m->packs_source());
    CHECK(info.takes_points == (m->input_dim() > 0));
    CHECK(info.aligns == m->aligns());
    CHECK(info.recurrent == (decodes_stepwise(*m) || m->input_dim() > 0));
    CHECK(info.train.lr > 0);
    CHECK(info.train.batch >= 1);
    CHECK(info.train.clip > 0);
    const std::string schedule = info.train.schedule;
    CHECK((schedule == "noam" || schedule == "constant"));
    const nlohmann::json j = info.to_json();
    CHECK(j["name"] == kind);
    CHECK(j["train"]["batch"] == info.train.batch);
  }
  CHECK(find_kind_info("nosuchkind") == nullptr);
  CHECK_THROWS_WITH(kind_info("nosuchkind"), Catch::Contains("known: transformer"));
  CHECK(kind_info("luong").recurrent);
  CHECK(kind_info("luong").aligns);
  CHECK(kind_info("lm").packs_source);
  CHECK(kind_info("pointer").takes_points);
}
