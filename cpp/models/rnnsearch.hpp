// RNNsearch and RNNencdec (Bahdanau, Cho & Bengio 2015): a bidirectional GRU encoder and a GRU
// decoder. RNNsearch attends (additive, eq. 6, or dot) over the annotations at every step:
//   c_i = sum_j alpha_ij h_j,  s_i = GRU(s_{i-1}, [E y_{i-1}; c_i]),
//   logits_i = [s_i; c_i; E y_{i-1}] Wo + bo,  s_0 = tanh([h->_L; h<-_1] Wi + bi).
// RNNencdec is the same decoder with the fixed context c_i = [h->_L; h<-_1] (no attention).
// encoder "gru" turns the backward direction off (h<- = 0): the source is read once, left to
// right, as by the LSTM encoder of Sutskever et al. (2014); "bigru" (default) reads both ways.
// Buffers are time-major ([T,B,.], [S,B,.]); logits() and attention() return batch-major copies.
// Config keys: model, src_vocab, tgt_vocab, emb, hidden, attn, score, encoder, pad_id, bos_id,
// eos_id.
#pragma once
#include <vector>

#include "layers/bigru.hpp"
#include "layers/embedding.hpp"
#include "layers/recurrent_attention.hpp"
#include "models/model.hpp"

namespace attnlab {

struct RnnSearchConfig {
  std::string model = "rnnsearch";  // "rnnsearch" | "rnnencdec"
  int src_vocab = 16, tgt_vocab = 16;
  int emb = 32, hidden = 64, attn = 64;
  std::string score = "additive";  // "additive" | "dot"
  std::string encoder = "bigru";   // "bigru" | "gru" (forward direction only)
  int pad_id = 0, bos_id = 1, eos_id = 2;
  static RnnSearchConfig from_json(const nlohmann::json& j);
  static const ConfigKeys& keys();  // the keys a front end may set, with their ranges
  nlohmann::json to_json() const;
};

class RnnSearch : public Model {
 public:
  RnnSearch(const RnnSearchConfig& cfg, const KernelTable& kt, uint64_t seed);
  double forward(const Batch& b, bool train, Rng* rng, float label_smoothing) override;
  void backward() override;
  std::vector<float> logits() const override;
  int out_vocab() const override { return cfg_.tgt_vocab; }
  std::vector<AttentionMap> attention() const override;
  int src_vocab() const override { return cfg_.src_vocab; }
  // Greedy decoding with one decoder step per output token (stops at </s> or max_len); the
  // alignment of each step for RNNsearch.
  bool decodes_stepwise() const override { return true; }
  GreedyDecoded greedy_stepwise(const std::vector<std::vector<int32_t>>& srcs,
                                int max_len) override;
  bool aligns() const override { return attends(); }
  bool attends() const { return cfg_.model == "rnnsearch"; }

 private:
  void encode(const std::vector<int32_t>& src_bm, int B, int S);  // src [B,S] batch-major
  void alloc_decoder(int T);
  void step(int t, const int32_t* y_prev);  // y_prev [B] host ids
  RnnSearchConfig cfg_;
  Embedding src_embed_, tgt_embed_;
  BiGruIds enc_ids_;
  GruIds dec_ids_;
  AttnIds att_ids_;
  int init_W_ = -1, init_b_ = -1, out_W_ = -1, out_b_ = -1;
  // The first decoder parameter's id. Parameter ids run src_embed, tgt_embed, encoder, init,
  // attention, decoder, out: backward reports each range once its gradients are final
  // (ParamArena::grads_ready), so a data-parallel step can start reducing them.
  int dec_first_ = -1;
  BiGru enc_;
  RecurrentAttention att_;
  // Last forward (time-major).
  int B_ = 0, S_ = 0, T_ = 0;
  std::vector<int32_t> src_tm_, tgt_in_tm_, tgt_out_tm_;
  std::vector<int> lengths_;
  uint8_t* key_pad_ = nullptr;  // [B,S]
  float *xs_ = nullptr, *H_ = nullptr, *sum_ = nullptr, *s_ = nullptr, *zr_ = nullptr,
        *rh_ = nullptr, *cand_ = nullptr, *xe_ = nullptr, *xg_ = nullptr, *alpha_ = nullptr,
        *e_ = nullptr, *acache_ = nullptr, *ctx_ = nullptr, *logits_ = nullptr, *scratch_ = nullptr;
  float* dlogits_ = nullptr;
};

std::unique_ptr<Model> make_rnnsearch(const nlohmann::json& config, const KernelTable& kt,
                                      uint64_t seed);

}  // namespace attnlab
