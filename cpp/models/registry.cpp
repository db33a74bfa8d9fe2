// The model registry: one line per model kind. A new kind declares its factory here and adds
// one entry to kRegistry.
#include <utility>

#include "core/check.hpp"
#include "models/model.hpp"

namespace attnlab {

using Factory = std::unique_ptr<Model> (*)(const nlohmann::json&, const KernelTable&, uint64_t);

std::unique_ptr<Model> make_transformer(const nlohmann::json&, const KernelTable&, uint64_t);
std::unique_ptr<Model> make_rnnsearch(const nlohmann::json&, const KernelTable&, uint64_t);
std::unique_ptr<Model> make_pointer(const nlohmann::json&, const KernelTable&, uint64_t);

namespace {

const std::pair<const char*, Factory> kRegistry[] = {
    {"transformer", make_transformer},  // encoder-decoder (Vaswani et al. 2017)
    {"lm", make_transformer},           // decoder-only language model
    {"encoder", make_transformer},      // encoder-only tagger
    {"rnnsearch", make_rnnsearch},      // bi-GRU + attention (Bahdanau et al. 2015)
    {"rnnencdec", make_rnnsearch},      // the same without attention (fixed context vector)
    {"pointer", make_pointer},          // Ptr-Net (Vinyals et al. 2015)
};

}  // namespace

std::unique_ptr<Model> make_model(const nlohmann::json& config, const KernelTable& kt,
                                  uint64_t seed) {
  AL_CHECK(config.is_object(), "model config must be a JSON object");
  AL_CHECK(config.contains("model") && config["model"].is_string(),
           "model config needs a string \"model\"");
  const std::string kind = config["model"].get<std::string>();
  for (const auto& [name, factory] : kRegistry)
    if (kind == name) return factory(config, kt, seed);
  std::string known;
  for (const auto& e : kRegistry) known += std::string(known.empty() ? "" : ", ") + e.first;
  AL_CHECK(false, "unknown model \"" << kind << "\" (known: " << known << ")");
  return nullptr;
}

std::vector<std::string> model_kinds() {
  std::vector<std::string> out;
  for (const auto& e : kRegistry) out.emplace_back(e.first);
  return out;
}

}  // namespace attnlab
