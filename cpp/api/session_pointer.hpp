// A pointer-network session (Vinyals et al. 2015) for front ends: a Ptr-Net and the point task
// it trains on (convex-hull, tsp, sort), training through the shared Trainer, held-out
// metrics, greedy decoding with the pointer distribution of every output step, and
// .safetensors bytes (the checkpoint `attn train --model pointer` writes and reads).
// Config: {"model": {"hidden": 128, "glimpse": false} | "pointer", "task": "convex-hull",
//          "task_options": {"n_min": 5, "n_max": 5}, "seed": 1,
//          "train": {"batch": 128, "lr": 1e-3, "clip": 2}}
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "data/task.hpp"
#include "models/model.hpp"
#include "train/trainer.hpp"

namespace attnlab::api {

struct PointerChunk {
  std::vector<float> losses;  // one per step
  int step = 0;               // steps taken after this call
  long points = 0;            // input elements seen
};

struct PointerExamples {
  int n = 0, dim = 0;
  std::vector<float> x;                  // [count, n, dim]
  std::vector<std::vector<int>> target;  // exact answers (0-based positions)
};

struct PointerDecode {
  int n = 0;
  std::vector<int> order;    // chosen inputs (0-based), end excluded
  std::vector<float> probs;  // [steps, n + 1]: distribution over inputs and the end symbol
};

class PointerSession {
 public:
  static std::unique_ptr<PointerSession> create(const nlohmann::json& config);
  static std::unique_ptr<PointerSession> load(const std::vector<uint8_t>& bytes,
                                              const nlohmann::json& overrides);
  nlohmann::json info() const;
  PointerChunk train(int steps);
  nlohmann::json evaluate(int samples, uint64_t seed);
  // One point set x [n, dim]: the model's answer and its pointer distributions.
  PointerDecode decode(const std::vector<float>& x, int n);
  PointerExamples examples(int count, int n, Split split, uint64_t seed) const;
  std::vector<uint8_t> save();

 private:
  PointerSession() = default;
  void set_task(const std::string& name, const nlohmann::json& options);
  void set_train_options(const nlohmann::json& train);

  std::unique_ptr<Model> model_;
  std::unique_ptr<Task> task_;
  std::string task_name_;
  int n_min_ = 5, n_max_ = 5;
  nlohmann::json train_config_ = nlohmann::json::object();
  TrainOptions opts_ = pointer_train_options();
  uint64_t seed_ = 1;
  int steps_ = 0;
  std::unique_ptr<Trainer> trainer_;
};

}  // namespace attnlab::api
