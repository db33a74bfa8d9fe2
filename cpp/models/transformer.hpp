// The Transformer family built from one TransformerConfig (Vaswani et al. 2017, fig. 1):
//   "transformer": encoder-decoder; names are those of PyTorch nn.Transformer's state_dict
//                  (encoder.layers.i.*, encoder.norm, decoder.layers.i.*, decoder.norm) plus
//                  src_embed.weight, tgt_embed.weight, generator.weight, generator.bias;
//   "lm":          decoder-only (causal self-attention layers named decoder.layers.i.* with
//                  the encoder-layer structure); each row is its source then its target;
//   "encoder":     encoder-only tagger predicting target position t from source position t.
// Embeddings are scaled by √d_model; positions are sinusoidal or learned (*_pos_embed.weight).
#pragma once
#include <memory>
#include <vector>

#include "layers/blocks.hpp"
#include "layers/embedding.hpp"
#include "layers/loss.hpp"
#include "models/config.hpp"
#include "models/model.hpp"

namespace attnlab {

class Transformer : public Model,
                    public HeadInspection,
                    public IncrementalDecoding,
                    public ForwardTracing {
 public:
  Transformer(const TransformerConfig& cfg, const KernelTable& kt, uint64_t seed);
  double forward(const Batch& b, bool train, Rng* rng, float label_smoothing) override;
  void backward() override;
  std::vector<float> logits() const override;
  int out_vocab() const override { return cfg_.tgt_vocab; }
  bool autoregressive() const override { return cfg_.model != "encoder"; }
  std::vector<AttentionMap> attention() const override;
  std::vector<AttentionParts> attention_parts() const override;
  void set_muted_heads(const HeadMask& mask) override;
  std::vector<std::pair<std::string, int>> aliases() const override;
  int src_vocab() const override { return cfg_.src_vocab; }
  int max_len() const override { return cfg_.max_len; }
  int schedule_width() const override { return cfg_.d_model; }
  bool packs_source() const override { return cfg_.model == "lm"; }
  const TransformerConfig& cfg() const { return cfg_; }
  // Whether the target-side self-attention (decoder / LM) masks later positions. Only an
  // inspection turns it off, to show what the mask prevents; training and decoding need it on.
  bool has_causal_mask() const override { return cfg_.model != "encoder"; }
  bool causal() const { return causal_; }
  void set_causal(bool on) override { causal_ = on; }
  // Encoder-decoder only: encodes the sources once; each step runs the decoder layers on the new
  // token with a key/value cache (see StepDecoder). Null while the causal mask is lifted or heads
  // are muted (an inspection's decoding re-runs the prefix instead).
  std::unique_ptr<StepDecoder> step_decoder(const std::vector<std::vector<int32_t>>& srcs,
                                            int capacity, int max_steps) override;
  // The decoder-only ("lm") and encoder-only models, one stack of layers each: row `row` of the
  // last forward pass at every position (transformer_inspect.cpp). The encoder-decoder refuses.
  void set_tracing(bool on) override { tracing_ = on; }
  ForwardTrace trace(int row) const override;

 private:
  // One embedded, encoded stack: src side (encoder) or tgt side (decoder / LM). `dev_ids`
  // receives the ids uploaded to the workspace, which embed_backward reuses.
  float* embed(const Ctx& c, const Embedding& e, const PositionalEncoding& pe, DropoutCache& d,
               const int32_t*& dev_ids, const std::vector<int32_t>& ids, int B, int L);
  void embed_backward(const Ctx& c, const Embedding& e, const PositionalEncoding& pe,
                      const DropoutCache& d, const int32_t* dev_ids, float* dx, int B, int L);
  uint8_t* pad_mask(const Ctx& c, const std::vector<int32_t>& ids) const;

  // Parameter ids [first, last) of each part; backward reports each part once its gradients are
  // final (ParamArena::grads_ready), so a data-parallel step can start reducing them.
  struct Ids {
    int first = 0, last = 0;
  };
  void ready(const Ids& r) const { params_.grads_ready(r.first, r.last); }

  friend class TransformerStepDecoder;
  TransformerConfig cfg_;
  bool causal_ = true;
  bool tracing_ = false;
  bool traced_ = false;           // the last forward ran with tracing on (and not training)
  bool traced_causal_ = true;     // ... and with the causal mask on
  float* token_embed_ = nullptr;  // tracing: E[ids]·√C of the last embed(), before the positions
  float* embedded_ = nullptr;     // the last embed()'s output, the first layer's input
  std::map<std::string, std::vector<uint8_t>> muted_;  // sublayer name -> [H] flags
  const uint8_t* muted(const std::string& name) const;
  std::vector<std::string> attention_names() const;
  Embedding src_embed_, tgt_embed_;
  PositionalEncoding src_pos_, tgt_pos_;
  std::vector<EncoderLayer> enc_, lm_;
  std::vector<DecoderLayer> dec_;
  LayerNorm enc_norm_, dec_norm_;
  Linear generator_;
  Ids src_embed_ids_, tgt_embed_ids_, src_pos_ids_, tgt_pos_ids_, enc_norm_ids_, dec_norm_ids_;
  Ids gen_ids_;  // tied embeddings: the bias alone (the weight is tgt_embed's)
  std::vector<Ids> enc_ids_, dec_ids_;  // per layer; dec_ids_: the decoder's or the LM's layers

  // The last forward: inputs (host), sizes and caches.
  int B_ = 0, S_ = 0, T_ = 0, L_ = 0;  // L_: rows per sequence in the generator's output
  std::vector<int32_t> src_, tgt_, targets_;
  const int32_t* src_ids_ = nullptr;  // src_ / tgt_ in backend memory (workspace)
  const int32_t* tgt_ids_ = nullptr;
  std::vector<int> offset_;  // LM: where row b's targets start in its packed sequence
  DropoutCache src_drop_, tgt_drop_;
  std::vector<EncoderLayerCache> enc_c_, lm_c_;
  // LayerDrop: the layers this step's forward skipped (1 = identity), per stack
  std::vector<uint8_t> enc_skip_, dec_skip_;
  // One draw from the step's generator when training with p > 0: skip the layer?
  static bool drop_layer(const Ctx& c, float p);
  std::vector<DecoderLayerCache> dec_c_;
  LayerNormCache enc_norm_c_, dec_norm_c_;
  float* hidden_ = nullptr;  // [B*L,C] final-norm output
  float* logits_ = nullptr;  // [B*L,V]
  LossResult loss_;
};

}  // namespace attnlab
