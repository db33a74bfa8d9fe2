// Pointer tasks (Vinyals et al. 2015; Vinyals, Bengio & Kudlur 2016), registered in the task
// registry: the answer is a sequence of input positions. convex-hull: n points uniform in the
// unit square -> hull vertices CCW from the lowest index; tsp: n <= 10 cities -> an optimal tour
// from city 0 (Held-Karp); point-sort ("sort" for a pointer model, task.hpp): n reals uniform in
// [0,1) -> indices in increasing order. Train and test examples are drawn from one stream and
// split by a hash of their coordinates, so they never coincide. Options {"n_min", "n_max"}
// (or "n"; default 5): each batch draws one n in [n_min, n_max] (sample_batch); examples hold
// x [n, dim] and target ids kFirstSymbol + j for input j.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "data/task.hpp"

namespace attnlab {

struct PointExample {
  int n = 0, dim = 0;
  std::vector<float> x;     // [n, dim]
  std::vector<int> target;  // positions in 0..n-1
};

enum class PointKind { Hull = 0, Tsp = 1, Sort = 2 };

class PointTask : public Task {
 public:
  explicit PointTask(PointKind kind, const nlohmann::json& options = nlohmann::json::object());
  std::string name() const override;
  PointKind kind() const { return kind_; }
  int dim() const { return kind_ == PointKind::Sort ? 1 : 2; }
  // Whether every position must be output exactly once (tsp, sort) or a subset (hull).
  bool permutation() const { return kind_ != PointKind::Hull; }
  PointExample sample(Rng& rng, int n, Split split) const;
  // The exact answer for given inputs x [n, dim] (checks the input first).
  std::vector<int> label(const std::vector<float>& x, int n) const;

  // Task: no source ids; target ids up to kFirstSymbol + n_max; sets of n_min..n_max.
  int src_vocab() const override { return 0; }
  int tgt_vocab() const override { return kFirstSymbol + n_max_; }
  int max_src_len() const override { return n_max_; }
  int max_tgt_len() const override { return n_max_; }
  int min_src_len() const override { return n_min_; }
  int input_dim() const override { return dim(); }
  Example sample(Rng& rng, Split split) const override;  // n uniform in [n_min, n_max]
  Batch sample_batch(Rng& rng, Split split, int count, int first = 0, int rows = -1) const override;
  Batch sample_sets(Rng& rng, Split split, int count, int n) const override;
  std::vector<int> solve(const std::vector<float>& x, int n) const override { return label(x, n); }
  std::string default_model() const override { return "pointer"; }
  // dim, permutation, and min_outputs (a hull has at least 3 vertices).
  nlohmann::json model_fields() const override;

 protected:
  Example draw(Rng& rng) const override;

 private:
  Example example(Rng& rng, int n, Split split) const;
  PointKind kind_;
  int n_min_ = 5, n_max_ = 5;
};

// A pointer config that fits the task (dim, end rule) with the given sizes.
nlohmann::json pointer_config_for(const Task& task, int hidden, bool glimpse);

}  // namespace attnlab
