// The Transformer family's inspection (see transformer.hpp and model.hpp): what the last forward
// pass left in its caches, copied to the host: the attention maps, every multi-head sublayer's
// Q, K and V, the heads to mute in the next passes, and the trace of one row (ForwardTracing).
// The trace covers the decoder-only LM's or the encoder-only model's single stack of layers:
// every activation at every position of the row, in the order the pass computed them. All of it
// is read from the caches (the workspace is only reset by the next forward), except the two
// copies a traced pass keeps: the token embeddings before the positions were added to them in
// place, and each head's scores q·kⱼ before the softmax overwrote them.
// Trace names (layer prefix P: "decoder.layers.l." for the LM, "encoder.layers.l." for the
// encoder):
//   embed.token [n,C] E[id]·√C, embed.position [n,C], embed [n,C] their sum (dropout is off);
//   per layer: P.input [n,C]; pre-LN (norm_first) P.norm1 [n,C], the attention's input;
//   P.self_attn.q, .k, .v [H,n,hs]; P.self_attn.scores [H,n,n] = q·kⱼ/√hs, -inf where the causal
//   mask hides key j; P.self_attn.weights [H,n,n]; P.self_attn.heads [n,C] the heads' weighted
//   sums of v side by side (head h in columns h·hs..); P.self_attn.out_proj [n,C];
//   P.add1 [n,C] input + attention; post-LN P.norm1 = LN(add1); pre-LN P.norm2, the FFN's input;
//   P.linear1 [n,F] (before the activation), P.activation [n,F], P.linear2 [n,C];
//   P.add2 [n,C]; post-LN P.norm2 = LN(add2), the layer's output (pre-LN: add2 is);
//   then the final norm ("decoder.norm" / "encoder.norm") [n,C] and logits [n,V].
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.hpp"
#include "models/transformer.hpp"

namespace attnlab {

std::vector<AttentionMap> Transformer::attention() const {
  std::vector<AttentionMap> maps;
  auto add = [&](const std::string& name, const MhaCache& m) {
    if (!m.att) return;
    AttentionMap a{name, m.B, cfg_.heads, m.T, m.S, {}};
    a.weights.resize(size_t(m.B) * cfg_.heads * m.T * m.S);
    kt_.download(a.weights.data(), m.att, a.weights.size() * sizeof(float));
    maps.push_back(std::move(a));
  };
  for (size_t l = 0; l < enc_c_.size(); ++l)
    add("encoder.layers." + std::to_string(l) + ".self_attn", enc_c_[l].sa);
  for (size_t l = 0; l < lm_c_.size(); ++l)
    add("decoder.layers." + std::to_string(l) + ".self_attn", lm_c_[l].sa);
  for (size_t l = 0; l < dec_c_.size(); ++l) {
    add("decoder.layers." + std::to_string(l) + ".self_attn", dec_c_[l].sa);
    add("decoder.layers." + std::to_string(l) + ".multihead_attn", dec_c_[l].ca);
  }
  return maps;
}

std::vector<AttentionParts> Transformer::attention_parts() const {
  std::vector<AttentionParts> parts;
  auto add = [&](const std::string& name, const MultiHeadAttention& a, const MhaCache& m) {
    if (!m.att) return;
    AttentionParts p;
    p.name = name;
    p.B = m.B;
    p.H = cfg_.heads;
    p.T = m.T;
    p.S = m.S;
    p.hs = cfg_.d_model / cfg_.heads;
    a.parts(kt_, m, p.q, p.k, p.v);
    parts.push_back(std::move(p));
  };
  for (size_t l = 0; l < enc_c_.size(); ++l)
    add("encoder.layers." + std::to_string(l) + ".self_attn", enc_[l].self_attn, enc_c_[l].sa);
  for (size_t l = 0; l < lm_c_.size(); ++l)
    add("decoder.layers." + std::to_string(l) + ".self_attn", lm_[l].self_attn, lm_c_[l].sa);
  for (size_t l = 0; l < dec_c_.size(); ++l) {
    add("decoder.layers." + std::to_string(l) + ".self_attn", dec_[l].self_attn, dec_c_[l].sa);
    add("decoder.layers." + std::to_string(l) + ".multihead_attn", dec_[l].multihead_attn,
        dec_c_[l].ca);
  }
  return parts;
}

std::vector<std::string> Transformer::attention_names() const {
  std::vector<std::string> names;
  for (size_t l = 0; l < enc_.size(); ++l)
    names.push_back("encoder.layers." + std::to_string(l) + ".self_attn");
  for (size_t l = 0; l < lm_.size(); ++l)
    names.push_back("decoder.layers." + std::to_string(l) + ".self_attn");
  for (size_t l = 0; l < dec_.size(); ++l) {
    names.push_back("decoder.layers." + std::to_string(l) + ".self_attn");
    names.push_back("decoder.layers." + std::to_string(l) + ".multihead_attn");
  }
  return names;
}

void Transformer::set_muted_heads(const HeadMask& mask) {
  std::map<std::string, std::vector<uint8_t>> flags;
  const std::vector<std::string> names = attention_names();
  for (const auto& [name, heads] : mask) {
    AL_CHECK(std::find(names.begin(), names.end(), name) != names.end(),
             "no attention sublayer named \"" << name << "\" (this model has " << names.size()
                                              << ", e.g. \"" << names.at(0) << "\")");
    std::vector<uint8_t>& f = flags[name];
    f.assign(size_t(cfg_.heads), 0);
    for (int h : heads) {
      AL_CHECK(h >= 0 && h < cfg_.heads,
               "head " << h << " of " << name << " is out of range [0, " << cfg_.heads << ")");
      f[size_t(h)] = 1;
    }
  }
  muted_ = std::move(flags);
}

const uint8_t* Transformer::muted(const std::string& name) const {
  const auto it = muted_.find(name);
  return it == muted_.end() ? nullptr : it->second.data();
}

ForwardTrace Transformer::trace(int row) const {
  AL_CHECK(cfg_.model != "transformer",
           "trace: follows a decoder-only (\"lm\") or encoder-only (\"encoder\") Transformer, "
           "one stack of layers; this is an encoder-decoder");
  AL_CHECK(logits_ && traced_, "trace: the last forward pass did not run with tracing on");
  AL_CHECK(row >= 0 && row < B_, "trace: row " << row << " is out of range [0, " << B_ << ")");
  const bool lm = cfg_.model == "lm";
  const std::vector<int32_t>& ids = lm ? tgt_ : src_;
  const int C = cfg_.d_model, H = cfg_.heads, hs = C / H, F = cfg_.d_ff, V = cfg_.tgt_vocab;
  const int L = L_;
  const size_t at = size_t(row) * L;  // the row's first position in the [B*L, ...] buffers
  int n = L;                          // its length: padding only follows the tokens
  while (n > 0 && ids[at + size_t(n) - 1] == cfg_.pad_id) --n;
  ForwardTrace tr;
  tr.tokens.assign(ids.begin() + long(at), ids.begin() + long(at) + n);
  tr.first = lm ? offset_[size_t(row)] : 0;

  // n rows of width w starting at backend row `from` of p
  auto put = [&](std::string name, const float* p, size_t from, int w) {
    TracedTensor t{std::move(name), {n, w}, std::vector<float>(size_t(n) * w)};
    kt_.download(t.values.data(), p + from * w, t.values.size() * sizeof(float));
    tr.tensors.push_back(std::move(t));
  };
  auto rows = [&](std::string name, const float* p, int w) { put(std::move(name), p, at, w); };
  // [H,n,n] from a [B,H,L,L] buffer; scale > 0: scores, scaled, with the masked keys at -inf
  auto square = [&](std::string name, const float* p, float scale) {
    std::vector<float> all(size_t(H) * L * L);
    kt_.download(all.data(), p + size_t(row) * H * L * L, all.size() * sizeof(float));
    TracedTensor t{std::move(name), {H, n, n}, std::vector<float>(size_t(H) * n * n)};
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          float x = all[(size_t(h) * L + i) * L + j];
          if (scale > 0.f)
            x = traced_causal_ && j > i ? -std::numeric_limits<float>::infinity() : x * scale;
          t.values[(size_t(h) * n + i) * n + j] = x;
        }
    tr.tensors.push_back(std::move(t));
  };

