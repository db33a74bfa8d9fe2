// Model checkpoints as .safetensors: every parameter under its own name (F32), tied aliases
// written too, and the model config as a JSON string under __metadata__ key "attnlab"
// (training state, when given, under "attnlab_train"). Loading checks that every parameter is
// present with the config's shape and dtype F32 before anything is copied.
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

// Copies every parameter of m from st (all must be present and match).
void load_parameters(Model& m, const SafeTensors& st);
// Builds the model described by st's "attnlab" metadata and loads its parameters.
std::unique_ptr<Model> model_from_safetensors(const SafeTensors& st, const KernelTable& kt,
                                              nlohmann::json* train_state = nullptr);
std::unique_ptr<Model> load_checkpoint(const std::string& path, const KernelTable& kt,
                                       nlohmann::json* train_state = nullptr);

}  // namespace attnlab
