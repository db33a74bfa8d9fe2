// Transformer config parsing and checked JSON readers (see config.hpp).
#include "models/config.hpp"

#include <cmath>
#include <stdexcept>

#include "core/check.hpp"

namespace attnlab {

int json_int(const nlohmann::json& j, const char* key, int def, int lo, int hi) {
  if (!j.contains(key)) return def;
  const auto& v = j[key];
  AL_CHECK(v.is_number_integer(), "config key \"" << key << "\" must be an integer");
  const long long x = v.get<long long>();
  AL_CHECK(x >= lo && x <= hi,
           "config key \"" << key << "\" = " << x << " is outside [" << lo << ", " << hi << "]");
  return int(x);
}

float json_float(const nlohmann::json& j, const char* key, float def, float lo, float hi) {
  if (!j.contains(key)) return def;
  const auto& v = j[key];
  AL_CHECK(v.is_number(), "config key \"" << key << "\" must be a number");
  const double x = v.get<double>();
  AL_CHECK(x >= lo && x <= hi,
           "config key \"" << key << "\" = " << x << " is outside [" << lo << ", " << hi << "]");
  return float(x);
}

bool json_bool(const nlohmann::json& j, const char* key, bool def) {
  if (!j.contains(key)) return def;
  AL_CHECK(j[key].is_boolean(), "config key \"" << key << "\" must be true or false");
  return j[key].get<bool>();
}

std::string json_string(const nlohmann::json& j, const char* key, const std::string& def) {
  if (!j.contains(key)) return def;
  AL_CHECK(j[key].is_string(), "config key \"" << key << "\" must be a string");
  return j[key].get<std::string>();
}

double json_number(const nlohmann::json& j, const char* key, double def) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : def;
}

const ConfigKey* find_config_key(const ConfigKeys& keys, const std::string& key) {
  for (const ConfigKey& k : keys)
    if (key == k.key) return &k;
  return nullptr;
}

const ConfigKey& config_key(const ConfigKeys& keys, const char* key) {
  const ConfigKey* k = find_config_key(keys, key);
  if (!k) throw std::logic_error(std::string("config key table lacks ") + key);
  return *k;
}

int json_int(const nlohmann::json& j, const ConfigKey& k, int def) {
  return json_int(j, k.key, def, int(k.lo), int(k.hi));
}

float json_float(const nlohmann::json& j, const ConfigKey& k, float def) {
  return json_float(j, k.key, def, float(k.lo), float(k.hi));
}

const ConfigKeys& TransformerConfig::keys() {
  static const ConfigKeys k = {{"d_model", true, 1, 1 << 14},
                               {"heads", true, 1, 1024},
                               {"d_ff", true, 1, 1 << 16},
                               {"enc_layers", true, 0, 64},
                               {"dec_layers", true, 0, 64},
                               {"dropout", true, 0, 0.99},
                               {"attention_dropout", true, 0, 0.99},
                               {"activation_dropout", true, 0, 0.99},
                               {"enc_layer_drop", true, 0, 0.99},
                               {"dec_layer_drop", true, 0, 0.99},
                               {"max_len", true, 1, 1 << 16},
                               {"norm_first"},
                               {"tie_embeddings"},
                               {"activation"},
                               {"pos_encoding"}};
  return k;
}

