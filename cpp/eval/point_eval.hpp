// Held-out metrics of a model that reads point sets (the pointer network) on a point task
// (data/point_task.hpp), reached from evaluate() (eval/evaluate.hpp) for any task with float
// inputs. `samples` held-out sets for every n in [n_min, n_max], decoded by the model's
// constrained greedy decoding (beam 1) or beam search. Metrics, in EvalResult:
//   sequence_accuracy    exact output sequence (hull: the CCW order from the lowest index);
//   per_length           n -> exact share;
//   area_coverage        convex-hull: mean predicted-polygon area / true hull area (0: invalid);
//   invalid_rate         convex-hull: share of outputs that are not a simple polygon;
//   tour_length          tsp: mean length of the predicted tours, optimal_tour_length of the
//                        optimal ones.
// loss and token_accuracy are the teacher-forced ones of the same sets.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "data/task.hpp"
#include "eval/evaluate.hpp"
#include "models/model.hpp"

namespace attnlab {

EvalResult evaluate_points(Model& m, const Task& task, int samples, int n_min, int n_max,
                           uint64_t seed, int batch = 250, int beam = 1);

// The result in the keys `attn eval` has always printed for pointer checkpoints (snake_case:
// accuracy, sequence_accuracy, area_coverage, invalid_rate, tour_length, optimal_tour_length,
// per_length); experiments/reproduce.mjs reads them. The hull and tsp keys only for those tasks.
nlohmann::json point_eval_json(const EvalResult& r, const std::string& task);

}  // namespace attnlab
