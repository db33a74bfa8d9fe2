// The recurrent encoder-decoder every attention-over-annotations kind shares (RNNsearch and
// RNNencdec, Luong): source and target embeddings (width E), the bidirectional GRU encoder
// (width C per direction: annotations H [S,B,2C] and the summary [h->_L ; h<-_1] [B,2C]), the
// initial decoder state s_0 = tanh(summary Wi + bi) of the kind's width N, teacher-forced
// forward over the kind's decoder step, the loss, greedy stepwise decoding, and the backward of
// everything below the decoder. A kind adds its attention and its decoder step (step(),
// alloc_decoder()) and the decoder's backward; the parameters run src_embed, tgt_embed,
// encoder, init, then the kind's (attention, decoder, output), so that ParamArena::grads_ready
// ranges stay the kinds' own.
// Buffers are time-major ([T,B,.], [S,B,.]); logits() and attention() return batch-major copies.
// Beam search steps the decoder once per token (IncrementalDecoding, recurrent_decode.cpp): the
// rows' recurrent state (state_at) is gathered into the surviving hypotheses' rows.
#pragma once
#include <vector>

#include "layers/bigru.hpp"
#include "layers/context.hpp"
#include "layers/embedding.hpp"
#include "layers/recurrent_attention.hpp"
#include "models/model.hpp"

namespace attnlab {

// What the shared part reads of a kind's typed config.
struct Seq2SeqShape {
  int src_vocab = 16, tgt_vocab = 16;
  int emb = 32, hidden = 64;  // hidden: C, each encoder direction
  int pad_id = 0, bos_id = 1, eos_id = 2;
};

class RecurrentSeq2Seq : public Model, public StepwiseDecoding, public IncrementalDecoding {
 public:
  double forward(const Batch& b, bool train, Rng* rng, float label_smoothing) override;
  std::vector<float> logits() const override;
  int out_vocab() const override { return shape_.tgt_vocab; }
  // The alignment of the last forward (or decoding), [B,1,T,S], for the kinds that align.
  std::vector<AttentionMap> attention() const override;
  int src_vocab() const override { return shape_.src_vocab; }
  // Greedy decoding with one decoder step per output token (stops at </s> or max_len); the
  // alignment of each step for the kinds that align.
  GreedyDecoded greedy_stepwise(const std::vector<std::vector<int32_t>>& srcs,
                                int max_len) override;
  // A decoder over `capacity` rows (row r on srcs[r]; the spare rows on srcs[0]) for at most
  // max_steps tokens: each step runs the kind's decoder step on every row.
  std::unique_ptr<StepDecoder> step_decoder(const std::vector<std::vector<int32_t>>& srcs,
                                            int capacity, int max_steps) override;

 protected:
  friend class RecurrentStepDecoder;
  // The recurrent state entering decoder step t: [B, width] slices of the kind's buffers.
  virtual std::vector<std::pair<float*, int>> state_at(int t) = 0;
  // Encodes the rows' sources (padded to the longest) and allocates max_steps decoder steps.
  void start_decoding(const std::vector<std::vector<int32_t>>& srcs, int max_steps);
  RecurrentSeq2Seq(const KernelTable& kt, const Seq2SeqShape& shape);
  // Declares src_embed, tgt_embed, the encoder, then init.W [2C,N] and init.b [N] (N: the
  // decoder state's width).
  void declare_encoder(ParamArena& P, int N);
  // Embeds and encodes src [B,S] (batch-major), sets the key mask, then prepare_attention().
  void encode(const std::vector<int32_t>& src_bm, int B, int S);
  virtual void prepare_attention() {}
  // Allocates the buffers of T decoder steps and sets the initial state (init_state()).
  virtual void alloc_decoder(int T) = 0;
  // Decoder step t from the previous tokens y_prev [B] (host ids): fills logits_ row block t
  // and, for the kinds that align, alpha_ row block t.
  virtual void step(int t, const int32_t* y_prev) = 0;
  // s0 [B,N] = tanh(summary Wi + bi)
  void init_state(float* s0, int N);
  // The backward below the decoder, in the kinds' order: the initial state (carry: the gradient
  // on s0 [B,N], overwritten), the target embeddings (dxe [T,B,E]), the attention's keys
  // (finish_attention_backward), the summary (dsum [B,2C]) and the annotations (dH [S,B,2C])
  // into the encoder, the source embeddings.
  void backward_encoder(const Ctx& c, float* carry, const float* s0, int N, float* dsum, float* dH,
                        const float* dxe);
  virtual void finish_attention_backward(float* dH) { (void)dH; }

  Seq2SeqShape shape_;
  Embedding src_embed_, tgt_embed_;
  BiGruIds enc_ids_;
  GruIds dec_ids_;
  AttnIds att_ids_;
  int init_W_ = -1, init_b_ = -1, out_W_ = -1, out_b_ = -1;
  // The first decoder parameter's id (backward reports each range once its gradients are final,
  // ParamArena::grads_ready, so a data-parallel step can start reducing them).
  int dec_first_ = -1;
  BiGru enc_;
  RecurrentAttention att_;
  // Last forward (time-major).
  int B_ = 0, S_ = 0, T_ = 0;
  std::vector<int32_t> src_tm_, tgt_in_tm_, tgt_out_tm_;
  std::vector<int> lengths_;
  uint8_t* key_pad_ = nullptr;  // [B,S]
  float *xs_ = nullptr, *H_ = nullptr, *sum_ = nullptr, *zr_ = nullptr, *rh_ = nullptr,
        *cand_ = nullptr, *xe_ = nullptr, *xg_ = nullptr, *alpha_ = nullptr, *e_ = nullptr,
        *acache_ = nullptr, *ctx_ = nullptr, *logits_ = nullptr, *scratch_ = nullptr;
  float* dlogits_ = nullptr;
};

}  // namespace attnlab
