// The model registry: one row per model kind, the only place a kind is named. A new kind
// declares its factory, config check and size estimate (next to its model) and adds one row.
#include <string>

#include "core/check.hpp"
#include "models/model.hpp"

namespace attnlab {

const ConfigKeys& transformer_config_keys();
const ConfigKeys& rnnsearch_config_keys();
const ConfigKeys& pointer_config_keys();
const ConfigKeys& luong_config_keys();
std::unique_ptr<Model> make_transformer(const nlohmann::json&, const KernelTable&, uint64_t);
void check_transformer_config(const nlohmann::json&);
SizeEstimate estimate_transformer(const nlohmann::json&, int B, int S, int T);
std::unique_ptr<Model> make_rnnsearch(const nlohmann::json&, const KernelTable&, uint64_t);
void check_rnnsearch_config(const nlohmann::json&);
SizeEstimate estimate_rnnsearch(const nlohmann::json&, int B, int S, int T);
std::unique_ptr<Model> make_pointer(const nlohmann::json&, const KernelTable&, uint64_t);
void check_pointer_config(const nlohmann::json&);
SizeEstimate estimate_pointer(const nlohmann::json&, int B, int S, int T);
std::unique_ptr<Model> make_luong(const nlohmann::json&, const KernelTable&, uint64_t);
void check_luong_config(const nlohmann::json&);
SizeEstimate estimate_luong(const nlohmann::json&, int B, int S, int T);

namespace {

struct ModelKind {
  std::unique_ptr<Model> (*make)(const nlohmann::json&, const KernelTable&, uint64_t);
  void (*check)(const nlohmann::json&);
  SizeEstimate (*estimate)(const nlohmann::json&, int B, int S, int T);
  const ConfigKeys& (*keys)();
  KindInfo info;
};

// Capabilities: recurrent, packs_source, takes_points, aligns; then lr, batch, clip, schedule.
constexpr TrainDefaults kNoam{1e-3f, 64, 1.f, "noam"};
constexpr TrainDefaults kRecurrent{3e-3f, 32, 5.f, "constant"};
constexpr TrainDefaults kPointer{1e-3f, 128, 2.f, "constant"};

const ModelKind kRegistry[] = {
    // encoder-decoder (Vaswani et al. 2017), decoder-only language model, encoder-only tagger
    {make_transformer,
     check_transformer_config,
     estimate_transformer,
     transformer_config_keys,
     {"transformer", false, false, false, false, kNoam}},
    {make_transformer,
     check_transformer_config,
     estimate_transformer,
     transformer_config_keys,
     {"lm", false, true, false, false, kNoam}},
    {make_transformer,
     check_transformer_config,
     estimate_transformer,
     transformer_config_keys,
     {"encoder", false, false, false, false, kNoam}},
    // bi-GRU + attention (Bahdanau et al. 2015); the same without attention (fixed context)
    {make_rnnsearch,
     check_rnnsearch_config,
     estimate_rnnsearch,
     rnnsearch_config_keys,
     {"rnnsearch", true, false, false, true, kRecurrent}},
    {make_rnnsearch,
     check_rnnsearch_config,
     estimate_rnnsearch,
     rnnsearch_config_keys,
     {"rnnencdec", true, false, false, false, kRecurrent}},
    // Ptr-Net (Vinyals et al. 2015)
    {make_pointer,
     check_pointer_config,
     estimate_pointer,
     pointer_config_keys,
     {"pointer", true, false, true, false, kPointer}},
    // bi-GRU + global attention with input feeding (Luong et al. 2015): dot, general, concat
    {make_luong,
     check_luong_config,
     estimate_luong,
     luong_config_keys,
     {"luong", true, false, false, true, kRecurrent}},
};

const ModelKind* find_kind(const std::string& kind) {
  for (const ModelKind& k : kRegistry)
    if (kind == k.info.name) return &k;
  return nullptr;
}

const ModelKind& kind_named(const std::string& kind) {
  if (const ModelKind* k = find_kind(kind)) return *k;
  std::string known;
  for (const ModelKind& k : kRegistry)
    known += std::string(known.empty() ? "" : ", ") + k.info.name;
  AL_CHECK(false, "unknown model \"" << kind << "\" (known: " << known << ")");
  return kRegistry[0];
}

const ModelKind& kind_of(const nlohmann::json& config) {
  AL_CHECK(config.is_object(), "model config must be a JSON object");
  AL_CHECK(config.contains("model") && config["model"].is_string(),
           "model config needs a string \"model\"");
  return kind_named(config["model"].get<std::string>());
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
  for (const ModelKind& k : kRegistry) out.emplace_back(k.info.name);
  return out;
}

const KindInfo& kind_info(const std::string& kind) { return kind_named(kind).info; }

const KindInfo& kind_info_of(const nlohmann::json& config) { return kind_of(config).info; }

const ConfigKeys& config_keys(const std::string& kind) { return kind_named(kind).keys(); }

const KindInfo* find_kind_info(const std::string& kind) {
  const ModelKind* k = find_kind(kind);
  return k ? &k->info : nullptr;
}

nlohmann::json KindInfo::to_json() const {
  return {{"name", name},
          {"recurrent", recurrent},
          {"packs_source", packs_source},
          {"takes_points", takes_points},
          {"aligns", aligns},
          {"train",
           {{"lr", train.lr},
            {"batch", train.batch},
            {"clip", train.clip},
            {"schedule", train.schedule}}}};
}

}  // namespace attnlab
