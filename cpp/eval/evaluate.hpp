// Held-out evaluation of a model on a task: teacher-forced loss and token accuracy, and
// exact-match accuracy of greedy decoding (the metrics every trainer and the session report).
#pragma once
#include <cstdint>
#include <map>

#include "data/task.hpp"
#include "models/model.hpp"

namespace attnlab {

struct EvalResult {
  double loss = 0, token_accuracy = 0, sequence_accuracy = 0;
  int samples = 0;
  double aer = -1;                   // alignment error rate (align_eval.hpp); -1: none measured
  std::map<int, double> per_length;  // source length -> sequence accuracy; empty: none measured
};

// Teacher-forced scoring of held-out batches, summed over batches: loss x tokens, non-pad
// target tokens, and tokens whose argmax is the reference (the model's logits stay those of b).
struct ForcedScore {
  double loss_sum = 0;
  long tokens = 0, correct = 0;
  void add(Model& m, const Batch& b);
  double loss() const { return loss_sum / double(tokens > 0 ? tokens : 1); }
  double accuracy() const { return double(correct) / double(tokens > 0 ? tokens : 1); }
};

// Teacher-forced loss and token accuracy, and exact-match accuracy of greedy decoding, on
// `samples` held-out examples drawn with `seed`.
EvalResult evaluate(Model& m, const Task& task, int samples, uint64_t seed, int batch = 200);

}  // namespace attnlab