  const PositionalEncoding& pe = lm ? tgt_pos_ : src_pos_;
  rows("embed.token", token_embed_, C);
  put("embed.position", pe.learned ? params_.val(pe.table) : pe.fixed, 0, C);
  rows("embed", embedded_, C);

  const std::vector<EncoderLayer>& layers = lm ? lm_ : enc_;
  const std::vector<EncoderLayerCache>& caches = lm ? lm_c_ : enc_c_;
  const std::string stack = lm ? "decoder" : "encoder";
  const bool pre = cfg_.norm_first;
  for (size_t l = 0; l < layers.size(); ++l) {
    const EncoderLayerCache& m = caches[l];
    const std::string p = stack + ".layers." + std::to_string(l) + ".";
    rows(p + "input", m.r1.x, C);
    if (pre) rows(p + "norm1", m.r1.in, C);
    // Q, K, V: the self-attention's projection rows [n,3C], split per head
    std::vector<float> qkv(size_t(n) * 3 * C);
    kt_.download(qkv.data(), m.sa.qkv + at * 3 * C, qkv.size() * sizeof(float));
    for (int part = 0; part < 3; ++part) {
      TracedTensor t{
          p + "self_attn." + "qkv" [part], { H, n, hs }, std::vector<float>(size_t(H) * n * hs)};
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i)
          for (int d = 0; d < hs; ++d)
            t.values[(size_t(h) * n + i) * hs + d] =
                qkv[size_t(i) * 3 * C + size_t(part) * C + size_t(h) * hs + d];
      tr.tensors.push_back(std::move(t));
    }
    square(p + "self_attn.scores", m.sa.scores, 1.f / std::sqrt(float(hs)));
    square(p + "self_attn.weights", m.sa.att, 0.f);
    rows(p + "self_attn.heads", m.sa.ctx, C);
    rows(p + "self_attn.out_proj", m.r1.sub, C);
    rows(p + "add1", pre ? m.r1.y : m.r1.r, C);
    if (pre)
      rows(p + "norm2", m.r2.in, C);
    else
      rows(p + "norm1", m.r1.y, C);
    rows(p + "linear1", m.ff.pre, F);
    rows(p + "activation", m.ff.h, F);
    rows(p + "linear2", m.r2.sub, C);
    rows(p + "add2", pre ? m.r2.y : m.r2.r, C);
    if (!pre) rows(p + "norm2", m.r2.y, C);
  }
  rows(stack + ".norm", hidden_, C);
  rows("logits", logits_, V);
  return tr;
}

}  // namespace attnlab
