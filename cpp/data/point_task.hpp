// Pointer tasks (Vinyals et al. 2015; Vinyals, Bengio & Kudlur 2016): the answer is a sequence
// of input positions. convex-hull: n points uniform in the unit square -> hull vertices CCW
// from the lowest index; tsp: n <= 10 cities -> an optimal tour from city 0 (Held-Karp);
// sort: n reals uniform in [0,1) -> indices in increasing order. Train and test examples are
// drawn from one stream and split by a hash of their coordinates, so they never coincide.
#pragma once
#include <memory>
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

class PointTask {
 public:
  explicit PointTask(PointKind kind) : kind_(kind) {}
  std::string name() const;
  PointKind kind() const { return kind_; }
  int dim() const { return kind_ == PointKind::Sort ? 1 : 2; }
  // Whether every position must be output exactly once (tsp, sort) or a subset (hull).
  bool permutation() const { return kind_ != PointKind::Hull; }
  PointExample sample(Rng& rng, int n, Split split) const;
  // The exact answer for given inputs x [n, dim] (checks the input first).
  std::vector<int> label(const std::vector<float>& x, int n) const;

 private:
  PointKind kind_;
};

// "convex-hull" | "tsp" | "sort"
std::unique_ptr<PointTask> make_point_task(const std::string& name);
bool is_point_task(const std::string& name);

}  // namespace attnlab
