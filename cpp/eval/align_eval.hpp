// Held-out metrics of sequence models on tasks with gold alignments (the recurrent models;
// any Model decodes, only one that aligns, Model::aligns, has an alignment error rate):
//   sequence_accuracy  exact match of greedy decoding;
//   token_accuracy     share of reference positions the greedy output gets right;
//   per_length         source length -> sequence accuracy (Bahdanau et al.'s length figure);
//   aer                alignment error rate (Och & Ney 2003) of the argmax alignment under
//                      teacher forcing, A = {(i, argmax_j alpha_ij)}, against the sure links
//                      S and the possible ones P (S and, where SeqExample::possible marks a
//                      target ambiguous, its possible links instead of its sure one):
//                      AER = 1 - (|A n S| + |A n P|) / (|A| + |S|);
//   aer_sure           every gold link sure and no possible ones: 1 - 2|A n S| / (|A| + |S|).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "data/seq_task.hpp"
#include "eval/evaluate.hpp"
#include "models/model.hpp"

namespace attnlab {

struct AlignEval {
  int samples = 0;
  double sequence_accuracy = 0, token_accuracy = 0;
  double aer = -1, aer_sure = -1;                   // -1: no attention
  std::map<int, std::pair<long, long>> per_length;  // length -> (correct, total)
  nlohmann::json to_json() const;
};

// Alignment error rate of argmax links against gold links: gold[n][i] lists the positions of
// target i of example n; where possible[n][i] (optional, may be shorter) is non-empty, target
// i has those possible links and no sure one. Without possible links: the sure-only rate.
double alignment_error_rate(const std::vector<std::vector<std::vector<float>>>& attn,
                            const std::vector<std::vector<std::vector<int>>>& gold,
                            const std::vector<std::vector<std::vector<int>>>& possible = {});

// Evaluates on held-out examples drawn from rng(seed). `examples` may be given instead
// (e.g. one source length at a time); otherwise `samples` are drawn from the task.
AlignEval evaluate_aligned(Model& m, const SeqTask& task, int samples, uint64_t seed,
                           const std::vector<SeqExample>* examples = nullptr, int batch = 100);

// Session::evaluate for these models in one pass over the same draw as evaluate_aligned:
// evaluate.hpp's metrics (teacher-forced loss and token accuracy, exact match of greedy
// decoding) plus `aer` (-1 for RNNencdec) and `per_length`, each batch decoded once.
EvalResult evaluate_with_alignment(Model& m, const SeqTask& task, int samples, uint64_t seed,
                                   int batch = 100);

}  // namespace attnlab
