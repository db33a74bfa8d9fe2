// The encoder-decoder Transformer's step decoder with a key/value cache
// (Transformer::step_decoder): greedy and beam decoding run the decoder layers on the newest token
// only, reading the cached keys and values of the earlier positions and of the encoder memory.
#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "models/transformer.hpp"

namespace attnlab {

// The encoder-decoder's step decoder (see StepDecoder). Two workspaces: `state_` keeps what
// lives across steps (each decoder layer's keys and values of the encoder memory, the self-
// attention caches, the rows' key-padding mask) and `scratch_` one step's activations. A step is
// the teacher-forced forward pass restricted to the new position: the same layers and kernels on
// [rows, C], with the self-attention reading the cached keys and values of positions 0..t.
class TransformerStepDecoder : public StepDecoder {
 public:
  TransformerStepDecoder(Transformer& m, const std::vector<std::vector<int32_t>>& srcs,
                         int capacity, int max_steps);
  std::vector<float> step(const std::vector<int32_t>& tokens) override;
  void reorder(const std::vector<int>& parents) override;
  int rows() const override { return int(src_of_.size()); }

 private:
  void upload_row_pad();

  Transformer& m_;
  Workspace state_, scratch_;
  int C_ = 0, H_ = 0, S_ = 0, cap_ = 0, room_ = 0, len_ = 0;
  std::vector<int> src_of_;           // row -> source
  std::vector<uint8_t> src_pad_;      // [sources, S] on the host, nonzero = padding
  bool padded_ = false;               // whether any source is shorter than S
  const uint8_t* row_pad_ = nullptr;  // [rows, S] in backend memory (null without padding)
  std::vector<float*> mem_kv_;        // per decoder layer: [sources*S, 2C] memory keys | values
  std::vector<float*> kv_, spare_;    // per decoder layer: [cap, room, 2C] keys | values so far
};

TransformerStepDecoder::TransformerStepDecoder(Transformer& m,
                                               const std::vector<std::vector<int32_t>>& srcs,
                                               int capacity, int max_steps)
    : m_(m), state_(m.kt_), scratch_(m.kt_) {
  const TransformerConfig& cfg = m.cfg_;
  const KernelTable& kt = m.kt_;
  const int Bs = int(srcs.size());
  AL_CHECK(Bs > 0 && capacity >= Bs, "a step decoder needs sources and room for their rows");
  AL_CHECK(max_steps >= 1, "a step decoder needs room for at least one token");
  C_ = cfg.d_model;
  H_ = cfg.heads;
  cap_ = capacity;
  room_ = std::min(max_steps, cfg.max_len);
  for (const auto& s : srcs) S_ = std::max(S_, int(s.size()));
  AL_CHECK(S_ > 0, "the encoder-decoder needs a non-empty source");
  AL_CHECK(S_ <= cfg.max_len, "sequence length " << S_ << " exceeds max_len " << cfg.max_len);
  const int C = C_, n = Bs * S_;
  std::vector<int32_t> ids(size_t(n), cfg.pad_id);
  for (int b = 0; b < Bs; ++b)
    std::copy(srcs[size_t(b)].begin(), srcs[size_t(b)].end(), ids.begin() + long(b) * S_);
  src_pad_.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) padded_ |= (src_pad_[i] = ids[i] == cfg.pad_id) != 0;

