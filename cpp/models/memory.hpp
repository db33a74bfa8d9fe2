// Size checks for model sessions, so a model that would not fit is refused with a clear error
// before anything is allocated. The estimate is the model kind's own (its registry row,
// models/model.hpp: parameters, gradients, Adam's moments and one batch's activations), an
// unknown kind an attnlab::Error. The budget is what the engine
// may still allocate: in WebAssembly the heap's growth limit minus what is in use; natively
// ATTNLAB_MAX_BYTES when set, else the machine's physical memory.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "models/model.hpp"

namespace attnlab {

// `model`: a complete model config (vocabularies filled in); B, S, T: one batch's sizes.
SizeEstimate estimate_size(const nlohmann::json& model, int B, int S, int T);
// Bytes the engine may still allocate.
double memory_budget();
// Throws attnlab::Error naming both sizes in MB when the estimate exceeds the budget.
void check_fits(const SizeEstimate& e, const char* what);
// Throws attnlab::Error when `bytes` more would exceed the budget ("<what> needs N MB, ...").
void check_alloc(double bytes, const char* what);
// "123 MB" for a byte count (64-bit, never negative).
std::string megabytes(double bytes);

}  // namespace attnlab
