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

// One candidate a beam-search step weighed: the hypothesis `parent` (an index into the previous
// step's kept candidates, in their order; 0 at the first step, the bare <s>) extended by `token`.
// logp: the extended hypothesis's log-probability; score: logp / lp(its length, </s> counted),
// the length-normalised score that picks the winner among the finished hypotheses.
struct BeamCandidate {
  enum Status : uint8_t { kKept, kFinished, kPruned };
  int parent = 0;
  int32_t token = 0;
  double logp = 0, score = 0;
  Status status = kPruned;
};

// What a beam search did, step by step: each step's candidates best log-probability first, every
// one the search took (kept live, or finished by </s>) followed by the best ones it left
// (pruned: up to `beam` of them, those with a log-probability of -inf left out). The winner is
// steps[winner_step][winner_index]; a hypothesis still live when max_len ran out is the kept
// candidate of the last step. Greedy decoding (beam 1, or a model that is not autoregressive)
// records no steps and winner_step -1.
struct BeamTrace {
  int beam = 0;
  float alpha = 0;
  std::vector<std::vector<BeamCandidate>> steps;
  int winner_step = -1, winner_index = -1;
};

// With `trace`, the search also records what it did there; its result is the same either way.
std::vector<int32_t> beam_decode(Model& m, const std::vector<int32_t>& src, int beam, int max_len,
                                 float alpha = 0.6f, bool step_cache = true,
                                 BeamTrace* trace = nullptr);

}  // namespace attnlab
