// The Transformer's regularisers apart from residual dropout: dropout on the attention weights and
// on the feed-forward hidden units with rates of their own, and LayerDrop (Fan et al. 2019),
// which skips whole layers while training. Configs without the new keys behave as before.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "gradcheck.hpp"
#include "models/config.hpp"
#include "models/model.hpp"

using namespace attnlab;

namespace {

Batch reg_batch() {
  Batch b;
  b.B = 2;
  b.S = 4;
  b.T = 4;
  b.src = {3, 4, 5, 6, 7, 3, 0, 0};
  b.tgt_in = {1, 6, 5, 4, 1, 3, 7, 0};
  b.tgt_out = {6, 5, 4, 2, 3, 7, 2, 0};
  return b;
}

nlohmann::json reg_small(const std::string& kind) {
  return {{"model", kind}, {"src_vocab", 9},  {"tgt_vocab", 9},  {"d_model", 8}, {"heads", 2},
          {"d_ff", 12},    {"enc_layers", 2}, {"dec_layers", 2}, {"max_len", 16}};
}

double train_loss(const nlohmann::json& cfg, uint64_t seed) {
  auto m = make_model(cfg, cpu_kernels(), 5);
  Rng rng(seed);
  return m->forward(reg_batch(), true, &rng, 0.1f);
}

}  // namespace

TEST_CASE("config: attention and activation dropout default to dropout, and are written back",
          "[grad]") {
  nlohmann::json j = reg_small("transformer");
  j["dropout"] = 0.3;
  TransformerConfig c = TransformerConfig::from_json(j);
  CHECK(c.attn_dropout() == Approx(0.3f));
  CHECK(c.act_dropout() == Approx(0.3f));
  CHECK(c.enc_layer_drop == 0.f);
  const nlohmann::json back = c.to_json();
  CHECK(back.at("attention_dropout").get<double>() == Approx(0.3));
  CHECK(back.at("activation_dropout").get<double>() == Approx(0.3));
  CHECK(back.at("dec_layer_drop").get<double>() == 0.0);

  j["attention_dropout"] = 0.0;
  j["activation_dropout"] = 0.5;
  j["enc_layer_drop"] = 0.25;
  c = TransformerConfig::from_json(j);
  CHECK(c.attn_dropout() == 0.f);
  CHECK(c.act_dropout() == Approx(0.5f));
  CHECK(TransformerConfig::from_json(c.to_json()).to_json() == c.to_json());
  for (const char* key :
       {"attention_dropout", "activation_dropout", "enc_layer_drop", "dec_layer_drop"}) {
    nlohmann::json bad = reg_small("transformer");
    bad[key] = 1.0;
    CHECK_THROWS_WITH(TransformerConfig::from_json(bad), Catch::Contains(key));
    bad[key] = -0.1;
    CHECK_THROWS_WITH(TransformerConfig::from_json(bad), Catch::Contains(key));
  }
}

TEST_CASE("regularisers: the rates given apart equal one dropout when equal, and each one counts",
          "[grad]") {
  nlohmann::json base = reg_small("transformer");
  base["dropout"] = 0.2;
  nlohmann::json same = base;
  same["attention_dropout"] = 0.2;
  same["activation_dropout"] = 0.2;
  same["enc_layer_drop"] = 0.0;
  same["dec_layer_drop"] = 0.0;
  // bit for bit the run of a config from before the keys: same masks, same generator draws
  CHECK(train_loss(base, 7) == train_loss(same, 7));
  std::set<double> losses = {train_loss(base, 7)};
  for (const char* key : {"attention_dropout", "activation_dropout"}) {
    nlohmann::json other = base;
    other[key] = 0.0;
    CHECK(losses.insert(train_loss(other, 7)).second);
  }
  // evaluation applies none of them
  nlohmann::json all = base;
  all["attention_dropout"] = 0.5;
  all["activation_dropout"] = 0.5;
  all["enc_layer_drop"] = 0.5;
  all["dec_layer_drop"] = 0.5;
  auto a = make_model(base, cpu_kernels(), 5);
  auto b = make_model(all, cpu_kernels(), 5);
  CHECK(a->forward(reg_batch(), false, nullptr, 0.1f) ==
        b->forward(reg_batch(), false, nullptr, 0.1f));
}

TEST_CASE("LayerDrop: each layer is skipped at its rate, as the identity", "[grad]") {
  for (const std::string kind : {"transformer", "lm", "encoder"}) {
    nlohmann::json cfg = reg_small(kind);
    cfg["dropout"] = 0.0;
    cfg["enc_layers"] = 1;
    cfg["dec_layers"] = 1;
    cfg["enc_layer_drop"] = 0.5;
    cfg["dec_layer_drop"] = 0.5;
    auto m = make_model(cfg, cpu_kernels(), 5);
    const double kept = m->forward(reg_batch(), false, nullptr, 0.1f);
    const int layers = kind == "transformer" ? 2 : 1;
    std::set<double> seen;
    int all_kept = 0;
    const int n = 400;
    for (int s = 0; s < n; ++s) {
      Rng rng(uint64_t(1000 + s));
      const double loss = m->forward(reg_batch(), true, &rng, 0.1f);
      seen.insert(loss);
      all_kept += loss == kept;
    }
    INFO(kind);
    // without other randomness, a step's loss is one of 2^layers values, one per subset kept,
    // except that with the decoder's one layer skipped nothing reads the encoder: 3 values
    CHECK(seen.size() == (kind == "transformer" ? size_t(3) : size_t(1) << layers));
    // every layer kept: probability 0.5^layers
    const double share = double(all_kept) / n, expect = std::pow(0.5, layers);
    CHECK(std::abs(share - expect) < 0.1);
  }
}

TEST_CASE("grad: encoder-decoder with attention, activation and residual dropout apart, LayerDrop",
          "[grad]") {
  nlohmann::json cfg = reg_small("transformer");
  cfg["dropout"] = 0.2;
  cfg["attention_dropout"] = 0.3;
  cfg["activation_dropout"] = 0.1;
  cfg["enc_layer_drop"] = 0.5;
  cfg["dec_layer_drop"] = 0.5;
  auto model = make_model(cfg, cpu_kernels(), 5);
  const Batch b = reg_batch();
  Rng rng(11);
  auto loss = [&] {
    rng.reseed(11);  // the same masks and the same skipped layers at every evaluation
    return model->forward(b, true, &rng, 0.1f);
  };
  test::check_model_grads(*model, loss, 4);
}

TEST_CASE("grad: decoder-only LM with LayerDrop", "[grad]") {
  nlohmann::json cfg = reg_small("lm");
  cfg["dropout"] = 0.1;
  cfg["dec_layer_drop"] = 0.5;
  auto model = make_model(cfg, cpu_kernels(), 5);
  const Batch b = reg_batch();
  Rng rng(3);
  auto loss = [&] {
    rng.reseed(3);
    return model->forward(b, true, &rng, 0.1f);
  };
  test::check_model_grads(*model, loss, 4);
}
