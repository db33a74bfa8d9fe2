// RNNsearch / RNNencdec: construction, teacher-forced forward, backward, greedy decoding.
#include "models/rnnsearch.hpp"

#include <algorithm>
#include <string>

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
    : RecurrentSeq2Seq(kt, {cfg.src_vocab, cfg.tgt_vocab, cfg.emb, cfg.hidden, cfg.pad_id,
                            cfg.bos_id, cfg.eos_id}),
      cfg_(cfg) {
  config_ = cfg.to_json();
  ParamArena& P = params_;
  const int E = cfg.emb, C = cfg.hidden, V = cfg.tgt_vocab;
  declare_encoder(P, C);
  enc_.set_bidirectional(cfg.encoder == "bigru");
  if (attends()) att_ids_.declare(P, "attention", C, 2 * C, cfg.attn);
  dec_first_ = P.count();
  dec_ids_.declare(P, "decoder", E + 2 * C, C);
  out_W_ = P.add("out.W", {3 * C + E, V}, Init::Uniform, 1.f / std::sqrt(float(3 * C + E)));
  out_b_ = P.add("out.b", {V}, Init::Zeros);
  Rng rng(seed);
  P.allocate(rng);
}

void RnnSearch::prepare_attention() {
  if (attends())
    att_.prepare(kt_, att_ids_.val(params_), H_, key_pad_,
                 cfg_.score == "dot" ? Score::Dot : Score::Additive, S_, B_, 2 * cfg_.hidden,
                 cfg_.hidden, cfg_.attn);
}

void RnnSearch::finish_attention_backward(float* dH) {
  if (attends()) att_.finish_backward(kt_, att_ids_.val(params_), att_ids_.grad(params_), dH);
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
  init_state(s_, C);  // s_0 = tanh(sum Wi + bi)
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
  backward_encoder(c, carry, s_, C, dsum, dH, dxe);
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

// Multiply-adds per pass, the registry row's cost model (models/cost.hpp): read from the
// config as the size estimate is (absent fields: the typed config's defaults, no range checks).
namespace {

struct RnnSearchSizes {
  bool attends;
  double E, Hd, A, Vt, dirs;
  explicit RnnSearchSizes(const nlohmann::json& m) {
    const RnnSearchConfig d;
    attends = m.value("model", d.model) != "rnnencdec";
    E = json_number(m, "emb", d.emb);
    Hd = json_number(m, "hidden", d.hidden);
    A = json_number(m, "attn", Hd);
    Vt = json_number(m, "tgt_vocab", d.tgt_vocab);
    dirs = m.value("encoder", d.encoder) == "gru" ? 1 : 2;
  }
  double token() const { return dirs * 3 * (E * Hd + Hd * Hd) + (attends ? 2 * Hd * A : 0); }
  double step(double S) const {
    return 3 * ((E + 2 * Hd) * Hd + Hd * Hd) + (attends ? Hd * A + S * A + S * 2 * Hd : 0) +
           (3 * Hd + E) * Vt;
  }
};

}  // namespace

// RNNsearch and RNNencdec: bi-GRU encoder (and the attention's projection of each annotation),
// decoder GRU with additive attention over S annotations, deep output.
double work_rnnsearch_forward(const nlohmann::json& m, double B, double S, double T) {
  const RnnSearchSizes r(m);
  return B * (S * r.token() + 2 * r.Hd * r.Hd + T * r.step(S));
}
double work_rnnsearch_encode(const nlohmann::json& m, double R, double S) {
  const RnnSearchSizes r(m);
  return R * (S * r.token() + 2 * r.Hd * r.Hd);
}
double work_rnnsearch_step(const nlohmann::json& m, double R, double S, double) {
  return R * RnnSearchSizes(m).step(S);
}

}  // namespace attnlab
