// Model checkpoints as .safetensors: every parameter under its own name (F32), tied aliases
// written too, and the model config as a JSON string under __metadata__ key "attnlab"
// (training state, when given, under "attnlab_train"). Loading checks, before anything is
// copied: the config's size estimate fits the memory budget and the file holds about as many
// values as the config needs (before the model is allocated); every parameter is present with
// the config's shape and a float dtype; no tensor is one the model does not have (tied aliases
// and "optimizer.*" training state apart); every value is finite unless allow_nonfinite.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "io/safetensors.hpp"
#include "models/model.hpp"

namespace attnlab {

// The model's parameters (grads = false) or their gradients (grads = true).
SafeTensors model_tensors(Model& m, bool grads = false,
                          const nlohmann::json& train_state = nlohmann::json());
// Written atomically (write_safetensors_atomic).
void save_checkpoint(Model& m, const std::string& path,
                     const nlohmann::json& train_state = nlohmann::json());

// Copies every parameter of m from st (all must be present and match; a config in st's
// metadata must agree with m's).
void load_parameters(Model& m, const SafeTensors& st, bool allow_nonfinite = false);
// Builds the model described by st's "attnlab" metadata and loads its parameters.
std::unique_ptr<Model> model_from_safetensors(const SafeTensors& st, const KernelTable& kt,
                                              nlohmann::json* train_state = nullptr,
                                              bool allow_nonfinite = false);
std::unique_ptr<Model> load_checkpoint(const std::string& path, const KernelTable& kt,
                                       nlohmann::json* train_state = nullptr,
                                       bool allow_nonfinite = false);

// The "attnlab" model config of a checkpoint (an Error when absent or not a JSON object).
nlohmann::json checkpoint_config(const SafeTensors& st);
// The first architecture key on which two model configs disagree ("dropout" and other
// training-only keys ignored), or "" when they agree. Keys missing from one side count.
std::string config_difference(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace attnlab
