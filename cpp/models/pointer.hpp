// Pointer network (Vinyals, Fortunato & Jaitly 2015): an LSTM encoder reads the inputs, an LSTM
// decoder emits positions, and the attention over encoder states is the output distribution,
//   u_ij = v^T tanh(W1 e_j + W2 d_i),  p(C_i | C_<i, P) = softmax_j(u_ij)     (eq. 3).
// Position 0 of the encoder is a learned start/end symbol (input flag 1): pointing at it ends the
// output. Optional glimpse (Bello et al. 2016): d_i is replaced by an attention read of the
// encoder states before pointing. Decoding is constrained by masks: chosen positions cannot be
// chosen again, and the end symbol opens only when the output can be complete.
// encoder = "rpw" replaces the LSTM encoder by the read and process blocks of "Order Matters"
// (Vinyals, Bengio & Kudlur 2016), which see the inputs as a set.
// Through Model: forward/backward take a point batch (model.hpp: dim = cfg.dim, x [B,n,dim],
// target ids kFirstSymbol + j for input j and eos for the end; tgt_in is not read, the decoder
// input of step t is the input tgt_out names at t - 1). logits() are the log pointer
// probabilities [B,T,V] with V = kFirstSymbol + n (id kFirstSymbol + j: input j, eos: the end;
// pad, bos and masked inputs at log 1e-30); attention() is one map "pointer" [B,1,T,n+1]: the
// distribution over the n inputs and the end (last column). decode_points runs greedy or beam
// search. No label smoothing and no dropout.
// Buffers time-major: encoder [S,B,.] with S = n+1 (position 0: the end symbol), decoder [T,B,.].
#pragma once
#include <vector>

#include "layers/lstm.hpp"
#include "layers/process_block.hpp"
#include "layers/recurrent_attention.hpp"
#include "models/model.hpp"

namespace attnlab {

struct PointerConfig {
  std::string model = "pointer";
  int dim = 2;  // input features per element (2: points, 1: numbers)
  int hidden = 128, attn = 128;
  bool glimpse = false;
  int min_outputs = 1;           // the end symbol opens after this many outputs (hull: 3)
  bool permutation = false;      // every input exactly once (tsp, sort)
  std::string encoder = "lstm";  // "lstm" | "rpw" (read-process-write)
  int process_steps = 5;         // rpw: P
  // embed > 0: a learned linear embedding [x ; flag] -> R^embed feeds the decoder LSTM and the
  // LSTM encoder (Bello et al. 2016 embed 2-D points the same way); 0: raw features (the paper).
  // The rpw encoder has its own read block and takes the raw features.
  int embed = 0;
  static PointerConfig from_json(const nlohmann::json& j);
  static const ConfigKeys& keys();  // the keys a front end may set, with their ranges
  nlohmann::json to_json() const;
};

class PointerNet : public Model, public PointDecoding {
 public:
  PointerNet(const PointerConfig& cfg, const KernelTable& kt, uint64_t seed);
  // Teacher-forced mean loss (-log p of each target input and of the end symbol) of a point
  // batch; a token batch throws.
  double forward(const Batch& b, bool train, Rng* rng, float label_smoothing) override;
  void backward() override;
  std::vector<float> logits() const override;
  int out_vocab() const override { return kFirstSymbol + (S_ > 0 ? S_ - 1 : 0); }
  std::vector<AttentionMap> attention() const override;
  int input_dim() const override { return cfg_.dim; }
  PointDecoded decode_points(const std::vector<float>& x, int B, int n, int beam,
                             bool constrained) override;
  const PointerConfig& cfg() const { return cfg_; }

 private:
  // Greedy decoding; constrained = masks as in training (false: the end rule is off too).
  PointDecoded greedy(const std::vector<float>& x, int B, int n, bool constrained);
  // Beam search with `beam` hypotheses per set, constrained like greedy (only valid outputs are
  // extended); the most probable finished output of each set (sum of log-probabilities).
  // probs are those of the chosen hypothesis at each of its steps. beam = 1 equals greedy.
  PointDecoded beam_search(const std::vector<float>& x, int B, int n, int beam);
  void encode(const std::vector<float>& x, int B, int n);
  void alloc_decoder(int T);
  void step(int t, const float* xin_host, const uint8_t* mask_host);
  void decoder_masks(uint8_t* m, const std::vector<uint8_t>& used, int k, int n) const;
  int in_width() const { return cfg_.embed > 0 ? cfg_.embed : Ci_; }  // LSTM input width
  // y [R, in_width] = embedding of x [R, Ci] (x itself when there is no embedding).
  const float* embed(float* y, const float* x, int R);
  std::vector<float> features(const std::vector<float>& x, int b, int pos) const;
  PointerConfig cfg_;
  LstmIds enc_ids_, dec_ids_;
  AttnIds ptr_ids_, glimpse_ids_;
  ProcessIds process_ids_;
  int emb_W_ = -1, emb_b_ = -1;
  // First parameter ids of the encoder (or read/process blocks), decoder, pointer and glimpse:
  // backward reports each range once its gradients are final (ParamArena::grads_ready), last
  // declared first, so a data-parallel step can start reducing them.
  int enc_first_ = 0, dec_first_ = 0, ptr_first_ = 0, glimpse_first_ = 0;
  LstmSeq enc_;
  ProcessBlock process_;
  RecurrentAttention ptr_, glimpse_;
  int B_ = 0, S_ = 0, T_ = 0, Ci_ = 0;
  const float* Eo_ = nullptr;  // [S,B,C] encoder states (rpw: memories)
  const float* xe_ = nullptr;  // embedded encoder inputs [S,B,E] (xin_ without an embedding)
  float* xde_ = nullptr;       // embedded decoder inputs [T,B,E] (xd_ without an embedding)
  float *xin_ = nullptr, *Dh_ = nullptr, *Dc_ = nullptr, *act_ = nullptr, *tc_ = nullptr,
        *xd_ = nullptr, *xg_ = nullptr, *qp_ = nullptr, *alpha_g_ = nullptr, *e_g_ = nullptr,
        *cache_g_ = nullptr, *probs_ = nullptr, *e_p_ = nullptr, *cache_p_ = nullptr,
        *scratch_ = nullptr;
  uint8_t* mask_ = nullptr;       // [T,B,S]
  std::vector<int32_t> targets_;  // [T,B], -1 ignored
  float* dlogits_ = nullptr;
  long count_ = 0;
};

std::unique_ptr<Model> make_pointer(const nlohmann::json& config, const KernelTable& kt,
                                    uint64_t seed);

}  // namespace attnlab