  // The encoder, in the scratch workspace: only the memory's keys and values are kept.
  const Ctx c{kt, m.params_, scratch_, false, nullptr};
  const int32_t* dev_ids = m.src_embed_.upload_ids(c, ids.data(), n);
  float* x = scratch_.floats(size_t(n) * C);
  m.src_embed_.forward_ids(c, x, dev_ids, n);
  m.src_pos_.forward(c, x, Bs, S_);
  uint8_t* pad = scratch_.bytes(src_pad_.size());
  kt.upload(pad, src_pad_.data(), src_pad_.size());
  for (const EncoderLayer& layer : m.enc_) {
    EncoderLayerCache ec;
    x = layer.forward(c, ec, x, pad, false, Bs, S_);
  }
  float* memory = scratch_.floats(size_t(n) * C);
  LayerNormCache lc;
  m.enc_norm_.forward(c, lc, memory, x, n);
  for (const DecoderLayer& layer : m.dec_) {
    const MultiHeadAttention& a = layer.multihead_attn;
    float* kv = state_.floats(size_t(n) * 2 * C);
    linear_forward(kt, kv, memory, m.params_.val(a.in_w) + size_t(C) * C, m.params_.val(a.in_b) + C,
                   n, C, 2 * C);
    mem_kv_.push_back(kv);
    kv_.push_back(state_.floats(size_t(cap_) * room_ * 2 * C));
    spare_.push_back(state_.floats(size_t(cap_) * room_ * 2 * C));
  }
  src_of_.resize(size_t(Bs));
  for (int b = 0; b < Bs; ++b) src_of_[size_t(b)] = b;
  upload_row_pad();
}

void TransformerStepDecoder::upload_row_pad() {
  row_pad_ = nullptr;
  if (!padded_ || src_of_.empty()) return;
  std::vector<uint8_t> rows(src_of_.size() * size_t(S_));
  for (size_t r = 0; r < src_of_.size(); ++r)
    std::copy_n(src_pad_.begin() + long(src_of_[r]) * S_, S_, rows.begin() + long(r) * S_);
  uint8_t* d = state_.bytes(rows.size());  // a few bytes per reorder, kept until the end
  m_.kt_.upload(d, rows.data(), rows.size());
  row_pad_ = d;
}

