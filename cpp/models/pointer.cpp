// Pointer network: construction, teacher-forced forward over point batches, backward, the
// pointer distributions as logits and attention, its size estimate and cost model (decoding:
// pointer_search.cpp; see pointer.hpp).
// Long because: the size estimate and the cost model count the same layers the constructor
// builds, and stay beside it so that a change to one shows in the others.
#include "models/pointer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/check.hpp"
#include "layers/linear.hpp"
#include "layers/loss.hpp"
#include "models/config.hpp"

namespace attnlab {

const ConfigKeys& PointerConfig::keys() {
  static const ConfigKeys k = {
      {"hidden", true, 1, 4096},       {"attn", true, 1, 4096}, {"glimpse"}, {"encoder"},
      {"process_steps", true, 1, 100}, {"embed", true, 0, 4096}};
  return k;
}

PointerConfig PointerConfig::from_json(const nlohmann::json& j) {
  PointerConfig c;
  const ConfigKeys& k = keys();
  c.model = json_string(j, "model", c.model);
  AL_CHECK(c.model == "pointer", "model must be pointer, got " << c.model);
  c.dim = json_int(j, "dim", c.dim, 1, 16);
  c.hidden = json_int(j, config_key(k, "hidden"), c.hidden);
  c.attn = json_int(j, config_key(k, "attn"), c.hidden);
  c.glimpse = json_bool(j, "glimpse", c.glimpse);
  c.min_outputs = json_int(j, "min_outputs", c.min_outputs, 1, 1 << 20);
  c.permutation = json_bool(j, "permutation", c.permutation);
  c.encoder = json_string(j, "encoder", c.encoder);
  AL_CHECK(c.encoder == "lstm" || c.encoder == "rpw",
           "encoder must be lstm or rpw, got " << c.encoder);
  c.process_steps = json_int(j, config_key(k, "process_steps"), c.process_steps);
  c.embed = json_int(j, config_key(k, "embed"), c.embed);
  return c;
}

nlohmann::json PointerConfig::to_json() const {
  return {{"model", model},
          {"dim", dim},
          {"hidden", hidden},
          {"attn", attn},
          {"glimpse", glimpse},
          {"min_outputs", min_outputs},
          {"permutation", permutation},
          {"encoder", encoder},
          {"process_steps", process_steps},
          {"embed", embed}};
}

PointerNet::PointerNet(const PointerConfig& cfg, const KernelTable& kt, uint64_t seed)
    : Model(kt), cfg_(cfg) {
  require_recurrent_kernels(kt);
  config_ = cfg.to_json();
  Ci_ = cfg.dim + 1;
  if (cfg.embed > 0) {
    emb_W_ = params_.add("embed.weight", {cfg.embed, Ci_}, Init::XavierUniform);
    emb_b_ = params_.add("embed.bias", {cfg.embed}, Init::Zeros);
  }
  enc_first_ = params_.count();
  if (cfg.encoder == "rpw")
    process_ids_.declare(params_, "process", Ci_, cfg.hidden, cfg.attn);
  else
    enc_ids_.declare(params_, "encoder", in_width(), cfg.hidden);
  dec_first_ = params_.count();
  dec_ids_.declare(params_, "decoder", in_width(), cfg.hidden);
  ptr_first_ = params_.count();
  ptr_ids_.declare(params_, "pointer", cfg.hidden, cfg.hidden, cfg.attn);
  glimpse_first_ = params_.count();
  if (cfg.glimpse) glimpse_ids_.declare(params_, "glimpse", cfg.hidden, cfg.hidden, cfg.attn);
  Rng rng(seed);
  params_.allocate(rng);
}

const float* PointerNet::embed(float* y, const float* x, int R) {
  if (cfg_.embed <= 0) return x;
  linear_forward(kt_, y, x, params_.val(emb_W_), params_.val(emb_b_), R, Ci_, cfg_.embed);
  return y;
}

// Encoder input at position pos (0: the start/end symbol): [x_b,pos-1 ; 0] or [0 ; 1].
std::vector<float> PointerNet::features(const std::vector<float>& x, int b, int pos) const {
  std::vector<float> f(size_t(Ci_), 0.f);
  if (pos == 0) {
    f[size_t(cfg_.dim)] = 1.f;
  } else {
    const int n = S_ - 1;
    for (int d = 0; d < cfg_.dim; ++d) f[size_t(d)] = x[(size_t(b) * n + pos - 1) * cfg_.dim + d];
  }
  return f;
}

void PointerNet::encode(const std::vector<float>& x, int B, int n) {
  AL_CHECK(B >= 1 && n >= 1, "pointer: need at least one set of at least one element");
  AL_CHECK(x.size() == size_t(B) * n * cfg_.dim,
           "pointer: expected " << size_t(B) * n * cfg_.dim << " coordinates, got " << x.size());
  for (float v : x) AL_CHECK(std::isfinite(v), "pointer: coordinates must be finite numbers");
  B_ = B, S_ = n + 1;
  const int S = S_, C = cfg_.hidden;
  std::vector<float> h(size_t(S) * B * Ci_);
  for (int s = 0; s < S; ++s)
    for (int b = 0; b < B; ++b) {
      const auto f = features(x, b, s);
      std::copy(f.begin(), f.end(), h.begin() + long((size_t(s) * B + b) * Ci_));
    }
  xin_ = ws_.floats(h.size());  // [S,B,Ci]
  kt_.upload(xin_, h.data(), h.size() * sizeof(float));
  if (cfg_.encoder == "rpw") {
    process_.forward(kt_, params_, process_ids_, xin_, S, B, Ci_, C, cfg_.attn, cfg_.process_steps);
    Eo_ = process_.memories();
  } else {
    float* h = ws_.floats(size_t(S) * B * C);  // [S,B,C]
    xe_ = embed(cfg_.embed > 0 ? ws_.floats(size_t(S) * B * in_width()) : nullptr, xin_, S * B);
    enc_.forward(kt_, enc_ids_.val(params_), h, xe_, nullptr, nullptr, S, B, in_width(), C);
    Eo_ = h;
  }
  ptr_.prepare(kt_, ptr_ids_.val(params_), Eo_, nullptr, Score::Additive, S, B, C, C, cfg_.attn);
  if (cfg_.glimpse)
    glimpse_.prepare(kt_, glimpse_ids_.val(params_), Eo_, nullptr, Score::Additive, S, B, C, C,
                     cfg_.attn);
}

void PointerNet::alloc_decoder(int T) {
  const int B = B_, S = S_, C = cfg_.hidden;
  const size_t bc = size_t(B) * C, tb = size_t(T) * B;
  T_ = T;
  Dh_ = ws_.floats((tb + B) * C);  // [T+1,B,C] d_0..d_T (d_0: encoder's last h)
  Dc_ = ws_.floats((tb + B) * C);  // [T+1,B,C] cells
  act_ = ws_.floats(tb * 4 * C);   // [T,B,4C]
  tc_ = ws_.floats(tb * C);        // [T,B,C]
  xd_ = ws_.floats(tb * Ci_);      // [T,B,Ci] decoder inputs
  xde_ = cfg_.embed > 0 ? ws_.floats(tb * in_width()) : xd_;  // [T,B,E] embedded
  xg_ = ws_.floats(tb * 4 * C);                               // [T,B,4C]
  qp_ = cfg_.glimpse ? ws_.floats(tb * C) : nullptr;          // [T,B,C] glimpse reads
  alpha_g_ = cfg_.glimpse ? ws_.floats(tb * S) : nullptr;
  e_g_ = cfg_.glimpse ? ws_.floats(tb * S) : nullptr;
  cache_g_ = cfg_.glimpse ? ws_.floats(size_t(T) * glimpse_.step_cache_floats()) : nullptr;
  probs_ = ws_.floats(tb * S);  // [T,B,S]
  e_p_ = ws_.floats(tb * S);
  cache_p_ = ws_.floats(size_t(T) * ptr_.step_cache_floats());
  scratch_ = ws_.floats(bc * 4);
  mask_ = ws_.bytes(tb * S);
  const bool rpw = cfg_.encoder == "rpw";
  kt_.copy(Dh_, rpw ? process_.q_final() : Eo_ + size_t(S - 1) * bc, bc * sizeof(float));
  kt_.copy(Dc_, rpw ? process_.c_final() : enc_.cell(S - 1), bc * sizeof(float));
}

void PointerNet::step(int t, const float* xin_host, const uint8_t* mask_host) {
  const int B = B_, S = S_, C = cfg_.hidden;
  const size_t bc = size_t(B) * C;
  float* xd = xd_ + size_t(t) * B * Ci_;
  uint8_t* mask = mask_ + size_t(t) * B * S;
  kt_.upload(xd, xin_host, size_t(B) * Ci_ * sizeof(float));
  kt_.upload(mask, mask_host, size_t(B) * S);
  const LstmParams dec = dec_ids_.val(params_);
  float* xg = xg_ + t * 4 * bc;
  const float* xde = embed(xde_ + size_t(t) * B * in_width(), xd, B);
  lstm_input_forward(kt_, dec, xg, xde, B, in_width(), C);
  lstm_step_forward(kt_, dec, Dh_ + (t + 1) * bc,
                    {act_ + t * 4 * bc, Dc_ + (t + 1) * bc, tc_ + t * bc}, scratch_, xg,
                    Dh_ + t * bc, Dc_ + t * bc, B, C);
  const float* q = Dh_ + (t + 1) * bc;
  if (cfg_.glimpse) {
    float* ag = alpha_g_ + size_t(t) * B * S;
    glimpse_.forward(kt_, glimpse_ids_.val(params_), ag, e_g_ + size_t(t) * B * S,
                     cache_g_ + t * glimpse_.step_cache_floats(), q, mask);
    context_forward(kt_, qp_ + t * bc, ag, Eo_, S, B, C);
    q = qp_ + t * bc;
  }
  ptr_.forward(kt_, ptr_ids_.val(params_), probs_ + size_t(t) * B * S, e_p_ + size_t(t) * B * S,
               cache_p_ + t * ptr_.step_cache_floats(), q, mask);
}

double PointerNet::forward(const Batch& b, bool, Rng*, float label_smoothing) {
  AL_CHECK(b.dim > 0 && b.src.empty(),
           "the pointer model reads point sets (a batch of float inputs), not token ids: use a "
           "point task (convex-hull, tsp, sort)");
  AL_CHECK(b.dim == cfg_.dim,
           "pointer: the batch has " << b.dim << " features per input, the model " << cfg_.dim);
  AL_CHECK(label_smoothing == 0.f, "pointer: label smoothing does not apply");
  AL_CHECK(b.B >= 1 && b.S >= 1 && b.T >= 1 && b.tgt_out.size() == size_t(b.B) * b.T,
           "pointer: a batch [B,T] of targets for B >= 1 sets of n >= 1 inputs");
  const int n = b.S;
  // The targets of each row: inputs (ids kFirstSymbol + j) up to the end symbol, then pad.
  std::vector<std::vector<int>> targets(size_t(b.B));
  for (int r = 0; r < b.B; ++r) {
    const int32_t* row = b.tgt_out.data() + size_t(r) * b.T;
    int t = 0;
    for (; t < b.T && row[t] != eos_id(); ++t) {
      AL_CHECK(row[t] >= kFirstSymbol && row[t] < kFirstSymbol + n,
               "pointer: target id " << row[t] << " names no input (ids " << kFirstSymbol << ".."
                                     << kFirstSymbol + n - 1 << ", end " << eos_id() << ")");
      targets[size_t(r)].push_back(row[t] - kFirstSymbol);
    }
    AL_CHECK(t < b.T, "pointer: target row " << r << " has no end symbol");
    for (++t; t < b.T; ++t)
      AL_CHECK(row[t] == pad_id(), "pointer: target row " << r << " continues after its end");
  }
  ws_.reset();
  encode(b.x, b.B, n);
  const int B = b.B, S = S_, T = b.T;  // steps past a row's end are ignored
  alloc_decoder(T);
  std::vector<float> xd(size_t(T) * B * Ci_);
  std::vector<uint8_t> mask(size_t(T) * B * S, 0);
  targets_.assign(size_t(T) * B, -1);
  count_ = 0;
  for (int r = 0; r < B; ++r) {
    const auto& tg = targets[size_t(r)];
    std::vector<uint8_t> used(size_t(S), 0);
    for (int t = 0; t < T; ++t) {
      const int pos_in = t == 0 || t > int(tg.size()) ? 0 : tg[size_t(t - 1)] + 1;
      const auto f = features(b.x, r, pos_in);
      std::copy(f.begin(), f.end(), xd.begin() + long((size_t(t) * B + r) * Ci_));
      if (t > int(tg.size())) continue;  // past the end: ignored, unmasked
      uint8_t* m = mask.data() + (size_t(t) * B + r) * S;
      for (int s = 1; s < S; ++s) m[s] = used[size_t(s)];
      m[0] = t < cfg_.min_outputs || (cfg_.permutation && t < n);
      const int target = t < int(tg.size()) ? tg[size_t(t)] + 1 : 0;
      targets_[size_t(t) * B + r] = target;
      ++count_;
      used[size_t(target)] = 1;
    }
  }
  for (int t = 0; t < T; ++t)
    step(t, xd.data() + size_t(t) * B * Ci_, mask.data() + size_t(t) * B * S);
  const size_t R = size_t(T) * B;
  int32_t* tg = ws_.ints(R);
  kt_.upload(tg, targets_.data(), R * sizeof(int32_t));
  float* loss = ws_.floats(R);
  dlogits_ = ws_.floats(R * S);
  kt_.probs_xent(loss, dlogits_, probs_, tg, 1.f / float(std::max(1L, count_)), int(R), S);
  return mean_loss(kt_, params_, loss, int(R), std::max(1L, count_));
}

// log p [B,T,V] from probs_ [T,B,S] (S = n + 1, position 0 the end): id eos <- position 0,
// id kFirstSymbol + j <- position j + 1, every other id at the floor.
std::vector<float> PointerNet::logits() const {
  const int B = B_, S = S_, T = T_, V = out_vocab();
  if (!probs_ || B == 0) return {};
  std::vector<float> p(size_t(T) * B * S), z(size_t(B) * T * V, std::log(1e-30f));
  kt_.download(p.data(), probs_, p.size() * sizeof(float));
  for (int t = 0; t < T; ++t)
    for (int b = 0; b < B; ++b) {
      const float* pr = p.data() + (size_t(t) * B + b) * S;
      float* zr = z.data() + (size_t(b) * T + t) * V;
      zr[eos_id()] = std::log(std::max(pr[0], 1e-30f));
      for (int s = 1; s < S; ++s) zr[kFirstSymbol + s - 1] = std::log(std::max(pr[s], 1e-30f));
    }
  return z;
}

std::vector<AttentionMap> PointerNet::attention() const {
  const int B = B_, S = S_, T = T_;
  if (!probs_ || B == 0) return {};
  std::vector<float> p(size_t(T) * B * S);
  kt_.download(p.data(), probs_, p.size() * sizeof(float));
  AttentionMap a{"pointer", B, 1, T, S, std::vector<float>(p.size())};
  for (int t = 0; t < T; ++t)
    for (int b = 0; b < B; ++b) {
      const float* pr = p.data() + (size_t(t) * B + b) * S;
      float* w = a.weights.data() + (size_t(b) * T + t) * S;
      for (int s = 1; s < S; ++s) w[s - 1] = pr[s];
      w[S - 1] = pr[0];
    }
  return {a};
}

// Mirrors forward: pointer (and glimpse) attention per step into the decoder states and
// the encoder states, then the decoder LSTM back through time, then the encoder.
void PointerNet::backward() {
  AL_CHECK(dlogits_, "backward() before forward()");
  const int B = B_, S = S_, T = T_, C = cfg_.hidden;
  const size_t bc = size_t(B) * C;
  float* dEo = ws_.floats(size_t(S) * bc);  // [S,B,C]
  float* dD = ws_.floats(size_t(T) * bc);   // [T,B,C] gradient on d_1..d_T
  float* dq = ws_.floats(bc);
  float* dalpha = ws_.floats(size_t(B) * S);
  kt_.zero(dEo, size_t(S) * bc * sizeof(float));
  kt_.zero(dD, size_t(T) * bc * sizeof(float));
  const AttnParams pp = ptr_ids_.val(params_), dpp = ptr_ids_.grad(params_);
  const AttnParams gp = cfg_.glimpse ? glimpse_ids_.val(params_) : AttnParams{};
  const AttnParams dgp = cfg_.glimpse ? glimpse_ids_.grad(params_) : AttnParams{};
  for (int t = T - 1; t >= 0; --t) {
    const float* d = Dh_ + (t + 1) * bc;
    kt_.zero(dq, bc * sizeof(float));
    ptr_.backward(kt_, pp, dpp, dq, dlogits_ + size_t(t) * B * S,
                  cache_p_ + t * ptr_.step_cache_floats(), cfg_.glimpse ? qp_ + t * bc : d);
    if (cfg_.glimpse) {
      const float* ag = alpha_g_ + size_t(t) * B * S;
      context_backward(kt_, dalpha, dEo, dq, ag, Eo_, S, B, C);
      kt_.softmax_backward(dalpha, ag, dalpha, 1.f, B, S);
      glimpse_.backward(kt_, gp, dgp, dD + t * bc, dalpha,
                        cache_g_ + t * glimpse_.step_cache_floats(), d);
    } else {
      kt_.axpy(dD + t * bc, 1.f, dq, long(bc));
    }
  }
  ptr_.finish_backward(kt_, pp, dpp, dEo);
  params_.grads_ready(ptr_first_, glimpse_first_);
  if (cfg_.glimpse) glimpse_.finish_backward(kt_, gp, dgp, dEo);
  params_.grads_ready(glimpse_first_, params_.count());
  const LstmParams dec = dec_ids_.val(params_), ddec = dec_ids_.grad(params_);
  float* carry_h = ws_.floats(bc);
  float* carry_c = ws_.floats(bc);
  float* dxg = ws_.floats(bc * 4);
  const int E = in_width();
  const bool emb = cfg_.embed > 0;
  float* dxe = emb ? ws_.floats(size_t(S) * B * E) : nullptr;  // [B,E] per step, then [S,B,E]
  kt_.zero(carry_h, bc * sizeof(float));
  kt_.zero(carry_c, bc * sizeof(float));
  for (int t = T - 1; t >= 0; --t) {
    kt_.axpy(dD + t * bc, 1.f, carry_h, long(bc));
    lstm_step_backward(kt_, dec, ddec, dxg, carry_h, carry_c,
                       {act_ + t * 4 * bc, Dc_ + (t + 1) * bc, tc_ + t * bc}, dD + t * bc, carry_c,
                       Dh_ + t * bc, Dc_ + t * bc, B, C);
    lstm_input_backward(kt_, dec, ddec, dxe, dxg, xde_ + size_t(t) * B * E, B, E, C);
    if (emb)
      linear_backward(kt_, nullptr, params_.grad(emb_W_), params_.grad(emb_b_), dxe,
                      xd_ + size_t(t) * B * Ci_, params_.val(emb_W_), B, Ci_, E);
  }
  params_.grads_ready(dec_first_, ptr_first_);
  if (cfg_.encoder == "rpw") {
    process_.backward(kt_, params_, process_ids_, dEo, carry_h, carry_c);
    params_.grads_ready(
        0,
        dec_first_);  // the read and process blocks, and the embedding (fed by the decoder alone)
    return;
  }
  kt_.axpy(dEo + size_t(S - 1) * bc, 1.f, carry_h, long(bc));
  if (emb) kt_.zero(dxe, size_t(S) * B * E * sizeof(float));
  enc_.backward(kt_, enc_ids_.val(params_), enc_ids_.grad(params_), dxe, nullptr, nullptr, dEo,
                carry_c, Eo_, xe_, S, B, E, C);
  params_.grads_ready(enc_first_, dec_first_);
  if (emb)
    linear_backward(kt_, nullptr, params_.grad(emb_W_), params_.grad(emb_b_), dxe, xin_,
                    params_.val(emb_W_), S * B, Ci_, E);
  params_.grads_ready(0, enc_first_);  // the embedding, fed by the decoder and the encoder
}

std::unique_ptr<Model> make_pointer(const nlohmann::json& config, const KernelTable& kt,
                                    uint64_t seed) {
  return std::make_unique<PointerNet>(PointerConfig::from_json(config), kt, seed);
}

const ConfigKeys& pointer_config_keys() { return PointerConfig::keys(); }

void check_pointer_config(const nlohmann::json& config) { PointerConfig::from_json(config); }

SizeEstimate estimate_pointer(const nlohmann::json& m, int B, int S, int T) {
  const PointerConfig d;  // the defaults of absent keys (attn: hidden)
  const double Hd = json_number(m, "hidden", d.hidden), A = json_number(m, "attn", Hd);
  const double D = json_number(m, "dim", d.dim), Em = json_number(m, "embed", d.embed);
  const double In = Em > 0 ? Em : D + 1;
  const double P = 2 * 4 * (In * Hd + Hd * Hd + 2 * Hd) + 3 * (Hd * A) + A + 2 * Hd + Em * (D + 2);
  const double act = B * (S + T) * Hd * 12 + B * T * S * (A + 2);
  return SizeEstimate::of(P, act);
}

// Multiply-adds per pass, the registry row's cost model (models/cost.hpp): read from the
// config as the size estimate is (absent fields: the typed config's defaults, no range checks).
namespace {

struct PointerSizes {
  bool rpw;
  double Hd, A, D, In, emb, g, P, glimpse;
  explicit PointerSizes(const nlohmann::json& m) {
    const PointerConfig d;
    Hd = json_number(m, "hidden", d.hidden);
    A = json_number(m, "attn", Hd);
    D = json_number(m, "dim", d.dim);
    const double Em = json_number(m, "embed", d.embed);
    In = Em > 0 ? Em : D + 1;
    emb = Em > 0 ? Em * (D + 2) : 0;
    glimpse = m.value("glimpse", d.glimpse) ? 1 : 0;
    g = 1 + glimpse;
    rpw = m.value("encoder", d.encoder) == "rpw";
    P = json_number(m, "process_steps", d.process_steps);
  }
  double encode(double n) const {
    if (!rpw) return n * (emb + 4 * (In * Hd + Hd * Hd) + g * Hd * A);
    // read block, then P process steps of an LSTM on [q; r] with attention over the n memories
    return n * (Hd * (D + 1) + g * Hd * A) + P * (12 * Hd * Hd + 2 * n * Hd);
  }
  double step(double n) const {
    return emb + 4 * (In * Hd + Hd * Hd) + g * (Hd * A + n * A) + glimpse * n * Hd;
  }
};

}  // namespace

// The pointer network on sets of S = n points: LSTM (or read-process-write) encoder, decoder
// LSTM, additive pointer attention over the n inputs (and the glimpse's).
double work_pointer_forward(const nlohmann::json& m, double B, double S, double T) {
  const PointerSizes p(m);
  return B * (p.encode(S) + T * p.step(S));
}
double work_pointer_encode(const nlohmann::json& m, double R, double S) {
  return R * PointerSizes(m).encode(S);
}
double work_pointer_step(const nlohmann::json& m, double R, double S, double) {
  return R * PointerSizes(m).step(S);
}

}  // namespace attnlab
