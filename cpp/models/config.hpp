// The Transformer family's config: parsed from JSON with every field type- and range-checked
// (a bad value is an attnlab::Error naming the key), and written back complete, so a
// checkpoint's __metadata__["attnlab"] always holds every key.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "kernels/kernels.hpp"

namespace attnlab {

struct TransformerConfig {
  std::string model = "transformer";  // "transformer" | "lm" | "encoder"
  int src_vocab = 16, tgt_vocab = 16;
  int d_model = 64, heads = 4, d_ff = 256;
  int enc_layers = 2, dec_layers = 2;
  float dropout = 0.1f;
  bool norm_first = false;
  std::string activation = "relu";  // "relu" | "gelu" (tanh form; PyTorch's "gelu" is the erf form)
  int max_len = 128;
  int pad_id = 0, bos_id = 1, eos_id = 2;
  bool tie_embeddings = false;
  std::string pos_encoding = "sinusoidal";  // "sinusoidal" | "learned"

  static TransformerConfig from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;
  Act act() const { return activation == "gelu" ? Act::GELU : Act::ReLU; }
};

// Checked readers shared by config parsers: the value of `key` or `def` when absent.
int json_int(const nlohmann::json& j, const char* key, int def, int lo, int hi);
float json_float(const nlohmann::json& j, const char* key, float def, float lo, float hi);
bool json_bool(const nlohmann::json& j, const char* key, bool def);
std::string json_string(const nlohmann::json& j, const char* key, const std::string& def);
// The unchecked reader of size estimates (they run before validation, so that a config too
// large for memory is refused as such): the number at `key`, `def` when absent or not a number.
double json_number(const nlohmann::json& j, const char* key, double def);

}  // namespace attnlab
