// RNNsearch / RNNencdec: construction, teacher-forced forward, backward, greedy decoding.
#include "models/rnnsearch.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "layers/loss.hpp"
#include "models/config.hpp"

namespace attnlab {

const ConfigKeys& RnnSearchConfig::keys() {
  static const ConfigKeys k = {{"emb", true, 1, 4096},
                               {"hidden", true, 1, 4096},
                               {"attn", true, 1, 4096},
                               {"score"},
                               {"encoder"}};
  return k;
}

RnnSearchConfig RnnSearchConfig::from_json(const nlohmann::json& j) {
  RnnSearchConfig c;
  const ConfigKeys& k = keys();
  c.model = json_string(j, "model", c.model);
  AL_CHECK(c.model == "rnnsearch" || c.model == "rnnencdec",
           "model must be rnnsearch or rnnencdec, got " << c.model);
  c.src_vocab = json_int(j, "src_vocab", c.src_vocab, 4, 1 << 20);
  c.tgt_vocab = json_int(j, "tgt_vocab", c.tgt_vocab, 4, 1 << 20);
  c.emb = json_int(j, config_key(k, "emb"), c.emb);
  c.hidden = json_int(j, config_key(k, "hidden"), c.hidden);
  c.attn = json_int(j, config_key(k, "attn"), c.hidden);
  c.score = json_string(j, "score", c.score);
  AL_CHECK(c.score == "additive" || c.score == "dot", "score must be additive or dot");
  c.encoder = json_string(j, "encoder", c.encoder);
  AL_CHECK(c.encoder == "bigru" || c.encoder == "gru",
           "encoder must be bigru or gru, got " << c.encoder);
  c.pad_id = json_int(j, "pad_id", 0, 0, c.tgt_vocab - 1);
  c.bos_id = json_int(j, "bos_id", 1, 0, c.tgt_vocab - 1);
  c.eos_id = json_int(j, "eos_id", 2, 0, c.tgt_vocab - 1);
  return c;
}

nlohmann::json RnnSearchConfig::to_json() const {
  return {{"model", model},   {"src_vocab", src_vocab}, {"tgt_vocab", tgt_vocab},
          {"emb", emb},       {"hidden", hidden},       {"attn", attn},
          {"score", score},   {"encoder", encoder},     {"pad_id", pad_id},
          {"bos_id", bos_id}, {"eos_id", eos_id}};
}

RnnSearch::RnnSearch(const RnnSearchConfig& cfg, const KernelTable& kt, uint64_t seed)
    : Model(kt), cfg_(cfg) {
  require_recurrent_kernels(kt);
  config_ = cfg.to_json();
  ParamArena& P = params_;
  const int E = cfg.emb, C = cfg.hidden, V = cfg.tgt_vocab;
  src_embed_.declare(P, "src_embed.weight", cfg.src_vocab, E, false);
  tgt_embed_.declare(P, "tgt_embed.weight", cfg.tgt_vocab, E, false);
  enc_ids_.declare(P, "encoder", E, C);
  enc_.set_bidirectional(cfg.encoder == "bigru");
  init_W_ = P.add("init.W", {2 * C, C}, Init::Uniform, 1.f / std::sqrt(float(2 * C)));
  init_b_ = P.add("init.b", {C}, Init::Zeros);
  if (attends()) att_ids_.declare(P, "attention", C, 2 * C, cfg.attn);
  dec_first_ = P.count();
  dec_ids_.declare(P, "decoder", E + 2 * C, C);
  out_W_ = P.add("out.W", {3 * C + E, V}, Init::Uniform, 1.f / std::sqrt(float(3 * C + E)));
  out_b_ = P.add("out.b", {V}, Init::Zeros);
  Rng rng(seed);
  P.allocate(rng);
}

void RnnSearch::encode(const std::vector<int32_t>& src_bm, int B, int S) {
  const int E = cfg_.emb, C = cfg_.hidden;
  AL_CHECK(B > 0 && S > 0, "empty source batch");
  B_ = B, S_ = S;
  src_tm_.assign(size_t(S) * B, cfg_.pad_id);
  lengths_.assign(size_t(B), 0);
  std::vector<uint8_t> pad(size_t(B) * S, 1);
  for (int b = 0; b < B; ++b) {
    for (int s = 0; s < S; ++s) {
      const int32_t id = src_bm[size_t(b) * S + s];
      AL_CHECK(id >= 0 && id < cfg_.src_vocab, "source id " << id << " out of range");
      src_tm_[size_t(s) * B + b] = id;
      if (id != cfg_.pad_id) lengths_[size_t(b)] = s + 1;
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
  if (attends())
    att_.prepare(kt_, att_ids_.val(params_), H_, key_pad_,
                 cfg_.score == "dot" ? Score::Dot : Score::Additive, S, B, 2 * C, C, cfg_.attn);
}

void RnnSearch::alloc_decoder(int T) {
  const int B = B_, S = S_, E = cfg_.emb, C = cfg_.hidden, V = cfg_.tgt_vocab;
  const size_t tb = size_t(T) * B;
  s_ = ws_.floats((tb + B) * C);  // [T+1,B,C] s_0..s_T
  zr_ = ws_.floats(tb * 2 * C);   // [T,B,2C]
  rh_ = ws_.floats(tb * C);       // [T,B,C]
  cand_ = ws_.floats(tb * C);     // [T,B,C]
  xe_ = ws_.floats(tb * E);       // [T,B,E] embedded y_{i-1}
  xg_ = ws_.floats(tb * 3 * C);   // [T,B,3C] decoder input pre-activations
  alpha_ = ws_.floats(tb * S);    // [T,B,S]
  e_ = ws_.floats(tb * S);        // [T,B,S]
  acache_ = attends() ? ws_.floats(size_t(T) * att_.step_cache_floats()) : nullptr;
  ctx_ = ws_.floats(tb * 2 * C);  // [T,B,2C]
  logits_ = ws_.floats(tb * V);   // [T,B,V]
  scratch_ = ws_.floats(size_t(B) * 3 * C);
  // s_0 = tanh(sum Wi + bi)
  kt_.gemm(false, false, B, C, 2 * C, 1.f, sum_, 2 * C, params_.val(init_W_), C, 0.f, s_, C);
  kt_.tanh_bias_forward(s_, s_, params_.val(init_b_), B, C);
}

void RnnSearch::step(int t, const int32_t* y_prev) {
  const int B = B_, S = S_, E = cfg_.emb, C = cfg_.hidden, V = cfg_.tgt_vocab;
  const size_t bc = size_t(B) * C;
  const Ctx c{kt_, params_, ws_, false, nullptr};
  const GruParams dec = dec_ids_.val(params_);
  float* xe = xe_ + t * size_t(B) * E;
  float* xg = xg_ + t * 3 * bc;
  float* ctx = ctx_ + t * 2 * bc;
  const float* q = s_ + t * bc;  // s_{i-1}
  tgt_embed_.forward(c, xe, y_prev, B);
  gru_input_forward(kt_, dec, xg, xe, B, E, C);  // the embedding rows of W, plus b
  if (attends()) {
    float* alpha = alpha_ + t * size_t(B) * S;
    att_.forward(kt_, att_ids_.val(params_), alpha, e_ + t * size_t(B) * S,
                 acache_ + t * att_.step_cache_floats(), q, nullptr);
    context_forward(kt_, ctx, alpha, H_, S, B, 2 * C);
  } else {
    kt_.copy(ctx, sum_, 2 * bc * sizeof(float));
  }
  const float* Wc = dec.W + size_t(E) * 3 * C;  // [2C,3C] context rows of W
  kt_.gemm(false, false, B, 3 * C, 2 * C, 1.f, ctx, 2 * C, Wc, 3 * C, 1.f, xg, 3 * C);
  gru_step_forward(kt_, dec, s_ + (t + 1) * bc, {zr_ + t * 2 * bc, rh_ + t * bc, cand_ + t * bc},
                   scratch_, xg, q, B, C);
  // logits = [s_i ; c_i ; E y_{i-1}] Wo + bo
  const float* Wo = params_.val(out_W_);
  float* z = logits_ + t * size_t(B) * V;
  kt_.gemm(false, false, B, V, C, 1.f, s_ + (t + 1) * bc, C, Wo, V, 0.f, z, V);
  kt_.gemm(false, false, B, V, 2 * C, 1.f, ctx, 2 * C, Wo + size_t(C) * V, V, 1.f, z, V);
  kt_.gemm(false, false, B, V, E, 1.f, xe, E, Wo + size_t(3 * C) * V, V, 1.f, z, V);
  kt_.bias_act_forward(z, nullptr, z, params_.val(out_b_), Act::None, B, V);
}

double RnnSearch::forward(const Batch& b, bool /*train*/, Rng* /*rng*/, float label_smoothing) {
  AL_CHECK(b.B > 0 && b.T > 0 && b.S > 0, "empty batch");
  ws_.reset();
  encode(b.src, b.B, b.S);
  const int B = b.B, T = b.T;
  T_ = T;
  alloc_decoder(T);
  tgt_in_tm_.assign(size_t(T) * B, cfg_.pad_id);
  tgt_out_tm_.assign(size_t(T) * B, cfg_.pad_id);
  for (int r = 0; r < B; ++r)
    for (int t = 0; t < T; ++t) {
      tgt_in_tm_[size_t(t) * B + r] = b.tgt_in[size_t(r) * T + t];
      tgt_out_tm_[size_t(t) * B + r] = b.tgt_out[size_t(r) * T + t];
    }
  for (int t = 0; t < T; ++t) step(t, tgt_in_tm_.data() + size_t(t) * B);
  const Ctx c{kt_, params_, ws_, false, nullptr};
  const LossResult L = cross_entropy_loss(c, logits_, tgt_out_tm_.data(), label_smoothing,
                                          cfg_.pad_id, T * B, cfg_.tgt_vocab);
  dlogits_ = L.dlogits;
  return L.loss;
}

// Mirrors forward: output layer, then the decoder steps in reverse (GRU, input projection,
// attention into the annotations and s_{i-1}), the initial state, the encoder, the embeddings.
void RnnSearch::backward() {
  AL_CHECK(dlogits_, "backward() before forward()");
  const int B = B_, S = S_, T = T_, E = cfg_.emb, C = cfg_.hidden, V = cfg_.tgt_vocab;
  const size_t bc = size_t(B) * C, tb = size_t(T) * B;
  const Ctx c{kt_, params_, ws_, true, nullptr};
  const GruParams dec = dec_ids_.val(params_), ddec = dec_ids_.grad(params_);
  const float* Wo = params_.val(out_W_);
  float* dWo = params_.grad(out_W_);
  const float* dl = dlogits_;  // [T,B,V]
  kt_.gemm(true, false, C, V, int(tb), 1.f, s_ + bc, C, dl, V, 1.f, dWo, V);
  kt_.gemm(true, false, 2 * C, V, int(tb), 1.f, ctx_, 2 * C, dl, V, 1.f, dWo + size_t(C) * V, V);
  kt_.gemm(true, false, E, V, int(tb), 1.f, xe_, E, dl, V, 1.f, dWo + size_t(3 * C) * V, V);
  kt_.bias_act_backward(dlogits_, params_.grad(out_b_), dl, nullptr, Act::None, int(tb), V);
  params_.grads_ready(out_W_, out_b_ + 1);
  float* ds = ws_.floats(tb * C);        // [T,B,C] gradient on s_1..s_T
  float* dctx = ws_.floats(tb * 2 * C);  // [T,B,2C]
  float* dxe = ws_.floats(tb * E);       // [T,B,E]
  kt_.gemm(false, true, int(tb), C, V, 1.f, dl, V, Wo, V, 0.f, ds, C);
  kt_.gemm(false, true, int(tb), 2 * C, V, 1.f, dl, V, Wo + size_t(C) * V, V, 0.f, dctx, 2 * C);
  kt_.gemm(false, true, int(tb), E, V, 1.f, dl, V, Wo + size_t(3 * C) * V, V, 0.f, dxe, E);
  float* dH = ws_.floats(size_t(S) * B * 2 * C);  // [S,B,2C] accumulated over steps
  float* dsum = ws_.floats(size_t(B) * 2 * C);
  float* carry = ws_.floats(bc);  // gradient on s_t from step t+1
  float* dxg = ws_.floats(bc * 3);
  float* dalpha = ws_.floats(size_t(B) * S);
  kt_.zero(dH, size_t(S) * B * 2 * C * sizeof(float));
  kt_.zero(dsum, size_t(B) * 2 * C * sizeof(float));
  kt_.zero(carry, bc * sizeof(float));
  const float* Wc = dec.W + size_t(E) * 3 * C;
  float* dWc = ddec.W + size_t(E) * 3 * C;
  const AttnParams ap = attends() ? att_ids_.val(params_) : AttnParams{};
  const AttnParams dap = attends() ? att_ids_.grad(params_) : AttnParams{};
  for (int t = T - 1; t >= 0; --t) {
    float* ds_t = ds + t * bc;
    const float* q = s_ + t * bc;
    const float* ctx = ctx_ + t * 2 * bc;
    float* dctx_t = dctx + t * 2 * bc;
    kt_.axpy(ds_t, 1.f, carry, long(bc));
    gru_step_backward(kt_, dec, ddec, dxg, carry, {zr_ + t * 2 * bc, rh_ + t * bc, cand_ + t * bc},
                      scratch_, ds_t, q, B, C);
    kt_.gemm(false, true, B, 2 * C, 3 * C, 1.f, dxg, 3 * C, Wc, 3 * C, 1.f, dctx_t, 2 * C);
    kt_.gemm(true, false, 2 * C, 3 * C, B, 1.f, ctx, 2 * C, dxg, 3 * C, 1.f, dWc, 3 * C);
    float* dxe_t = dxe + t * size_t(B) * E;
    const float* xe_t = xe_ + t * size_t(B) * E;
    kt_.gemm(false, true, B, E, 3 * C, 1.f, dxg, 3 * C, dec.W, 3 * C, 1.f, dxe_t, E);
    gru_input_backward(kt_, dec, ddec, nullptr, dxg, xe_t, B, E, C);
    if (attends()) {
      const float* alpha = alpha_ + t * size_t(B) * S;
      context_backward(kt_, dalpha, dH, dctx_t, alpha, H_, S, B, 2 * C);
      kt_.softmax_backward(dalpha, alpha, dalpha, 1.f, B, S);
      att_.backward(kt_, ap, dap, carry, dalpha, acache_ + t * att_.step_cache_floats(), q);
    } else {
      kt_.axpy(dsum, 1.f, dctx_t, long(2 * bc));
    }
  }
  params_.grads_ready(dec_first_, out_W_);
  // s_0 = tanh(sum Wi + bi)
  kt_.tanh_bias_backward(carry, params_.grad(init_b_), carry, s_, B, C);
  kt_.gemm(true, false, 2 * C, C, B, 1.f, sum_, 2 * C, carry, C, 1.f, params_.grad(init_W_), C);
  kt_.gemm(false, true, B, 2 * C, C, 1.f, carry, C, params_.val(init_W_), C, 1.f, dsum, 2 * C);
  params_.grads_ready(init_W_, init_b_ + 1);
  tgt_embed_.backward(c, dxe, tgt_in_tm_.data(), int(tb));
  params_.grads_ready(tgt_embed_.W, tgt_embed_.W + 1);
  if (attends()) att_.finish_backward(kt_, ap, dap, dH);
  params_.grads_ready(init_b_ + 1, dec_first_);  // the attention (none in RNNencdec)
  enc_.summary_backward(kt_, dH, dsum);
  float* dxs = zeroed(c, size_t(S) * B * E);
  enc_.backward(kt_, enc_ids_.val(params_), enc_ids_.grad(params_), dxs, dH, xs_);
  params_.grads_ready(tgt_embed_.W + 1, init_W_);
  src_embed_.backward(c, dxs, src_tm_.data(), S * B);
  params_.grads_ready(src_embed_.W, src_embed_.W + 1);
}

std::vector<float> RnnSearch::logits() const {
  AL_CHECK(logits_, "logits() before forward()");
  const int V = cfg_.tgt_vocab;
  std::vector<float> out(size_t(B_) * T_ * V);
  for (int b = 0; b < B_; ++b)
    for (int t = 0; t < T_; ++t)
      kt_.download(out.data() + (size_t(b) * T_ + t) * V, logits_ + (size_t(t) * B_ + b) * V,
                   size_t(V) * sizeof(float));
  return out;
}

std::vector<AttentionMap> RnnSearch::attention() const {
  if (!attends() || !alpha_) return {};
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

GreedyDecoded RnnSearch::greedy_stepwise(const std::vector<std::vector<int32_t>>& srcs,
                                         int max_len) {
  AL_CHECK(!srcs.empty() && max_len >= 1, "greedy: need sources and max_len >= 1");
  const int B = int(srcs.size());
  int S = 0;
  for (const auto& s : srcs) S = std::max(S, int(s.size()));
  std::vector<int32_t> bm(size_t(B) * S, cfg_.pad_id);
  for (int b = 0; b < B; ++b)
    std::copy(srcs[size_t(b)].begin(), srcs[size_t(b)].end(), bm.begin() + long(b) * S);
  ws_.reset();
  encode(bm, B, S);
  alloc_decoder(max_len);
  const int V = cfg_.tgt_vocab;
  GreedyDecoded out;
  out.tokens.resize(size_t(B));
  out.alignment.resize(size_t(B));
  std::vector<int32_t> prev(size_t(B), cfg_.bos_id);
  std::vector<char> done(size_t(B), 0);
  std::vector<float> z(size_t(B) * V), a(size_t(B) * S);
  int t = 0;
  for (; t < max_len; ++t) {
    step(t, prev.data());
    kt_.download(z.data(), logits_ + size_t(t) * B * V, z.size() * sizeof(float));
    if (attends()) kt_.download(a.data(), alpha_ + size_t(t) * B * S, a.size() * sizeof(float));
    bool all = true;
    for (int b = 0; b < B; ++b) {
      const float* zr = z.data() + size_t(b) * V;
      prev[size_t(b)] = int32_t(std::max_element(zr, zr + V) - zr);
      if (done[size_t(b)]) continue;
      if (prev[size_t(b)] == cfg_.eos_id) {
        done[size_t(b)] = 1;
        continue;
      }
      out.tokens[size_t(b)].push_back(prev[size_t(b)]);
      if (attends())
        out.alignment[size_t(b)].emplace_back(
            a.begin() + long(b) * S, a.begin() + long(b) * S + int(srcs[size_t(b)].size()));
    }
    for (int b = 0; b < B; ++b) all = all && done[size_t(b)];
    if (all) break;
  }
  T_ = std::min(t + 1, max_len);
  return out;
}

std::unique_ptr<Model> make_rnnsearch(const nlohmann::json& config, const KernelTable& kt,
                                      uint64_t seed) {
  return std::make_unique<RnnSearch>(RnnSearchConfig::from_json(config), kt, seed);
}

const ConfigKeys& rnnsearch_config_keys() { return RnnSearchConfig::keys(); }

void check_rnnsearch_config(const nlohmann::json& config) { RnnSearchConfig::from_json(config); }

SizeEstimate estimate_rnnsearch(const nlohmann::json& m, int B, int S, int T) {
  const RnnSearchConfig d;  // the defaults of absent keys (attn: hidden)
  const double Vs = json_number(m, "src_vocab", d.src_vocab);
  const double Vt = json_number(m, "tgt_vocab", d.tgt_vocab);
  const double E = json_number(m, "emb", d.emb), Hd = json_number(m, "hidden", d.hidden);
  const double A = json_number(m, "attn", Hd);
  double P = (Vs + Vt) * E + 2 * 3 * (E * Hd + Hd * Hd + 2 * Hd);      // embeddings, bi-GRU
  P += 3 * ((E + 2 * Hd) * Hd + Hd * Hd + 2 * Hd) + 2 * Hd * Hd + Hd;  // decoder GRU, init
  P += 2 * Hd * A + Hd * A + A + (Hd + 2 * Hd + E) * Vt + Vt;          // attention, output
  const double act =
      B * S * (2 * Hd * 8 + A) + B * T * (Hd * 10 + 2 * Hd + S + 3 * Vt) + B * T * S * A;
  return SizeEstimate::of(P, act);
}

}  // namespace attnlab