TransformerConfig TransformerConfig::from_json(const nlohmann::json& j) {
  AL_CHECK(j.is_object(), "model config must be a JSON object");
  TransformerConfig c;
  c.model = json_string(j, "model", c.model);
  AL_CHECK(c.model == "transformer" || c.model == "lm" || c.model == "encoder",
           "unknown Transformer kind \"" << c.model << "\"");
  const int big = 1 << 20;
  c.src_vocab = json_int(j, "src_vocab", c.src_vocab, 1, big);
  c.tgt_vocab = json_int(j, "tgt_vocab", c.tgt_vocab, 1, big);
  const ConfigKeys& k = keys();
  c.d_model = json_int(j, config_key(k, "d_model"), c.d_model);
  c.heads = json_int(j, config_key(k, "heads"), c.heads);
  c.d_ff = json_int(j, config_key(k, "d_ff"), c.d_ff);
  c.enc_layers = json_int(j, config_key(k, "enc_layers"), c.enc_layers);
  c.dec_layers = json_int(j, config_key(k, "dec_layers"), c.dec_layers);
  c.dropout = json_float(j, config_key(k, "dropout"), c.dropout);
  c.attention_dropout =
      json_float(j, config_key(k, "attention_dropout"), c.attention_dropout < 0 ? c.dropout : 0.f);
  c.activation_dropout = json_float(j, config_key(k, "activation_dropout"),
                                    c.activation_dropout < 0 ? c.dropout : 0.f);
  c.enc_layer_drop = json_float(j, config_key(k, "enc_layer_drop"), c.enc_layer_drop);
  c.dec_layer_drop = json_float(j, config_key(k, "dec_layer_drop"), c.dec_layer_drop);
  c.norm_first = json_bool(j, "norm_first", c.norm_first);
  c.activation = json_string(j, "activation", c.activation);
  AL_CHECK(c.activation == "relu" || c.activation == "gelu",
           "activation must be \"relu\" or \"gelu\", got \"" << c.activation << "\"");
  c.max_len = json_int(j, config_key(k, "max_len"), c.max_len);
  c.pad_id = json_int(j, "pad_id", c.pad_id, 0, big);
  c.bos_id = json_int(j, "bos_id", c.bos_id, 0, big);
  c.eos_id = json_int(j, "eos_id", c.eos_id, 0, big);
  c.tie_embeddings = json_bool(j, "tie_embeddings", c.tie_embeddings);
  c.pos_encoding = json_string(j, "pos_encoding", c.pos_encoding);
  AL_CHECK(c.pos_encoding == "sinusoidal" || c.pos_encoding == "learned",
           "pos_encoding must be \"sinusoidal\" or \"learned\"");
  AL_CHECK(double(c.max_len) * c.d_model <= double(1 << 26),
           "max_len * d_model = " << double(c.max_len) * c.d_model << " is too large");
  AL_CHECK(c.d_model % c.heads == 0,
           "d_model " << c.d_model << " is not divisible by heads " << c.heads);
  for (int id : {c.pad_id, c.bos_id, c.eos_id})
    AL_CHECK(id < c.tgt_vocab,
             "special token id " << id << " is outside tgt_vocab " << c.tgt_vocab);
  if (c.model == "transformer")
    AL_CHECK(c.enc_layers >= 1 && c.dec_layers >= 1,
             "the encoder-decoder needs layers on both sides");
  if (c.model == "lm") AL_CHECK(c.dec_layers >= 1, "the language model needs dec_layers >= 1");
  if (c.model == "encoder") AL_CHECK(c.enc_layers >= 1, "the encoder model needs enc_layers >= 1");
  if (c.model == "lm")
    AL_CHECK(c.src_vocab == c.tgt_vocab, "the language model needs src_vocab == tgt_vocab");
  return c;
}

nlohmann::json TransformerConfig::to_json() const {
  return {{"model", model},
          {"src_vocab", src_vocab},
          {"tgt_vocab", tgt_vocab},
          {"d_model", d_model},
          {"heads", heads},
          {"d_ff", d_ff},
          {"enc_layers", enc_layers},
          {"dec_layers", dec_layers},
          {"dropout", std::round(double(dropout) * 1e6) / 1e6},
          {"attention_dropout", std::round(double(attn_dropout()) * 1e6) / 1e6},
          {"activation_dropout", std::round(double(act_dropout()) * 1e6) / 1e6},
          {"enc_layer_drop", std::round(double(enc_layer_drop) * 1e6) / 1e6},
          {"dec_layer_drop", std::round(double(dec_layer_drop) * 1e6) / 1e6},
          {"norm_first", norm_first},
          {"activation", activation},
          {"max_len", max_len},
          {"pad_id", pad_id},
          {"bos_id", bos_id},
          {"eos_id", eos_id},
          {"tie_embeddings", tie_embeddings},
          {"pos_encoding", pos_encoding}};
}

}  // namespace attnlab