std::vector<float> TransformerStepDecoder::step(const std::vector<int32_t>& tokens) {
  const TransformerConfig& cfg = m_.cfg_;
  const KernelTable& kt = m_.kt_;
  const ParamArena& P = m_.params_;
  const int R = rows(), C = C_, H = H_, hs = C / H, V = cfg.tgt_vocab, S = S_;
  AL_CHECK(int(tokens.size()) == R, "step(): " << tokens.size() << " tokens for " << R << " rows");
  AL_CHECK(len_ < cfg.max_len,
           "sequence length " << len_ + 1 << " exceeds max_len " << cfg.max_len);
  AL_CHECK(len_ < room_, "the step decoder has room for " << room_ << " tokens");
  std::vector<float> out(size_t(R) * V);
  if (R == 0) return out;
  scratch_.reset();
  const Ctx c{kt, m_.params_, scratch_, false, nullptr};
  const int t = len_, n = t + 1;
  const long row = long(room_) * 2 * C;  // one row's cache
  const float scale = 1.f / std::sqrt(float(hs));
  float* x = scratch_.floats(size_t(R) * C);  // [R,C] = E[token]·√C + PE[t]
  m_.tgt_embed_.forward(c, x, tokens.data(), R);
  const PositionalEncoding& pe = m_.tgt_pos_;
  AL_CHECK(t < pe.L, "sequence length " << n << " exceeds max_len " << pe.L);
  const float* pe_t = (pe.learned ? P.val(pe.table) : pe.fixed) + size_t(t) * C;
  for (int r = 0; r < R; ++r) kt.axpy(x + size_t(r) * C, 1.f, pe_t, C);
  for (size_t l = 0; l < m_.dec_.size(); ++l) {
    const DecoderLayer& L = m_.dec_[l];
    ResidualCache r1, r2, r3;
    // causal self-attention: this position's query against the keys and values of 0..t
    const float* in = L.res1.enter(c, r1, x, R);
    float* qkv = scratch_.floats(size_t(R) * 3 * C);
    linear_forward(kt, qkv, in, P.val(L.self_attn.in_w), P.val(L.self_attn.in_b), R, C, 3 * C);
    float* kv = kv_[l];
    for (int r = 0; r < R; ++r)
      kt.copy(kv + r * row + long(t) * 2 * C, qkv + size_t(r) * 3 * C + C, 2 * C * sizeof(float));
    float* att = scratch_.floats(size_t(R) * H * n);  // [R,H,1,n]
    for (int r = 0; r < R; ++r)
      kt.gemm_batched(false, true, 1, n, hs, 1.f, qkv + size_t(r) * 3 * C, 3 * C, hs, kv + r * row,
                      2 * C, hs, 0.f, att + size_t(r) * H * n, n, n, H);
    kt.softmax_forward(att, att, scale, nullptr, false, R, H, 1, n);
    float* ctx = scratch_.floats(size_t(R) * C);
    for (int r = 0; r < R; ++r)
      kt.gemm_batched(false, false, 1, hs, n, 1.f, att + size_t(r) * H * n, n, n, kv + r * row + C,
                      2 * C, hs, 0.f, ctx + size_t(r) * C, C, hs, H);
    L.self_attn.out_proj.forward(c, r1.sub, ctx, R);
    const float* h = L.res1.leave(c, r1, R);
    // cross-attention over the row's source, whose keys and values were computed once
    in = L.res2.enter(c, r2, h, R);
    float* q = scratch_.floats(size_t(R) * C);
    linear_forward(kt, q, in, P.val(L.multihead_attn.in_w), P.val(L.multihead_attn.in_b), R, C, C);
    float* catt = scratch_.floats(size_t(R) * H * S);  // [R,H,1,S]
    for (int r = 0; r < R; ++r) {
      const float* mem = mem_kv_[l] + size_t(src_of_[size_t(r)]) * S * 2 * C;
      kt.gemm_batched(false, true, 1, S, hs, 1.f, q + size_t(r) * C, C, hs, mem, 2 * C, hs, 0.f,
                      catt + size_t(r) * H * S, S, S, H);
    }
    kt.softmax_forward(catt, catt, scale, row_pad_, false, R, H, 1, S);
    for (int r = 0; r < R; ++r) {
      const float* mem = mem_kv_[l] + size_t(src_of_[size_t(r)]) * S * 2 * C;
      kt.gemm_batched(false, false, 1, hs, S, 1.f, catt + size_t(r) * H * S, S, S, mem + C, 2 * C,
                      hs, 0.f, ctx + size_t(r) * C, C, hs, H);
    }
    L.multihead_attn.out_proj.forward(c, r2.sub, ctx, R);
    h = L.res2.leave(c, r2, R);
    in = L.res3.enter(c, r3, h, R);
    FfnCache fc;
    L.ff.forward(c, fc, r3.sub, in, R);
    x = L.res3.leave(c, r3, R);
  }
  float* hidden = scratch_.floats(size_t(R) * C);
  LayerNormCache nc;
  m_.dec_norm_.forward(c, nc, hidden, x, R);
  float* logits = scratch_.floats(size_t(R) * V);
  m_.generator_.forward(c, logits, hidden, R);
  kt.download(out.data(), logits, out.size() * sizeof(float));
  ++len_;
  return out;
}

void TransformerStepDecoder::reorder(const std::vector<int>& parents) {
  AL_CHECK(int(parents.size()) <= cap_,
           "reorder(): " << parents.size() << " rows, room for " << cap_);
  for (int p : parents) AL_CHECK(p >= 0 && p < rows(), "reorder(): row " << p << " of " << rows());
  const long row = long(room_) * 2 * C_;
  for (size_t l = 0; l < kv_.size(); ++l) {
    if (len_ > 0)
      for (size_t i = 0; i < parents.size(); ++i)
        m_.kt_.copy(spare_[l] + long(i) * row, kv_[l] + long(parents[i]) * row,
                    size_t(len_) * 2 * C_ * sizeof(float));
    std::swap(kv_[l], spare_[l]);
  }
  std::vector<int> src(parents.size());
  for (size_t i = 0; i < parents.size(); ++i) src[i] = src_of_[size_t(parents[i])];
  src_of_ = std::move(src);
  upload_row_pad();
}

std::unique_ptr<StepDecoder> Transformer::step_decoder(
    const std::vector<std::vector<int32_t>>& srcs, int capacity, int max_steps) {
  if (cfg_.model != "transformer" || !causal_ || !muted_.empty()) return nullptr;
  return std::make_unique<TransformerStepDecoder>(*this, srcs, capacity, max_steps);
}

}  // namespace attnlab
