// The shared recurrent encoder-decoder (see recurrent_seq2seq.hpp).
#include "models/recurrent_seq2seq.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "layers/loss.hpp"

namespace attnlab {

RecurrentSeq2Seq::RecurrentSeq2Seq(const KernelTable& kt, const Seq2SeqShape& shape)
    : Model(kt), shape_(shape) {
  require_recurrent_kernels(kt);
}

void RecurrentSeq2Seq::declare_encoder(ParamArena& P, int N) {
  const int E = shape_.emb, C = shape_.hidden;
  src_embed_.declare(P, "src_embed.weight", shape_.src_vocab, E, false);
  tgt_embed_.declare(P, "tgt_embed.weight", shape_.tgt_vocab, E, false);
  enc_ids_.declare(P, "encoder", E, C);
  init_W_ = P.add("init.W", {2 * C, N}, Init::Uniform, 1.f / std::sqrt(float(2 * C)));
  init_b_ = P.add("init.b", {N}, Init::Zeros);
}

void RecurrentSeq2Seq::encode(const std::vector<int32_t>& src_bm, int B, int S) {
  const int E = shape_.emb, C = shape_.hidden;
  AL_CHECK(B > 0 && S > 0, "empty source batch");
  B_ = B, S_ = S;
  src_tm_.assign(size_t(S) * B, shape_.pad_id);
  lengths_.assign(size_t(B), 0);
  std::vector<uint8_t> pad(size_t(B) * S, 1);
  for (int b = 0; b < B; ++b) {
    for (int s = 0; s < S; ++s) {
      const int32_t id = src_bm[size_t(b) * S + s];
      AL_CHECK(id >= 0 && id < shape_.src_vocab, "source id " << id << " out of range");
      src_tm_[size_t(s) * B + b] = id;
      if (id != shape_.pad_id) lengths_[size_t(b)] = s + 1;
    }
    AL_CHECK(lengths_[size_t(b)] > 0, "source " << b << " is empty");
    for (int s = 0; s < lengths_[size_t(b)]; ++s) pad[size_t(b) * S + s] = 0;
  }
  key_pad_ = ws_.bytes(pad.size());
  kt_.upload(key_pad_, pad.data(), pad.size());
  const Ctx c{kt_, params_, ws_, false, nullptr};
  xs_ = ws_.floats(size_t(S) * B * E);  // [S,B,E]
  src_embed_.forward(c, xs_, src_tm_.data(), S * B);
  H_ = ws_.floats(size_t(S) * B * 2 * C);  // [S,B,2C] annotations
  enc_.forward(kt_, enc_ids_.val(params_), H_, xs_, lengths_, S, B, E, C);
  sum_ = ws_.floats(size_t(B) * 2 * C);  // [B,2C] = [h->_L ; h<-_1]
  enc_.summary(kt_, sum_, H_);
  prepare_attention();
}

void RecurrentSeq2Seq::init_state(float* s0, int N) {
  const int B = B_, C2 = 2 * shape_.hidden;
  kt_.gemm(false, false, B, N, C2, 1.f, sum_, C2, params_.val(init_W_), N, 0.f, s0, N);
  kt_.tanh_bias_forward(s0, s0, params_.val(init_b_), B, N);
}

double RecurrentSeq2Seq::forward(const Batch& b, bool /*train*/, Rng* /*rng*/,
                                 float label_smoothing) {
  AL_CHECK(b.B > 0 && b.T > 0 && b.S > 0, "empty batch");
  ws_.reset();
  encode(b.src, b.B, b.S);
  const int B = b.B, T = b.T;
  T_ = T;
  alloc_decoder(T);
  tgt_in_tm_.assign(size_t(T) * B, shape_.pad_id);
  tgt_out_tm_.assign(size_t(T) * B, shape_.pad_id);
  for (int r = 0; r < B; ++r)
    for (int t = 0; t < T; ++t) {
      tgt_in_tm_[size_t(t) * B + r] = b.tgt_in[size_t(r) * T + t];
      tgt_out_tm_[size_t(t) * B + r] = b.tgt_out[size_t(r) * T + t];
    }
  for (int t = 0; t < T; ++t) step(t, tgt_in_tm_.data() + size_t(t) * B);
  const Ctx c{kt_, params_, ws_, false, nullptr};
  const LossResult L = cross_entropy_loss(c, logits_, tgt_out_tm_.data(), label_smoothing,
                                          shape_.pad_id, T * B, shape_.tgt_vocab);
  dlogits_ = L.dlogits;
  return L.loss;
}

void RecurrentSeq2Seq::backward_encoder(const Ctx& c, float* carry, const float* s0, int N,
                                        float* dsum, float* dH, const float* dxe) {
  const int B = B_, S = S_, E = shape_.emb, C2 = 2 * shape_.hidden;
  // s_0 = tanh(sum Wi + bi)
  kt_.tanh_bias_backward(carry, params_.grad(init_b_), carry, s0, B, N);
  kt_.gemm(true, false, C2, N, B, 1.f, sum_, C2, carry, N, 1.f, params_.grad(init_W_), N);
  kt_.gemm(false, true, B, C2, N, 1.f, carry, N, params_.val(init_W_), N, 1.f, dsum, C2);
  params_.grads_ready(init_W_, init_b_ + 1);
  tgt_embed_.backward(c, dxe, tgt_in_tm_.data(), int(size_t(T_) * B));
  params_.grads_ready(tgt_embed_.W, tgt_embed_.W + 1);
  finish_attention_backward(dH);
  params_.grads_ready(init_b_ + 1, dec_first_);  // the attention's (none for some kinds)
  enc_.summary_backward(kt_, dH, dsum);
  float* dxs = zeroed(c, size_t(S) * B * E);
  enc_.backward(kt_, enc_ids_.val(params_), enc_ids_.grad(params_), dxs, dH, xs_);
  params_.grads_ready(tgt_embed_.W + 1, init_W_);
  src_embed_.backward(c, dxs, src_tm_.data(), S * B);
  params_.grads_ready(src_embed_.W, src_embed_.W + 1);
}

std::vector<float> RecurrentSeq2Seq::logits() const {
  AL_CHECK(logits_, "logits() before forward()");
  const int V = shape_.tgt_vocab;
  std::vector<float> out(size_t(B_) * T_ * V);
  for (int b = 0; b < B_; ++b)
    for (int t = 0; t < T_; ++t)
      kt_.download(out.data() + (size_t(b) * T_ + t) * V, logits_ + (size_t(t) * B_ + b) * V,
                   size_t(V) * sizeof(float));
  return out;
}

std::vector<AttentionMap> RecurrentSeq2Seq::attention() const {
  if (!aligns() || !alpha_) return {};
  AttentionMap m{"alignment", B_, 1, T_, S_, {}};
  std::vector<float> a(size_t(T_) * B_ * S_);
  kt_.download(a.data(), alpha_, a.size() * sizeof(float));
  m.weights.resize(a.size());
  for (int b = 0; b < B_; ++b)
    for (int t = 0; t < T_; ++t)
      for (int s = 0; s < S_; ++s)
        m.weights[(size_t(b) * T_ + t) * S_ + s] = a[(size_t(t) * B_ + b) * S_ + s];
  return {m};
}

GreedyDecoded RecurrentSeq2Seq::greedy_stepwise(const std::vector<std::vector<int32_t>>& srcs,
                                                int max_len) {
  AL_CHECK(!srcs.empty() && max_len >= 1, "greedy: need sources and max_len >= 1");
  start_decoding(srcs, max_len);
  const int B = B_, S = S_;
  const int V = shape_.tgt_vocab;
  const bool align = aligns();
  GreedyDecoded out;
  out.tokens.resize(size_t(B));
  out.alignment.resize(size_t(B));
  std::vector<int32_t> prev(size_t(B), shape_.bos_id);
  std::vector<char> done(size_t(B), 0);
  std::vector<float> z(size_t(B) * V), a(size_t(B) * S);
  int t = 0;
  for (; t < max_len; ++t) {
    step(t, prev.data());
    kt_.download(z.data(), logits_ + size_t(t) * B * V, z.size() * sizeof(float));
    if (align) kt_.download(a.data(), alpha_ + size_t(t) * B * S, a.size() * sizeof(float));
    bool all = true;
    for (int b = 0; b < B; ++b) {
      const float* zr = z.data() + size_t(b) * V;
      prev[size_t(b)] = int32_t(std::max_element(zr, zr + V) - zr);
      if (done[size_t(b)]) continue;
      if (prev[size_t(b)] == shape_.eos_id) {
        done[size_t(b)] = 1;
        continue;
      }
      out.tokens[size_t(b)].push_back(prev[size_t(b)]);
      if (align)
        out.alignment[size_t(b)].emplace_back(
            a.begin() + long(b) * S, a.begin() + long(b) * S + int(srcs[size_t(b)].size()));
    }
    for (int b = 0; b < B; ++b) all = all && done[size_t(b)];
    if (all) break;
  }
  T_ = std::min(t + 1, max_len);
  return out;
}

}  // namespace attnlab
