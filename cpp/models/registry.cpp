// The model registry: one row per model kind, the only place a kind is named. A new kind
// declares its factory, config check and size estimate (next to its model), its cost model
// (next to its model, with a calibration factor) and adds one row.
#include <string>

#include "core/check.hpp"
#include "models/cost.hpp"
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
double work_transformer_forward(const nlohmann::json&, double B, double S, double T);
double work_transformer_encode(const nlohmann::json&, double R, double S);
double work_transformer_step(const nlohmann::json&, double R, double S, double t);
double work_rnnsearch_forward(const nlohmann::json&, double B, double S, double T);
double work_rnnsearch_encode(const nlohmann::json&, double R, double S);
double work_rnnsearch_step(const nlohmann::json&, double R, double S, double t);
double work_pointer_forward(const nlohmann::json&, double B, double S, double T);
double work_pointer_encode(const nlohmann::json&, double R, double S);
double work_pointer_step(const nlohmann::json&, double R, double S, double t);
double work_luong_forward(const nlohmann::json&, double B, double S, double T);
double work_luong_encode(const nlohmann::json&, double R, double S);
double work_luong_step(const nlohmann::json&, double R, double S, double t);

namespace {

struct ModelKind {
  std::unique_ptr<Model> (*make)(const nlohmann::json&, const KernelTable&, uint64_t);
  void (*check)(const nlohmann::json&);
  SizeEstimate (*estimate)(const nlohmann::json&, int B, int S, int T);
  const ConfigKeys& (*keys)();
  KindInfo info;
  KindWork work;
};

// Capabilities: recurrent, packs_source, takes_points, aligns; then lr, batch, clip, schedule.
constexpr TrainDefaults kNoam{1e-3f, 64, 1.f, "noam"};
constexpr TrainDefaults kRecurrent{3e-3f, 32, 5.f, "constant"};
constexpr TrainDefaults kPointer{1e-3f, 128, 2.f, "constant"};

// Cost models: each kind's multiply-adds (work_* beside its model) and its calibration factor, the
// seconds one of its multiply-adds takes over one of a large GEMM's on the same core. Measured
// with `attnlab_tests "[.calibrate]"` (tests/cpp/test_work_cost.cpp: each kind's evaluate on 200
// samples at the playground's sizes, one thread, against a 256x256x256 GEMM) in the native
// Release build, and rounded up; where two sizes were measured (the pointer network at 64 and 128
// units), the larger factor. The recurrent kinds run many small matrix products and element-wise
// gates one time step after another; RNNsearch's additive attention (a tanh over every source
// position at every step) and the pointer network's (over every input, twice with the glimpse)
// add the most.
constexpr double kTransformerFactor = 2.5, kLmFactor = 1.5, kEncoderFactor = 1.5;
constexpr double kRnnSearchFactor = 6, kRnnEncDecFactor = 2.5, kLuongFactor = 2;
constexpr double kPointerFactor = 26;
constexpr KindWork kTransformerWork{work_transformer_forward, work_transformer_encode,
                                    work_transformer_step, kTransformerFactor};
constexpr KindWork kLmWork{work_transformer_forward, work_transformer_encode, work_transformer_step,
                           kLmFactor};
constexpr KindWork kEncoderWork{work_transformer_forward, work_transformer_encode,
                                work_transformer_step, kEncoderFactor};
constexpr KindWork kRnnSearchWork{work_rnnsearch_forward, work_rnnsearch_encode,
                                  work_rnnsearch_step, kRnnSearchFactor};
constexpr KindWork kRnnEncDecWork{work_rnnsearch_forward, work_rnnsearch_encode,
                                  work_rnnsearch_step, kRnnEncDecFactor};
constexpr KindWork kPointerWork{work_pointer_forward, work_pointer_encode, work_pointer_step,
                                kPointerFactor};
constexpr KindWork kLuongWork{work_luong_forward, work_luong_encode, work_luong_step, kLuongFactor};

const ModelKind kRegistry[] = {
    // encoder-decoder (Vaswani et al. 2017), decoder-only language model, encoder-only tagger
    {make_transformer,
     check_transformer_config,
     estimate_transformer,
     transformer_config_keys,
     {"transformer", false, false, false, false, kNoam},
     kTransformerWork},
    {make_transformer,
     check_transformer_config,
     estimate_transformer,
     transformer_config_keys,
     {"lm", false, true, false, false, kNoam},
     kLmWork},
    {make_transformer,
     check_transformer_config,
     estimate_transformer,
     transformer_config_keys,
     {"encoder", false, false, false, false, kNoam},
     kEncoderWork},
    // bi-GRU + attention (Bahdanau et al. 2015); the same without attention (fixed context)
    {make_rnnsearch,
     check_rnnsearch_config,
     estimate_rnnsearch,
     rnnsearch_config_keys,
     {"rnnsearch", true, false, false, true, kRecurrent},
     kRnnSearchWork},
    {make_rnnsearch,
     check_rnnsearch_config,
     estimate_rnnsearch,
     rnnsearch_config_keys,
     {"rnnencdec", true, false, false, false, kRecurrent},
     kRnnEncDecWork},
    // Ptr-Net (Vinyals et al. 2015)
    {make_pointer,
     check_pointer_config,
     estimate_pointer,
     pointer_config_keys,
     {"pointer", true, false, true, false, kPointer},
     kPointerWork},
    // bi-GRU + global attention with input feeding (Luong et al. 2015): dot, general, concat
    {make_luong,
     check_luong_config,
     estimate_luong,
     luong_config_keys,
     {"luong", true, false, false, true, kRecurrent},
     kLuongWork},
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

const KindWork& kind_work(const nlohmann::json& model) { return kind_of(model).work; }

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
