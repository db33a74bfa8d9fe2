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
// Buffers are time-major ([T,B,.], [S,B,.]); logits() and attention() return batch-major copies.
// Config keys: model, src_vocab, tgt_vocab, emb, hidden, score, pad_id, bos_id, eos_id.
#pragma once
#include <vector>

#include "layers/bigru.hpp"
#include "layers/embedding.hpp"
#include "layers/recurrent_attention.hpp"
#include "models/model.hpp"

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

class Luong : public Model {
 public:
  Luong(const LuongConfig& cfg, const KernelTable& kt, uint64_t seed);
  double forward(const Batch& b, bool train, Rng* rng, float label_smoothing) override;
  void backward() override;
  std::vector<float> logits() const override;
  int out_vocab() const override { return cfg_.tgt_vocab; }
  std::vector<AttentionMap> attention() const override;
  int src_vocab() const override { return cfg_.src_vocab; }
  bool decodes_stepwise() const override { return true; }
  GreedyDecoded greedy_stepwise(const std::vector<std::vector<int32_t>>& srcs,
                                int max_len) override;
  bool aligns() const override { return true; }

 private:
  void encode(const std::vector<int32_t>& src_bm, int B, int S);  // src [B,S] batch-major
  void alloc_decoder(int T);
  void step(int t, const int32_t* y_prev);  // y_prev [B] host ids
  void score_forward(int t);                // e_t, alpha_t from h_t
  void score_backward(int t, float* dh, float* dH, const float* de);
  LuongConfig cfg_;
  Embedding src_embed_, tgt_embed_;
  BiGruIds enc_ids_;
  GruIds dec_ids_;
  AttnIds att_ids_;  // concat: W [D,D] (h_t rows of Wa), U [D,D] (h̄_s rows), v [D]
  int init_W_ = -1, init_b_ = -1, gen_W_ = -1, comb_W_ = -1, comb_b_ = -1, out_W_ = -1, out_b_ = -1;
  // Parameter ids run src_embed, tgt_embed, encoder, init, attention, decoder, combine, out:
  // backward reports each range once its gradients are final (ParamArena::grads_ready).
  int dec_first_ = -1;
  BiGru enc_;
  RecurrentAttention att_;  // the concat score (Bahdanau's additive form over [h_t ; h̄_s])
  // Last forward (time-major).
  int B_ = 0, S_ = 0, T_ = 0;
  std::vector<int32_t> src_tm_, tgt_in_tm_, tgt_out_tm_;
  std::vector<int> lengths_;
  uint8_t* key_pad_ = nullptr;  // [B,S]
  float *xs_ = nullptr, *H_ = nullptr, *sum_ = nullptr, *h_ = nullptr, *zr_ = nullptr,
        *rh_ = nullptr, *cand_ = nullptr, *xe_ = nullptr, *xg_ = nullptr, *alpha_ = nullptr,
        *e_ = nullptr, *qa_ = nullptr, *acache_ = nullptr, *ctx_ = nullptr, *ht_ = nullptr,
        *logits_ = nullptr, *scratch_ = nullptr;
  float* dlogits_ = nullptr;
};

std::unique_ptr<Model> make_luong(const nlohmann::json& config, const KernelTable& kt,
                                  uint64_t seed);

}  // namespace attnlab
