// What a resumed run needs besides the parameters, in a checkpoint: Adam's moments as the
// tensors "optimizer.m" and "optimizer.v" ([total] float32, the parameter block's order) and its
// step count as "adam_steps" in the training state; a random generator's whole state as a JSON
// array of six words (Rng::state). Checkpoint loaders skip "optimizer.*" tensors; attn export
// leaves them out.
#pragma once
#include <nlohmann/json.hpp>

#include "core/rng.hpp"
#include "io/safetensors.hpp"
#include "train/optim.hpp"

namespace attnlab {

// Adds the moments of `adam` (over P) to st and its step count to state (an Adam without
// moments, a replica's, is an attnlab::Error).
void save_adam(const Adam& adam, ParamArena& P, SafeTensors& st, nlohmann::json& state);
bool has_optimizer_state(const SafeTensors& st);
// Restores what save_adam wrote; throws naming what is missing or of the wrong size. An Adam
// without moments checks the tensors and takes the step count only.
void restore_adam(Adam& adam, ParamArena& P, const SafeTensors& st, const nlohmann::json& state);

nlohmann::json rng_to_json(const Rng& r);
// Throws naming `what` unless j is an array of six unsigned 32-bit words.
void rng_from_json(Rng& r, const nlohmann::json& j, const char* what);

}  // namespace attnlab
