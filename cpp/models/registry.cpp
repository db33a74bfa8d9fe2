// The model registry: one row per model kind, the only place a kind is named. A new kind
// declares its factory, config check and size estimate (next to its model) and adds one row.
#include <string>

#include "core/check.hpp"
#include "models/model.hpp"

namespace attnlab {

std::unique_ptr<Model> make_transformer(const nlohmann::json&, const KernelTable&, uint64_t);
void check_transformer_config(const nlohmann::json&);
SizeEstimate estimate_transformer(const nlohmann::json&, int B, int S, int T);
std::unique_ptr<Model> make_rnnsearch(const nlohmann::json&, const KernelTable&, uint64_t);
void check_rnnsearch_config(const nlohmann::json&);
SizeEstimate estimate_rnnsearch(const nlohmann::json&, int B, int S, int T);
std::unique_ptr<Model> make_pointer(const nlohmann::json&, const KernelTable&, uint64_t);
void check_pointer_config(const nlohmann::json&);
SizeEstimate estimate_pointer(const nlohmann::json&, int B, int S, int T);

namespace {

struct ModelKind {
  const char* name;
  std::unique_ptr<Model> (*make)(const nlohmann::json&, const KernelTable&, uint64_t);
  void (*check)(const nlohmann::json&);
  SizeEstimate (*estimate)(const nlohmann::json&, int B, int S, int T);
};

const ModelKind kRegistry[] = {
    // encoder-decoder (Vaswani et al. 2017), decoder-only language model, encoder-only tagger
    {"transformer", make_transformer, check_transformer_config, estimate_transformer},
    {"lm", make_transformer, check_transformer_config, estimate_transformer},
    {"encoder", make_transformer, check_transformer_config, estimate_transformer},
    // bi-GRU + attention (Bahdanau et al. 2015); the same without attention (fixed context)
    {"rnnsearch", make_rnnsearch, check_rnnsearch_config, estimate_rnnsearch},
    {"rnnencdec", make_rnnsearch, check_rnnsearch_config, estimate_rnnsearch},
    // Ptr-Net (Vinyals et al. 2015)
    {"pointer", make_pointer, check_pointer_config, estimate_pointer},
};

const ModelKind& kind_of(const nlohmann::json& config) {
  AL_CHECK(config.is_object(), "model config must be a JSON object");
  AL_CHECK(config.contains("model") && config["model"].is_string(),
           "model config needs a string \"model\"");
  const std::string kind = config["model"].get<std::string>();
  for (const ModelKind& k : kRegistry)
    if (kind == k.name) return k;
  std::string known;
  for (const ModelKind& k : kRegistry) known += std::string(known.empty() ? "" : ", ") + k.name;
  AL_CHECK(false, "unknown model \"" << kind << "\" (known: " << known << ")");
  return kRegistry[0];
}

}  // namespace

std::unique_ptr<Model> make_model(const nlohmann::json& config, const KernelTable& kt,
                                  uint64_t seed) {
  return kind_of(config).make(config, kt, seed);
}

void check_model_config(const nlohmann::json& config) { kind_of(config).check(config); }

SizeEstimate estimate_model(const nlohmann::json& config, int B, int S, int T) {
  return kind_of(config).estimate(config, B, S, T);
}

std::vector<std::string> model_kinds() {
  std::vector<std::string> out;
  for (const ModelKind& k : kRegistry) out.emplace_back(k.name);
  return out;
}

}  // namespace attnlab
