// Luong attention: construction, teacher-forced forward, backward, greedy decoding.
#include "models/luong.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "layers/loss.hpp"
#include "models/config.hpp"

namespace attnlab {

const ConfigKeys& LuongConfig::keys() {
  static const ConfigKeys k = {{"emb", true, 1, 4096}, {"hidden", true, 1, 2048}, {"score"}};
  return k;
}

LuongConfig LuongConfig::from_json(const nlohmann::json& j) {
  LuongConfig c;
  const ConfigKeys& k = keys();
  c.model = json_string(j, "model", c.model);
  AL_CHECK(c.model == "luong", "model must be luong, got " << c.model);
  c.src_vocab = json_int(j, "src_vocab", c.src_vocab, 4, 1 << 20);
  c.tgt_vocab = json_int(j, "tgt_vocab", c.tgt_vocab, 4, 1 << 20);
  c.emb = json_int(j, config_key(k, "emb"), c.emb);
  c.hidden = json_int(j, config_key(k, "hidden"), c.hidden);
  c.score = json_string(j, "score", c.score);
  AL_CHECK(c.score == "dot" || c.score == "general" || c.score == "concat",
           "luong: score must be dot, general or concat, got \"" << c.score << "\"");
  c.pad_id = json_int(j, "pad_id", 0, 0, c.tgt_vocab - 1);
  c.bos_id = json_int(j, "bos_id", 1, 0, c.tgt_vocab - 1);
  c.eos_id = json_int(j, "eos_id", 2, 0, c.tgt_vocab - 1);
  return c;
}

nlohmann::json LuongConfig::to_json() const {
  return {{"model", model},   {"src_vocab", src_vocab}, {"tgt_vocab", tgt_vocab},
          {"emb", emb},       {"hidden", hidden},       {"score", score},
          {"pad_id", pad_id}, {"bos_id", bos_id},       {"eos_id", eos_id}};
}

Luong::Luong(const LuongConfig& cfg, const KernelTable& kt, uint64_t seed)
    : RecurrentSeq2Seq(kt, {cfg.src_vocab, cfg.tgt_vocab, cfg.emb, cfg.hidden, cfg.pad_id,
                            cfg.bos_id, cfg.eos_id}),
      cfg_(cfg) {
  config_ = cfg.to_json();
  ParamArena& P = params_;
  const int E = cfg.emb, C = cfg.hidden, D = 2 * C, V = cfg.tgt_vocab;
  declare_encoder(P, D);
  if (cfg.score == "general")
    gen_W_ = P.add("attention.W", {D, D}, Init::Uniform, 1.f / std::sqrt(float(D)));
  if (cfg.score == "concat") att_ids_.declare(P, "attention", D, D, D);
  dec_first_ = P.count();
  dec_ids_.declare(P, "decoder", E + D, D);
  comb_W_ = P.add("combine.W", {2 * D, D}, Init::Uniform, 1.f / std::sqrt(float(2 * D)));
  comb_b_ = P.add("combine.b", {D}, Init::Zeros);
  out_W_ = P.add("out.W", {D, V}, Init::Uniform, 1.f / std::sqrt(float(D)));
  out_b_ = P.add("out.b", {V}, Init::Zeros);
  Rng rng(seed);
  P.allocate(rng);
}

void Luong::prepare_attention() {
  const int D = 2 * cfg_.hidden;
  if (cfg_.score == "concat")
    att_.prepare(kt_, att_ids_.val(params_), H_, key_pad_, Score::Additive, S_, B_, D, D, D);
}

void Luong::finish_attention_backward(float* dH) {
  if (cfg_.score == "concat")
    att_.finish_backward(kt_, att_ids_.val(params_), att_ids_.grad(params_), dH);
}

void Luong::alloc_decoder(int T) {
  const int B = B_, S = S_, E = cfg_.emb, D = 2 * cfg_.hidden, V = cfg_.tgt_vocab;
  const size_t tb = size_t(T) * B, bd = size_t(B) * D;
  h_ = ws_.floats((tb + B) * D);   // [T+1,B,D] h_0..h_T
  ht_ = ws_.floats((tb + B) * D);  // [T+1,B,D] h~_0 = 0, h~_1..h~_T
  zr_ = ws_.floats(tb * 2 * D);    // [T,B,2D]
  rh_ = ws_.floats(tb * D);        // [T,B,D]
  cand_ = ws_.floats(tb * D);      // [T,B,D]
  xe_ = ws_.floats(tb * E);        // [T,B,E] embedded y_{t-1}
  xg_ = ws_.floats(tb * 3 * D);    // [T,B,3D] decoder input pre-activations
  alpha_ = ws_.floats(tb * S);     // [T,B,S]
  e_ = ws_.floats(tb * S);         // [T,B,S]
  qa_ = cfg_.score == "general" ? ws_.floats(tb * D) : nullptr;  // [T,B,D] h_t Wa
  acache_ = cfg_.score == "concat" ? ws_.floats(size_t(T) * att_.step_cache_floats()) : nullptr;
  ctx_ = ws_.floats(tb * D);      // [T,B,D]
  logits_ = ws_.floats(tb * V);   // [T,B,V]
  scratch_ = ws_.floats(bd * 3);  // [B,3D]
  kt_.zero(ht_, bd * sizeof(float));
  init_state(h_, D);  // h_0 = tanh(sum Wi + bi)
}

// e_bs = score(h_t, h̄_s), alpha_t = masked softmax_s(e)
void Luong::score_forward(int t) {
  const int B = B_, S = S_, D = 2 * cfg_.hidden;
  const size_t bd = size_t(B) * D;
  const float* q = h_ + (t + 1) * bd;  // h_t
  float* alpha = alpha_ + t * size_t(B) * S;
  float* e = e_ + t * size_t(B) * S;
  if (cfg_.score == "concat") {
    att_.forward(kt_, att_ids_.val(params_), alpha, e, acache_ + t * att_.step_cache_floats(), q,
                 nullptr);
    return;
  }
  if (cfg_.score == "general") {
    float* qa = qa_ + t * bd;
    kt_.gemm(false, false, B, D, D, 1.f, q, D, params_.val(gen_W_), D, 0.f, qa, D);
    q = qa;
  }
  // e_b [1,S] = q_b [1,D] H_bᵀ (H_b rows at stride B*D)
  kt_.gemm_batched(false, true, 1, S, D, 1.f, q, D, D, H_, B * D, D, 0.f, e, S, S, B);
  kt_.softmax_forward(alpha, e, 1.f, key_pad_, false, B, 1, 1, S);
}

// dot:     e_bs = q_b . h̄_sb       =>  dq_b += sum_s de_bs h̄_sb, dh̄_sb += de_bs q_b
// general: q_b = h_b Wa            =>  the same into dq, then dWa += hᵀ dq, dh += dq Waᵀ
// concat:  RecurrentAttention's additive backward (dh += ..., its keys' gradient kept)
void Luong::score_backward(int t, float* dh, float* dH, const float* de) {
  const int B = B_, S = S_, D = 2 * cfg_.hidden;
  const size_t bd = size_t(B) * D;
  const float* h = h_ + (t + 1) * bd;
  if (cfg_.score == "concat") {
    att_.backward(kt_, att_ids_.val(params_), att_ids_.grad(params_), dh, de,
                  acache_ + t * att_.step_cache_floats(), h);
    return;
  }
  const bool general = cfg_.score == "general";
  const float* q = general ? qa_ + t * bd : h;
  float* dq = general ? scratch_ : dh;  // general: dq [B,D] assigned, then through Wa
  kt_.gemm_batched(false, false, 1, D, S, 1.f, de, S, S, H_, B * D, D, general ? 0.f : 1.f, dq, D,
                   D, B);
  kt_.gemm_batched(true, false, S, D, 1, 1.f, de, S, S, q, D, D, 1.f, dH, B * D, D, B);
  if (general) {
    kt_.gemm(true, false, D, D, B, 1.f, h, D, dq, D, 1.f, params_.grad(gen_W_), D);
    kt_.gemm(false, true, B, D, D, 1.f, dq, D, params_.val(gen_W_), D, 1.f, dh, D);
  }
}

void Luong::step(int t, const int32_t* y_prev) {
  const int B = B_, S = S_, E = cfg_.emb, D = 2 * cfg_.hidden, V = cfg_.tgt_vocab;
  const size_t bd = size_t(B) * D;
  const Ctx c{kt_, params_, ws_, false, nullptr};
  const GruParams dec = dec_ids_.val(params_);
  float* xe = xe_ + t * size_t(B) * E;
  float* xg = xg_ + t * 3 * bd;
  float* ctx = ctx_ + t * bd;
  float* h = h_ + (t + 1) * bd;
  float* ht = ht_ + (t + 1) * bd;
  // h_t = GRU(h_{t-1}, [E y_{t-1} ; h~_{t-1}])
  tgt_embed_.forward(c, xe, y_prev, B);
  gru_input_forward(kt_, dec, xg, xe, B, E, D);  // the embedding rows of W, plus b
  const float* Wf = dec.W + size_t(E) * 3 * D;   // [D,3D] input-feeding rows of W
  kt_.gemm(false, false, B, 3 * D, D, 1.f, ht_ + t * bd, D, Wf, 3 * D, 1.f, xg, 3 * D);
  gru_step_forward(kt_, dec, h, {zr_ + t * 2 * bd, rh_ + t * bd, cand_ + t * bd}, scratch_, xg,
                   h_ + t * bd, B, D);
  // c_t = sum_s a_ts h̄_s
  score_forward(t);
  context_forward(kt_, ctx, alpha_ + t * size_t(B) * S, H_, S, B, D);
  // h~_t = tanh([c_t ; h_t] Wc + bc)
  const float* Wc = params_.val(comb_W_);
  kt_.gemm(false, false, B, D, D, 1.f, ctx, D, Wc, D, 0.f, ht, D);
  kt_.gemm(false, false, B, D, D, 1.f, h, D, Wc + size_t(D) * D, D, 1.f, ht, D);
  kt_.tanh_bias_forward(ht, ht, params_.val(comb_b_), B, D);
  // logits = h~_t Ws + bs
  float* z = logits_ + t * size_t(B) * V;
  kt_.gemm(false, false, B, V, D, 1.f, ht, D, params_.val(out_W_), V, 0.f, z, V);
  kt_.bias_act_forward(z, nullptr, z, params_.val(out_b_), Act::None, B, V);
}

// Mirrors forward: the output layer, then the decoder steps in reverse (combination, context,
// score, GRU, input projection with input feeding into step t-1's h~), the initial state, the
// encoder, the embeddings.
void Luong::backward() {
  AL_CHECK(dlogits_, "backward() before forward()");
  const int B = B_, S = S_, T = T_, E = cfg_.emb, D = 2 * cfg_.hidden, V = cfg_.tgt_vocab;
  const size_t bd = size_t(B) * D, tb = size_t(T) * B;
  const Ctx c{kt_, params_, ws_, true, nullptr};
  const GruParams dec = dec_ids_.val(params_), ddec = dec_ids_.grad(params_);
  const float* dl = dlogits_;  // [T,B,V]
  kt_.gemm(true, false, D, V, int(tb), 1.f, ht_ + bd, D, dl, V, 1.f, params_.grad(out_W_), V);
  kt_.bias_act_backward(dlogits_, params_.grad(out_b_), dl, nullptr, Act::None, int(tb), V);
  params_.grads_ready(out_W_, out_b_ + 1);
  float* dht = ws_.floats(tb * D);  // [T,B,D] gradient on h~_1..h~_T (input feeding adds)
  float* dxe = ws_.floats(tb * E);  // [T,B,E]
  kt_.gemm(false, true, int(tb), D, V, 1.f, dl, V, params_.val(out_W_), V, 0.f, dht, D);
  float* dH = zeroed(c, size_t(S) * B * D);  // [S,B,D] accumulated over steps
  float* dsum = zeroed(c, bd);
  float* carry = zeroed(c, bd);  // gradient on h_t from step t+1's GRU
  float* dxg = ws_.floats(bd * 3);
  float* dpre = ws_.floats(bd);
  float* dctx = ws_.floats(bd);
  float* dh = ws_.floats(bd);
  float* dalpha = ws_.floats(size_t(B) * S);
  const float* Wc = params_.val(comb_W_);
  float* dWc = params_.grad(comb_W_);
  const float* Wf = dec.W + size_t(E) * 3 * D;
  float* dWf = ddec.W + size_t(E) * 3 * D;
  for (int t = T - 1; t >= 0; --t) {
    const float* h = h_ + (t + 1) * bd;
    const float* ctx = ctx_ + t * bd;
    const float* alpha = alpha_ + t * size_t(B) * S;
    // h~ = tanh([c ; h] Wc + bc)  =>  dpre = dh~ (1 - h~^2), dWc += [c ; h]ᵀ dpre
    kt_.tanh_bias_backward(dpre, params_.grad(comb_b_), dht + t * bd, ht_ + (t + 1) * bd, B, D);
    kt_.gemm(true, false, D, D, B, 1.f, ctx, D, dpre, D, 1.f, dWc, D);
    kt_.gemm(true, false, D, D, B, 1.f, h, D, dpre, D, 1.f, dWc + size_t(D) * D, D);
    kt_.gemm(false, true, B, D, D, 1.f, dpre, D, Wc, D, 0.f, dctx, D);
    kt_.copy(dh, carry, bd * sizeof(float));
    kt_.gemm(false, true, B, D, D, 1.f, dpre, D, Wc + size_t(D) * D, D, 1.f, dh, D);
    // c = sum_s a_s h̄_s, a = softmax(e)
    context_backward(kt_, dalpha, dH, dctx, alpha, H_, S, B, D);
    kt_.softmax_backward(dalpha, alpha, dalpha, 1.f, B, S);
    score_backward(t, dh, dH, dalpha);
    gru_step_backward(kt_, dec, ddec, dxg, carry, {zr_ + t * 2 * bd, rh_ + t * bd, cand_ + t * bd},
                      scratch_, dh, h_ + t * bd, B, D);
    float* dxe_t = dxe + t * size_t(B) * E;
    kt_.gemm(false, true, B, E, 3 * D, 1.f, dxg, 3 * D, dec.W, 3 * D, 0.f, dxe_t, E);
    gru_input_backward(kt_, dec, ddec, nullptr, dxg, xe_ + t * size_t(B) * E, B, E, D);
    if (t > 0) {  // input feeding: h~_{t-1} fed step t (h~_0 = 0 has no gradient)
      kt_.gemm(true, false, D, 3 * D, B, 1.f, ht_ + t * bd, D, dxg, 3 * D, 1.f, dWf, 3 * D);
      kt_.gemm(false, true, B, D, 3 * D, 1.f, dxg, 3 * D, Wf, 3 * D, 1.f, dht + (t - 1) * bd, D);
    }
  }
  params_.grads_ready(dec_first_, out_W_);
  backward_encoder(c, carry, h_, D, dsum, dH, dxe);
}

std::unique_ptr<Model> make_luong(const nlohmann::json& config, const KernelTable& kt,
                                  uint64_t seed) {
  return std::make_unique<Luong>(LuongConfig::from_json(config), kt, seed);
}

const ConfigKeys& luong_config_keys() { return LuongConfig::keys(); }

void check_luong_config(const nlohmann::json& config) { LuongConfig::from_json(config); }

SizeEstimate estimate_luong(const nlohmann::json& m, int B, int S, int T) {
  const LuongConfig d;  // the defaults of absent keys
  const double Vs = json_number(m, "src_vocab", d.src_vocab);
  const double Vt = json_number(m, "tgt_vocab", d.tgt_vocab);
  const double E = json_number(m, "emb", d.emb), Hd = json_number(m, "hidden", d.hidden);
  const double D = 2 * Hd;
  const bool concat = m.is_object() && m.value("score", d.score) == "concat";
  double P = (Vs + Vt) * E + 2 * 3 * (E * Hd + Hd * Hd + Hd);           // embeddings, bi-GRU
  P += 3 * ((E + D) * D + D * D + D) + D * D + D;                       // decoder GRU, init
  P += (concat ? 2 * D * D + D : D * D) + 2 * D * D + D + D * Vt + Vt;  // score, combine, out
  const double act = B * S * (Hd * 16 + D) + B * T * (D * 12 + E + 2 * S + 3 * Vt) +
                     (concat ? B * T * S * D + B * S * D * 2 : 0);
  return SizeEstimate::of(P, act);
}

// Multiply-adds per pass, the registry row's cost model (models/cost.hpp): read from the
// config as the size estimate is (absent fields: the typed config's defaults, no range checks).
namespace {

struct LuongSizes {
  bool concat, projects;
  double E, Hd, D, Vt;
  explicit LuongSizes(const nlohmann::json& m) {
    const LuongConfig d;
    const std::string score = m.value("score", d.score);
    concat = score == "concat";
    projects = score != "dot";
    E = json_number(m, "emb", d.emb);
    Hd = json_number(m, "hidden", d.hidden);
    D = 2 * Hd;
    Vt = json_number(m, "tgt_vocab", d.tgt_vocab);
  }
  double token() const { return 2 * 3 * (E * Hd + Hd * Hd) + (projects ? D * D : 0); }
  double step(double S) const {
    return 3 * ((E + D) * D + D * D) + (concat ? D * D + S * D : 0) + 2 * S * D + 2 * D * D +
           D * Vt;
  }
};

}  // namespace

// Luong: bi-GRU encoder, decoder GRU of 2 * hidden with input feeding, global attention.
double work_luong_forward(const nlohmann::json& m, double B, double S, double T) {
  const LuongSizes l(m);
  return B * (S * l.token() + l.D * l.D + T * l.step(S));
}
double work_luong_encode(const nlohmann::json& m, double R, double S) {
  const LuongSizes l(m);
  return R * (S * l.token() + l.D * l.D);
}
double work_luong_step(const nlohmann::json& m, double R, double S, double) {
  return R * LuongSizes(m).step(S);
}

}  // namespace attnlab
