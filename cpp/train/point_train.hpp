// Training and held-out evaluation of the pointer network on the pointer tasks. Each batch
// draws one n in [n_min, n_max] (all sets of a batch have the same size). Metrics:
//   accuracy        exact output sequence (hull: the CCW order from the lowest index);
//   area_coverage   hull: mean predicted-polygon area / true hull area (0 for an invalid one);
//   invalid_rate    hull: share of outputs that are not a simple polygon;
//   tour_length     tsp: mean length of the predicted tours, optimal_tour_length of the optimal.
#pragma once
#include <map>
#include <nlohmann/json.hpp>

#include "data/point_task.hpp"
#include "models/pointer.hpp"
#include "train/grad_sync.hpp"
#include "train/optim.hpp"

namespace attnlab {

// A pointer config that fits the task (dim, end rule) with the given sizes.
nlohmann::json pointer_config_for(const PointTask& task, int hidden, bool glimpse);

PointBatch make_point_batch(const PointTask& task, Rng& rng, Split split, int B, int n);

struct PointTrainOptions {
  int batch = 128, n_min = 5, n_max = 5;
  float lr = 1e-3f, clip = 2.f;
  // Learning-rate decay: lr until step decay_from, then exponential down to lr_final at step
  // `steps` (lr_final <= 0 or decay_from >= steps: constant lr).
  float lr_final = 0.f;
  int steps = 0, decay_from = 1;
  uint64_t seed = 1;
  // Data-parallel: batch is per rank; every rank draws the global batch of size·batch sets
  // and trains on its rows [rank·batch, (rank+1)·batch).
  DataParallel dp;
};

class PointTrainer {
 public:
  PointTrainer(PointerNet& m, const PointTask& task, PointTrainOptions o);
  double step();                // one Adam step; returns the batch loss
  float lr_at(int step) const;  // the learning rate of step `step` (1-based)
  int steps() const { return adam_.steps(); }

 private:
  PointerNet& m_;
  const PointTask& task_;
  PointTrainOptions o_;
  Rng rng_;
  Adam adam_;
};

struct PointEval {
  int samples = 0;
  double accuracy = 0, area_coverage = 0, invalid_rate = 0, tour_length = 0,
         optimal_tour_length = 0;
  std::map<int, std::pair<long, long>> per_length;  // n -> (exact, total)
  nlohmann::json to_json(PointKind kind) const;
};

// `samples` held-out sets for every n in [n_min, n_max] drawn with seed; greedy constrained
// decoding.
PointEval evaluate_points(PointerNet& m, const PointTask& task, int samples, int n_min, int n_max,
                          uint64_t seed, int batch = 250, int beam = 1);

}  // namespace attnlab
