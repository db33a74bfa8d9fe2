// The Transformer family's config: parsed from JSON with every field type- and range-checked
// (a bad value is an attnlab::Error naming the key), and written back complete, so a
// checkpoint's __metadata__["attnlab"] always holds every key.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"

namespace attnlab {

// One key of a kind's config that `attn train` (and any front end) may set, with the range its
// typed config checks: the parser reads the key through this row, and the CLI's flag table shows
// it, so the bound lives in one place. Strings and booleans (numeric = false) have their own
// checks in the parser; lo and hi are unused for them.
struct ConfigKey {
  const char* key;
  bool numeric = false;
  double lo = 0, hi = 0;
};
using ConfigKeys = std::vector<ConfigKey>;
// The row of `key` (a std::logic_error when the table lacks it: a parser's mistake).
const ConfigKey& config_key(const ConfigKeys& keys, const char* key);
const ConfigKey* find_config_key(const ConfigKeys& keys, const std::string& key);

struct TransformerConfig {
  std::string model = "transformer";  // "transformer" | "lm" | "encoder"
  int src_vocab = 16, tgt_vocab = 16;
  int d_model = 64, heads = 4, d_ff = 256;
  int enc_layers = 2, dec_layers = 2;
  float dropout = 0.1f;  // on the embeddings and each sublayer's output (residual dropout)
  // On the attention weights and on the FFN's hidden activations; negative (a config without the
  // key): the same as dropout, as in the paper and PyTorch's nn.Transformer.
  float attention_dropout = -1.f, activation_dropout = -1.f;
  // LayerDrop (Fan et al. 2019): while training, each encoder / decoder layer is skipped (the
  // identity) with this probability, one draw per layer and step from the step's generator.
  float enc_layer_drop = 0.f, dec_layer_drop = 0.f;
  bool norm_first = false;
  std::string activation = "relu";  // "relu" | "gelu" (tanh form; PyTorch's "gelu" is the erf form)
  int max_len = 128;
  int pad_id = 0, bos_id = 1, eos_id = 2;
  bool tie_embeddings = false;
  std::string pos_encoding = "sinusoidal";  // "sinusoidal" | "learned"

  static TransformerConfig from_json(const nlohmann::json& j);
  static const ConfigKeys& keys();  // the keys a front end may set, with their ranges
  nlohmann::json to_json() const;
  Act act() const { return activation == "gelu" ? Act::GELU : Act::ReLU; }
  float attn_dropout() const { return attention_dropout < 0 ? dropout : attention_dropout; }
  float act_dropout() const { return activation_dropout < 0 ? dropout : activation_dropout; }
};

// Checked readers shared by config parsers: the value of `key` or `def` when absent.
int json_int(const nlohmann::json& j, const char* key, int def, int lo, int hi);
float json_float(const nlohmann::json& j, const char* key, float def, float lo, float hi);
bool json_bool(const nlohmann::json& j, const char* key, bool def);
std::string json_string(const nlohmann::json& j, const char* key, const std::string& def);
// The same, with the range of the key's row.
int json_int(const nlohmann::json& j, const ConfigKey& k, int def);
float json_float(const nlohmann::json& j, const ConfigKey& k, float def);
// The unchecked reader of size estimates (they run before validation, so that a config too
// large for memory is refused as such): the number at `key`, `def` when absent or not a number.
double json_number(const nlohmann::json& j, const char* key, double def);

}  // namespace attnlab
