// Whole-model finite-difference checks: every parameter tensor of the encoder-decoder, the
// decoder-only LM and the encoder-only model (post-LN and pre-LN, tied and learned variants,
// dropout with a reseeded mask), on a padded batch with label smoothing.
#include <catch2/catch.hpp>

#include "gradcheck.hpp"
#include "models/model.hpp"

using namespace attnlab;

namespace {

Batch padded_batch() {
  // pad 0, bos 1, eos 2; row 1 is shorter on both sides
  Batch b;
  b.B = 2;
  b.S = 4;
  b.T = 4;
  b.src = {3, 4, 5, 6, 7, 3, 0, 0};
  b.tgt_in = {1, 6, 5, 4, 1, 3, 7, 0};
  b.tgt_out = {6, 5, 4, 2, 3, 7, 2, 0};
  return b;
}

void check_model(nlohmann::json cfg, float dropout) {
  cfg["dropout"] = dropout;
  auto model = make_model(cfg, cpu_kernels(), 5);
  const Batch b = padded_batch();
  Rng rng(11);
  const bool train = dropout > 0;
  auto loss = [&] {
    rng.reseed(11);
    return model->forward(b, train, &rng, 0.1f);
  };
  test::check_model_grads(*model, loss, 4);
}

nlohmann::json small(const std::string& kind) {
  return {{"model", kind}, {"src_vocab", 9},  {"tgt_vocab", 9},  {"d_model", 8}, {"heads", 2},
          {"d_ff", 12},    {"enc_layers", 1}, {"dec_layers", 1}, {"max_len", 16}};
}

}  // namespace

TEST_CASE("grad: encoder-decoder Transformer, post-LN", "[grad]") {
  auto cfg = small("transformer");
  cfg["enc_layers"] = 2;
  check_model(cfg, 0.f);
}

TEST_CASE("grad: encoder-decoder, pre-LN, GELU, tied, learned positions, dropout", "[grad]") {
  auto cfg = small("transformer");
  cfg["norm_first"] = true;
  cfg["activation"] = "gelu";
  cfg["tie_embeddings"] = true;
  cfg["pos_encoding"] = "learned";
  check_model(cfg, 0.2f);
}

TEST_CASE("grad: decoder-only LM", "[grad]") { check_model(small("lm"), 0.f); }

TEST_CASE("grad: encoder-only tagger, pre-LN", "[grad]") {
  auto cfg = small("encoder");
  cfg["norm_first"] = true;
  check_model(cfg, 0.f);
}
