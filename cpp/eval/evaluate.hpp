// Held-out evaluation of a model on a task: teacher-forced loss and token accuracy, and
// exact-match accuracy of greedy decoding (the metrics every trainer and the session report).
// A point task (float inputs) is evaluated by evaluate_points (eval/point_eval.hpp), which adds
// the geometric metrics.
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
  // Point tasks (point_eval.hpp), -1: not measured. convex-hull: area_coverage, invalid_rate;
  // tsp: tour_length, optimal_tour_length.
  double area_coverage = -1, invalid_rate = -1, tour_length = -1, optimal_tour_length = -1;
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
// `samples` held-out examples drawn with `seed`. Point tasks: evaluate_points with `samples`
// sets for every n of the task's range, in batches of 250 (batch is not used).
EvalResult evaluate(Model& m, const Task& task, int samples, uint64_t seed, int batch = 200);

}  // namespace attnlab
