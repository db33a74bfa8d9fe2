// RNNsearch and RNNencdec (Bahdanau, Cho & Bengio 2015): a bidirectional GRU encoder and a GRU
// decoder. RNNsearch attends (additive, eq. 6, or dot) over the annotations at every step:
//   c_i = sum_j alpha_ij h_j,  s_i = GRU(s_{i-1}, [E y_{i-1}; c_i]),
//   logits_i = [s_i; c_i; E y_{i-1}] Wo + bo,  s_0 = tanh([h->_L; h<-_1] Wi + bi).
// RNNencdec is the same decoder with the fixed context c_i = [h->_L; h<-_1] (no attention).
// encoder "gru" turns the backward direction off (h<- = 0): the source is read once, left to
// right, as by the LSTM encoder of Sutskever et al. (2014); "bigru" (default) reads both ways.
// The encoder, forward, decoding and buffers are the shared RecurrentSeq2Seq's.
// Config keys: model, src_vocab, tgt_vocab, emb, hidden, attn, score, encoder, pad_id, bos_id,
// eos_id.
#pragma once
#include <vector>

#include "models/recurrent_seq2seq.hpp"

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

class RnnSearch : public RecurrentSeq2Seq {
 public:
  RnnSearch(const RnnSearchConfig& cfg, const KernelTable& kt, uint64_t seed);
  void backward() override;
  bool aligns() const override { return attends(); }
  bool attends() const { return cfg_.model == "rnnsearch"; }

 private:
  void prepare_attention() override;
  void alloc_decoder(int T) override;
  void step(int t, const int32_t* y_prev) override;
  void finish_attention_backward(float* dH) override;
  std::vector<std::pair<float*, int>> state_at(int t) override {
    return {{s_ + size_t(t) * B_ * cfg_.hidden, cfg_.hidden}};  // s_{t}
  }
  RnnSearchConfig cfg_;
  float* s_ = nullptr;  // [T+1,B,C] decoder states s_0..s_T
};

std::unique_ptr<Model> make_rnnsearch(const nlohmann::json& config, const KernelTable& kt,
                                      uint64_t seed);

}  // namespace attnlab
