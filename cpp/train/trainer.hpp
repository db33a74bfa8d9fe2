// The training loop of the toy tasks (held-out evaluation: eval/evaluate.hpp). A Trainer draws
// batches from the task's train split (its own seeded Rng), runs forward/backward, clips, and takes
// an Adam step at the scheduled rate; dropout masks come from a second seeded Rng. With the same
// seed and thread count two runs are bit-for-bit identical. Data-parallel (o.dp.size > 1): every
// rank draws the global batch of size·batch examples from the same stream and trains on its
// rows [rank·batch, (rank+1)·batch); the sync makes the step the one-process step on the global
// batch. Rank r > 0 draws dropout masks from its own stream (rank 0's is the single-process one).
// Thread ranks (o.dp.split_batch, parallel/thread_ranks.hpp) instead split a global batch of
// `batch` rows by rank_rows, so that --threads leaves the run's batch as it was.
// A run continues exactly: save_state puts into a checkpoint what the next step depends on
// besides the parameters (Adam's moments and step count, the step, both generators), and a
// Trainer built with the same options that restore_state()s it takes the steps the uninterrupted
// run would have taken, bit for bit (same thread count). Under data parallelism rank 0's dropout
// stream is the one saved; rank r > 0 reseeds its own from the step.
// Point tasks train models that read point sets (the pointer network) the same way: a batch is
// Task::sample_batch (one n per batch), the step the one of train/step.hpp.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "data/task.hpp"
#include "eval/evaluate.hpp"
#include "io/safetensors.hpp"
#include "models/model.hpp"
#include "train/optim.hpp"
#include "train/step.hpp"

namespace attnlab {

struct TrainOptions {
  int batch = 64;
  Schedule schedule;
  float clip = 1.f;  // global gradient-norm bound (<= 0: none)
  float label_smoothing = 0.f;
  uint64_t seed = 1;
  int first_step = 1;  // > 1 when resuming (the schedule continues from there)
  DataParallel dp;     // batch is per rank
  AdamOptions adam;
  // word dropout (data/task.hpp drop_words): source and decoder-input tokens become `unk` with
  // this probability, from word_dropout_rng(seed, step, rank); token tasks only
  float word_dropout = 0.f;
  int32_t unk = -1;
  DeviceSteps* device = nullptr;  // readback-free steps (train/step.hpp), owned by the caller
};

// The pointer network's settings (as `attn train --model pointer` has always trained it):
// batch 128, a constant lr 1e-3 (decay: schedule.lr_final/decay_from/decay_to), clip 2, Adam
// β2 0.999 and ε 1e-8.
TrainOptions pointer_train_options();

class Trainer {
 public:
  Trainer(Model& m, const Task& task, TrainOptions o);
  StepInfo step();
  int next_step() const { return step_; }
  // Takes back the steps from `step` on (a readback-free chunk whose step `step` was not
  // finite: the weights and Adam's moments are those of step - 1, so its count is too, and the
  // data and dropout generators are put back where they stood before step `step` drew from
  // them). A step that throws on the spot (the CPU's non-finite check) leaves them as it found
  // them too: after a stop the run is the one that never took the bad step.
  void rewind_to(int step);
  // The readback-free steps taken so far were read and found finite: forget their marks.
  void settled() { marks_.clear(); }
  const Adam& adam() const { return adam_; }
  // A replica's optimizer (DataParallel::shard_update, rank > 0) steps with `owner`'s moments.
  void view_moments_of(const Adam& owner) { adam_.view_moments_of(owner); }
  // Adds Adam's moments to st (train_state.hpp) and "step" (the last step taken),
  // "adam_steps", "data_rng" and "dropout_rng" to state.
  void save_state(SafeTensors& st, nlohmann::json& state) const;
  // Continues from what save_state wrote (throws naming what is missing).
  void restore_state(const SafeTensors& st, const nlohmann::json& state);
  // This rank's dropout generator (thread ranks save every rank's, so that a resume with the
  // same ranks draws the masks of the uninterrupted run).
  nlohmann::json dropout_state() const;
  void set_dropout_state(const nlohmann::json& j);

 private:
  StepInfo draw_and_step();
  Model& m_;
  const Task& task_;
  TrainOptions o_;
  Rng data_, dropout_;
  Adam adam_;
  int step_;
  // Readback-free steps not yet settled: the generators before each, from step marks_from_ on.
  struct Mark {
    Rng::State data, dropout;
  };
  std::vector<Mark> marks_;
  int marks_from_ = 0;
};

}  // namespace attnlab
