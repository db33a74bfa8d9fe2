// Luong attention (Luong, Pham & Manning 2015, "Effective Approaches to Attention-based Neural
// Machine Translation"): global attention with input feeding on a recurrent encoder-decoder.
// The encoder is RNNsearch's bidirectional GRU (annotations h̄_s = [h->_s ; h<-_s], width 2C), so
// the two compare on equal terms. The decoder is a GRU of width D = 2C, the annotations' width,
// so that the dot score needs no projection (Luong's encoder and decoder share one width; a
// learned projection of the annotations would make dot the general score):
//   h_t = GRU(h_{t-1}, [E y_{t-1} ; h~_{t-1}])                      (input feeding, sec. 3.3)
//   score(h_t, h̄_s) = h_t . h̄_s | h_t Wa h̄_s | va^T tanh(Wa [h_t ; h̄_s])   (dot|general|concat, eq.
//   8) a_t = masked softmax_s(score),  c_t = sum_s a_ts h̄_s, h~_t = tanh(Wc [c_t ; h_t] + bc),
//   logits_t = h~_t Ws + bs          (eqs. 5, 6) h_0 = tanh([h->_L ; h<-_1] Wi + bi),  h~_0 = 0.
// The encoder, forward, decoding and buffers are the shared RecurrentSeq2Seq's.
// Config keys: model, src_vocab, tgt_vocab, emb, hidden, score, pad_id, bos_id, eos_id.
#pragma once
#include <vector>

#include "models/recurrent_seq2seq.hpp"

namespace attnlab {

struct LuongConfig {
  std::string model = "luong";
  int src_vocab = 16, tgt_vocab = 16;
  int emb = 32, hidden = 64;      // hidden: each encoder direction; the decoder is 2 * hidden
  std::string score = "general";  // "dot" | "general" | "concat"
  int pad_id = 0, bos_id = 1, eos_id = 2;
  static LuongConfig from_json(const nlohmann::json& j);
  static const ConfigKeys& keys();  // the keys a front end may set, with their ranges
  nlohmann::json to_json() const;
};

class Luong : public RecurrentSeq2Seq {
 public:
  Luong(const LuongConfig& cfg, const KernelTable& kt, uint64_t seed);
  void backward() override;
  bool aligns() const override { return true; }

 private:
  void prepare_attention() override;
  void alloc_decoder(int T) override;
  void step(int t, const int32_t* y_prev) override;
  void finish_attention_backward(float* dH) override;
  void score_forward(int t);  // e_t, alpha_t from h_t
  void score_backward(int t, float* dh, float* dH, const float* de);
  std::vector<std::pair<float*, int>> state_at(int t) override {  // h_t and h~_t (input feeding)
    const int D = 2 * cfg_.hidden;
    return {{h_ + size_t(t) * B_ * D, D}, {ht_ + size_t(t) * B_ * D, D}};
  }
  LuongConfig cfg_;
  // att_ids_ (concat): W [D,D] (h_t rows of Wa), U [D,D] (h̄_s rows), v [D]; att_: the concat
  // score (Bahdanau's additive form over [h_t ; h̄_s])
  int gen_W_ = -1, comb_W_ = -1, comb_b_ = -1;
  float *h_ = nullptr, *ht_ = nullptr, *qa_ = nullptr;
};

std::unique_ptr<Model> make_luong(const nlohmann::json& config, const KernelTable& kt,
                                  uint64_t seed);

}  // namespace attnlab
