// Size estimates for model sessions, so a model that would not fit is refused with a clear
// error before anything is allocated. The estimate counts parameters from the config (values,
// gradients, Adam's two moments: 16 bytes each) and the activations of one training batch
// (what forward saves for backward, attention maps included). The budget is what the engine
// may still allocate: in WebAssembly the heap's growth limit minus what is in use; natively
// ATTNLAB_MAX_BYTES when set, else the machine's physical memory.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace attnlab::api {

struct SizeEstimate {
  double params = 0;       // parameter count
  double param_bytes = 0;  // values + gradients + Adam moments
  double activation_bytes = 0;
  double total() const { return param_bytes + activation_bytes; }
};

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

}  // namespace attnlab::api
