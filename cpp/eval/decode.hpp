// Decoding: greedy (batched) and beam search with the GNMT length penalty
//   score = log p(y) / lp(y),  lp(y) = ((5 + |y|) / 6)^α   (Wu et al. 2016)
// The encoder-decoder Transformer encodes the source once and runs its decoder on one new token
// per step, with the keys and values of earlier positions cached
// (IncrementalDecoding::step_decoder); step_cache = false, the other Transformers and an
// inspection's decoding re-run the whole prefix instead (the same numbers up to float rounding).
// The recurrent models (RNNsearch, RNNencdec) step their decoder once per token. Outputs exclude
// <s> and </s>. Encoder-only models tag every source position in one pass. Defined for any weights:
// NaN logits count as -inf, +inf logits share the mass, scores never break the beam's ordering, and
// decoding always ends within max_len with ids in [0, V).
#pragma once
#include <cstdint>
#include <vector>

#include "models/model.hpp"

namespace attnlab {

// Throws attnlab::Error (naming `what`) unless every id is in the model's source vocabulary
// and the row fits its max_len. Both decoders check their sources with it.
void check_source(const Model& m, const std::vector<int32_t>& src, const char* what = "source");

std::vector<std::vector<int32_t>> greedy_decode(Model& m,
                                                const std::vector<std::vector<int32_t>>& srcs,
                                                int max_len, bool step_cache = true);

std::vector<int32_t> beam_decode(Model& m, const std::vector<int32_t>& src, int beam, int max_len,
                                 float alpha = 0.6f, bool step_cache = true);

}  // namespace attnlab
