// The Transformer family (see transformer.hpp): construction, forward, backward, its size
// estimate and cost model (inspection: transformer_inspect.cpp; the key/value-cache step decoder:
// transformer_decode.cpp).
// Long because: the size estimate and the cost model count the same layers the constructor
// builds, and stay beside it so that a change to one shows in the others.
#include "models/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"

namespace attnlab {

Transformer::Transformer(const TransformerConfig& cfg, const KernelTable& kt, uint64_t seed)
    : Model(kt), cfg_(cfg) {
  config_ = cfg.to_json();
  ParamArena& P = params_;
  const int C = cfg.d_model;
  const LayerOptions o{C,         cfg.heads,          cfg.d_ff,         cfg.dropout, cfg.norm_first,
                       cfg.act(), cfg.attn_dropout(), cfg.act_dropout()};
  const bool learned = cfg.pos_encoding == "learned";
  const bool has_src = cfg.model != "lm", has_tgt = cfg.model != "encoder";
  // Runs declare() and records the ids it added.
  auto part = [&P](Ids& ids, auto&& declare) {
    ids.first = P.count();
    declare();
    ids.last = P.count();
  };
  if (has_src)
    part(src_embed_ids_,
         [&] { src_embed_.declare(P, "src_embed.weight", cfg.src_vocab, C, true); });
  if (has_tgt)
    part(tgt_embed_ids_,
         [&] { tgt_embed_.declare(P, "tgt_embed.weight", cfg.tgt_vocab, C, true); });
  if (has_src)
    part(src_pos_ids_,
         [&] { src_pos_.declare(P, "src_pos_embed.weight", learned, cfg.max_len, C); });
  if (has_tgt)
    part(tgt_pos_ids_, [&] {
      tgt_pos_.declare(P, "tgt_pos_embed.weight", learned,
                       cfg.max_len + (cfg.model == "lm" ? cfg.max_len : 0), C);
    });
  if (has_src) {
    enc_.resize(size_t(cfg.enc_layers));
    enc_ids_.resize(enc_.size());
    for (int l = 0; l < cfg.enc_layers; ++l)
      part(enc_ids_[size_t(l)],
           [&] { enc_[size_t(l)].declare(P, "encoder.layers." + std::to_string(l), o); });
    part(enc_norm_ids_, [&] { enc_norm_.declare(P, "encoder.norm", C); });
  }
  if (cfg.model == "transformer") {
    dec_.resize(size_t(cfg.dec_layers));
    dec_ids_.resize(dec_.size());
    for (int l = 0; l < cfg.dec_layers; ++l)
      part(dec_ids_[size_t(l)],
           [&] { dec_[size_t(l)].declare(P, "decoder.layers." + std::to_string(l), o); });
  } else if (cfg.model == "lm") {
    lm_.resize(size_t(cfg.dec_layers));
    dec_ids_.resize(lm_.size());
    for (int l = 0; l < cfg.dec_layers; ++l)
      part(dec_ids_[size_t(l)],
           [&] { lm_[size_t(l)].declare(P, "decoder.layers." + std::to_string(l), o); });
  }
  if (has_tgt) part(dec_norm_ids_, [&] { dec_norm_.declare(P, "decoder.norm", C); });
  part(gen_ids_, [&] {
    if (cfg.tie_embeddings && has_tgt) {
      generator_.in = C;
      generator_.out = cfg.tgt_vocab;
      generator_.W = tgt_embed_.W;
      generator_.b = P.add("generator.bias", {cfg.tgt_vocab}, Init::Zeros);
    } else {
      generator_.declare(P, "generator", C, cfg.tgt_vocab);
    }
  });
  Rng rng(seed);
  P.allocate(rng);
}

std::vector<std::pair<std::string, int>> Transformer::aliases() const {
  if (cfg_.tie_embeddings && cfg_.model != "encoder") return {{"generator.weight", generator_.W}};
  return {};
}

uint8_t* Transformer::pad_mask(const Ctx& c, const std::vector<int32_t>& ids) const {
  std::vector<uint8_t> m(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) m[i] = ids[i] == cfg_.pad_id;
  uint8_t* d = c.ws.bytes(m.size());
  c.kt.upload(d, m.data(), m.size());
  return d;
}

float* Transformer::embed(const Ctx& c, const Embedding& e, const PositionalEncoding& pe,
                          DropoutCache& d, const int32_t*& dev_ids, const std::vector<int32_t>& ids,
                          int B, int L) {
  const size_t n = size_t(B) * L * cfg_.d_model;
  dev_ids = e.upload_ids(c, ids.data(), B * L);
  float* x = c.ws.floats(n);                     // [B,L,C] = E[ids]·√C + PE
  if (!tracing_ && c.kt.embedding_pe_forward) {  // gather, positions and dropout: one kernel
    const DropoutArgs drop = dropout_args(c, d, n, cfg_.dropout);
    c.kt.embedding_pe_forward(x, c.P.val(e.W), dev_ids, B * L, e.C, e.scale, pe.rows(c, L), L,
                              drop);
    embedded_ = x;
    return x;
  }
  e.forward_ids(c, x, dev_ids, B * L);
  if (tracing_) {
    token_embed_ = c.ws.floats(n);
    c.kt.copy(token_embed_, x, n * sizeof(float));
  }
  pe.forward(c, x, B, L);
  dropout_forward(c, d, x, x, n, cfg_.dropout);
  embedded_ = x;
  return x;
}

void Transformer::embed_backward(const Ctx& c, const Embedding& e, const PositionalEncoding& pe,
                                 const DropoutCache& d, const int32_t* dev_ids, float* dx, int B,
                                 int L) {
  if (!pe.learned && d.mask && c.kt.embedding_backward_masked) {  // the mask in the scatter-add
    c.kt.embedding_backward_masked(c.P.grad(e.W), dx, d.mask, dev_ids, B * L, e.C, e.scale);
    return;
  }
  dropout_backward(c, d, dx, size_t(B) * L * cfg_.d_model);
  pe.backward(c, dx, B, L);
  e.backward_ids(c, dx, dev_ids, B * L);
}

bool Transformer::drop_layer(const Ctx& c, float p) {
  return c.train && c.rng && p > 0.f && c.rng->uniform() < p;
}

double Transformer::forward(const Batch& b, bool train, Rng* rng, float label_smoothing) {
  AL_CHECK(b.B > 0 && b.T > 0, "empty batch");
  AL_CHECK(b.src.size() == size_t(b.B) * b.S && b.tgt_in.size() == size_t(b.B) * b.T &&
               b.tgt_out.size() == size_t(b.B) * b.T,
           "batch arrays disagree with their sizes");
  ws_.reset();
  const Ctx c{kt_, params_, ws_, train, rng};
  const int B = b.B, C = cfg_.d_model, V = cfg_.tgt_vocab, pad = cfg_.pad_id;
  B_ = B;
  S_ = b.S;
  T_ = b.T;
  traced_ = tracing_ && !train;
  traced_causal_ = causal_ && has_causal_mask();  // the encoder-only model never masks
  if (cfg_.model == "transformer") {
    AL_CHECK(b.S > 0, "the encoder-decoder needs a non-empty source");
    src_ = b.src;
    tgt_ = b.tgt_in;
    targets_ = b.tgt_out;
    L_ = b.T;
    const uint8_t* src_pad = pad_mask(c, src_);
    const uint8_t* tgt_pad = pad_mask(c, tgt_);
    float* x = embed(c, src_embed_, src_pos_, src_drop_, src_ids_, src_, B, S_);
    enc_c_.resize(enc_.size());
    enc_skip_.assign(enc_.size(), 0);
    for (size_t l = 0; l < enc_.size(); ++l) {
      enc_c_[l] = EncoderLayerCache{};
      if ((enc_skip_[l] = drop_layer(c, cfg_.enc_layer_drop))) continue;
      enc_c_[l].sa.mute = muted("encoder.layers." + std::to_string(l) + ".self_attn");
      x = enc_[l].forward(c, enc_c_[l], x, src_pad, false, B, S_);
    }
    float* memory = ws_.floats(size_t(B) * S_ * C);  // [B,S,C]
    enc_norm_.forward(c, enc_norm_c_, memory, x, B * S_);
    float* y = embed(c, tgt_embed_, tgt_pos_, tgt_drop_, tgt_ids_, tgt_, B, T_);
    dec_c_.resize(dec_.size());
    dec_skip_.assign(dec_.size(), 0);
    for (size_t l = 0; l < dec_.size(); ++l) {
      dec_c_[l] = DecoderLayerCache{};
      if ((dec_skip_[l] = drop_layer(c, cfg_.dec_layer_drop))) continue;
      const std::string name = "decoder.layers." + std::to_string(l);
      dec_c_[l].sa.mute = muted(name + ".self_attn");
      dec_c_[l].ca.mute = muted(name + ".multihead_attn");
      y = dec_[l].forward(c, dec_c_[l], y, memory, tgt_pad, src_pad, causal_, B, T_, S_);
    }
    hidden_ = ws_.floats(size_t(B) * T_ * C);
    dec_norm_.forward(c, dec_norm_c_, hidden_, y, B * T_);
  } else if (cfg_.model == "lm") {
    // Row b packs its non-pad source then its target input; targets only on the target part.
    L_ = b.S + b.T;
    tgt_.assign(size_t(B) * L_, pad);
    targets_.assign(size_t(B) * L_, pad);
    offset_.assign(size_t(B), 0);
    for (int r = 0; r < B; ++r) {
      int n = 0;
      for (int s = 0; s < b.S; ++s)
        if (b.src[size_t(r) * b.S + s] != pad)
          tgt_[size_t(r) * L_ + n++] = b.src[size_t(r) * b.S + s];
      offset_[size_t(r)] = n;
      for (int t = 0; t < b.T; ++t) {
        tgt_[size_t(r) * L_ + n + t] = b.tgt_in[size_t(r) * b.T + t];
        targets_[size_t(r) * L_ + n + t] = b.tgt_out[size_t(r) * b.T + t];
      }
    }
    const uint8_t* kpad = pad_mask(c, tgt_);
    float* y = embed(c, tgt_embed_, tgt_pos_, tgt_drop_, tgt_ids_, tgt_, B, L_);
    lm_c_.resize(lm_.size());
    dec_skip_.assign(lm_.size(), 0);
    for (size_t l = 0; l < lm_.size(); ++l) {
      lm_c_[l] = EncoderLayerCache{};
      if ((dec_skip_[l] = drop_layer(c, cfg_.dec_layer_drop))) continue;
      lm_c_[l].sa.mute = muted("decoder.layers." + std::to_string(l) + ".self_attn");
      lm_c_[l].sa.keep_scores = tracing_;
      y = lm_[l].forward(c, lm_c_[l], y, kpad, causal_, B, L_);
    }
    hidden_ = ws_.floats(size_t(B) * L_ * C);
    dec_norm_.forward(c, dec_norm_c_, hidden_, y, B * L_);
  } else {
    // Encoder-only: source and targets padded to a common length L.
    L_ = std::max(b.S, b.T);
    src_.assign(size_t(B) * L_, pad);
    targets_.assign(size_t(B) * L_, pad);
    for (int r = 0; r < B; ++r) {
      for (int s = 0; s < b.S; ++s) src_[size_t(r) * L_ + s] = b.src[size_t(r) * b.S + s];
      for (int t = 0; t < b.T; ++t) targets_[size_t(r) * L_ + t] = b.tgt_out[size_t(r) * b.T + t];
    }
    const uint8_t* kpad = pad_mask(c, src_);
    float* x = embed(c, src_embed_, src_pos_, src_drop_, src_ids_, src_, B, L_);
    enc_c_.resize(enc_.size());
    enc_skip_.assign(enc_.size(), 0);
    for (size_t l = 0; l < enc_.size(); ++l) {
      enc_c_[l] = EncoderLayerCache{};
      if ((enc_skip_[l] = drop_layer(c, cfg_.enc_layer_drop))) continue;
      enc_c_[l].sa.mute = muted("encoder.layers." + std::to_string(l) + ".self_attn");
      enc_c_[l].sa.keep_scores = tracing_;
      x = enc_[l].forward(c, enc_c_[l], x, kpad, false, B, L_);
    }
    hidden_ = ws_.floats(size_t(B) * L_ * C);
    enc_norm_.forward(c, enc_norm_c_, hidden_, x, B * L_);
  }
  logits_ = ws_.floats(size_t(B) * L_ * V);  // [B,L,V]
  generator_.forward(c, logits_, hidden_, B * L_);
  loss_ = cross_entropy_loss(c, logits_, targets_.data(), label_smoothing, pad, B * L_, V);
  return loss_.loss;
}

void Transformer::backward() {
  AL_CHECK(logits_, "backward() before forward()");
  const Ctx c{kt_, params_, ws_, true, nullptr};
  const int B = B_, C = cfg_.d_model, R = B * L_;
  float* dh = ws_.floats(size_t(R) * C);  // [B*L,C], assigned (dx_beta 0)
  generator_.backward(c, dh, loss_.dlogits, hidden_, R, 0.f);
  ready(gen_ids_);  // a tied weight is final only after the target embedding's backward
  float* dy = ws_.floats(size_t(R) * C);  // assigned by the final norm's backward
  if (cfg_.model == "encoder") {
    enc_norm_.backward(c, enc_norm_c_, dy, dh, R, false);
    ready(enc_norm_ids_);
    for (size_t l = enc_.size(); l-- > 0;) {
      if (!enc_skip_[l]) dy = enc_[l].backward(c, enc_c_[l], nullptr, dy);
      ready(enc_ids_[l]);  // a skipped layer's gradient is zero, and final
    }
    embed_backward(c, src_embed_, src_pos_, src_drop_, src_ids_, dy, B, L_);
    ready(src_embed_ids_);
    ready(src_pos_ids_);
    return;
  }
  dec_norm_.backward(c, dec_norm_c_, dy, dh, R, false);
  ready(dec_norm_ids_);
  if (cfg_.model == "lm") {
    for (size_t l = lm_.size(); l-- > 0;) {
      if (!dec_skip_[l]) dy = lm_[l].backward(c, lm_c_[l], nullptr, dy);
      ready(dec_ids_[l]);
    }
    embed_backward(c, tgt_embed_, tgt_pos_, tgt_drop_, tgt_ids_, dy, B, L_);
    ready(tgt_embed_ids_);
    ready(tgt_pos_ids_);
    return;
  }
  float* dmem = ws_.floats(size_t(B) * S_ * C);  // [B,S,C] summed over decoder layers
  kt_.zero(dmem, size_t(B) * S_ * C * sizeof(float));
  for (size_t l = dec_.size(); l-- > 0;) {
    if (!dec_skip_[l]) dy = dec_[l].backward(c, dec_c_[l], nullptr, dmem, dy);
    ready(dec_ids_[l]);
  }
  embed_backward(c, tgt_embed_, tgt_pos_, tgt_drop_, tgt_ids_, dy, B, T_);
  ready(tgt_embed_ids_);
  ready(tgt_pos_ids_);
  float* dx = ws_.floats(size_t(B) * S_ * C);  // assigned by the final norm's backward
  enc_norm_.backward(c, enc_norm_c_, dx, dmem, B * S_, false);
  ready(enc_norm_ids_);
  for (size_t l = enc_.size(); l-- > 0;) {
    if (!enc_skip_[l]) dx = enc_[l].backward(c, enc_c_[l], nullptr, dx);
    ready(enc_ids_[l]);
  }
  embed_backward(c, src_embed_, src_pos_, src_drop_, src_ids_, dx, B, S_);
  ready(src_embed_ids_);
  ready(src_pos_ids_);
}

std::vector<float> Transformer::logits() const {
  AL_CHECK(logits_, "logits() before forward()");
  const int V = cfg_.tgt_vocab;
  std::vector<float> out(size_t(B_) * T_ * V);
  for (int b = 0; b < B_; ++b) {
    const size_t first = size_t(b) * L_ + (cfg_.model == "lm" ? size_t(offset_[size_t(b)]) : 0);
    kt_.download(out.data() + size_t(b) * T_ * V, logits_ + first * V,
                 size_t(T_) * V * sizeof(float));
  }
  return out;
}

std::unique_ptr<Model> make_transformer(const nlohmann::json& config, const KernelTable& kt,
                                        uint64_t seed) {
  return std::make_unique<Transformer>(TransformerConfig::from_json(config), kt, seed);
}

const ConfigKeys& transformer_config_keys() { return TransformerConfig::keys(); }

void check_transformer_config(const nlohmann::json& config) {
  TransformerConfig::from_json(config);
}

SizeEstimate estimate_transformer(const nlohmann::json& m, int B, int S, int T) {
  const TransformerConfig d;  // the defaults of absent keys
  const std::string kind = m.value("model", d.model);
  const double Vs = json_number(m, "src_vocab", d.src_vocab);
  const double Vt = json_number(m, "tgt_vocab", d.tgt_vocab);
  const double C = json_number(m, "d_model", d.d_model), F = json_number(m, "d_ff", d.d_ff);
  const double H = json_number(m, "heads", d.heads), L = json_number(m, "max_len", d.max_len);
  const double Le = kind == "lm" ? 0 : json_number(m, "enc_layers", d.enc_layers);
  const double Ld = kind == "encoder" ? 0 : json_number(m, "dec_layers", d.dec_layers);
  const double attn = 4 * C * C + 4 * C, ffn = 2 * C * F + F + C, ln = 2 * C;
  double P = Le * (attn + ffn + 2 * ln) + Ld * ((kind == "lm" ? 1 : 2) * attn + ffn + 3 * ln);
  P += 2 * ln;
  P += (Vs + Vt) * C + Vt * C + Vt;  // embeddings and the output projection
  if (m.value("pos_encoding", d.pos_encoding) == "learned") P += L * C;
  const double Tx = kind == "encoder" ? S : T;
  // per layer: ~12 C-wide buffers and the FFN's hidden twice, per token; the attention maps
  double act = Le * B * S * (12 * C + 2 * F) + Le * B * H * S * S * 2;  // floats
  act += Ld * B * Tx * (18 * C + 2 * F) + Ld * B * H * Tx * (Tx + S) * 2;
  act += 3.0 * B * Tx * Vt;  // logits, their gradient, softmax
  return SizeEstimate::of(P, act);
}

// Multiply-adds per pass, the registry row's cost model (models/cost.hpp): read from the
// config as the size estimate is (absent fields: the typed config's defaults, no range checks).
namespace {

struct TransformerSizes {
  std::string kind;
  double C, F, Le, Ld, Vt;
  explicit TransformerSizes(const nlohmann::json& m) {
    const TransformerConfig d;
    kind = m.value("model", d.model);
    C = json_number(m, "d_model", d.d_model);
    F = json_number(m, "d_ff", d.d_ff);
    Le = kind == "lm" ? 0 : json_number(m, "enc_layers", d.enc_layers);
    Ld = kind == "encoder" ? 0 : json_number(m, "dec_layers", d.dec_layers);
    Vt = json_number(m, "tgt_vocab", d.tgt_vocab);
  }
  // one row of X tokens through `layers` self-attention layers (+ the output projection)
  double stack(double X, double layers, bool out) const {
    return X * (layers * (4 * C * C + 2 * C * F + 2 * X * C) + (out ? C * Vt : 0));
  }
};

}  // namespace

// The encoder-decoder Transformer, the decoder-only LM (source and target packed in one row, no
// key/value cache: each decoding step re-runs the prefix) and the encoder-only tagger (one pass).
double work_transformer_forward(const nlohmann::json& m, double B, double S, double T) {
  const TransformerSizes f(m);
  if (f.kind == "lm") return B * f.stack(S + T, f.Ld, true);
  if (f.kind == "encoder") return B * f.stack(std::max(S, T), f.Le, true);
  // encoder; decoder: self-attention, cross-attention (queries and outputs per target token,
  // keys and values per source token), feed-forward, the output projection
  return B * (f.stack(S, f.Le, false) + S * f.Ld * 2 * f.C * f.C +
              T * (f.Ld * (6 * f.C * f.C + 2 * f.C * f.F + 2 * f.C * (T + S)) + f.C * f.Vt));
}
double work_transformer_encode(const nlohmann::json& m, double R, double S) {
  const TransformerSizes f(m);
  if (f.kind == "lm") return 0;
  if (f.kind == "encoder") return work_transformer_forward(m, R, S, S + 1);
  return R * (f.stack(S, f.Le, false) + S * f.Ld * 2 * f.C * f.C);
}
double work_transformer_step(const nlohmann::json& m, double R, double S, double t) {
  const TransformerSizes f(m);
  if (f.kind == "lm") return R * f.stack(S + t + 1, f.Ld, true);
  if (f.kind == "encoder") return 0;
  return R * (f.Ld * (6 * f.C * f.C + 2 * f.C * f.F + 2 * f.C * (t + 1 + S)) + f.C * f.Vt);
}

}  // namespace attnlab
