// The training loop and held-out evaluation. A Trainer draws batches from the task's train
// split (its own seeded Rng), runs forward/backward, clips, and takes an Adam step at the
// scheduled rate; dropout masks come from a second seeded Rng. With the same seed and thread
// count two runs are bit-for-bit identical.
#pragma once
#include <cstdint>
#include <map>

#include "models/model.hpp"
#include "train/optim.hpp"
#include "train/step.hpp"
#include "train/task.hpp"

namespace attnlab {

struct TrainOptions {
  int batch = 64;
  Schedule schedule;
  float clip = 1.f;  // global gradient-norm bound (<= 0: none)
  float label_smoothing = 0.f;
  uint64_t seed = 1;
  int first_step = 1;  // > 1 when resuming (the schedule continues from there)
};

class Trainer {
 public:
  Trainer(Model& m, const Task& task, TrainOptions o);
  StepInfo step();
  int next_step() const { return step_; }

 private:
  Model& m_;
  const Task& task_;
  TrainOptions o_;
  Rng data_, dropout_;
  Adam adam_;
  int step_;
};

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
