// Pointer task generators, exact labels, batches and registry factories (see point_task.hpp).
#include "data/point_task.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/check.hpp"
#include "data/geometry.hpp"

namespace attnlab {

PointTask::PointTask(PointKind kind, const nlohmann::json& options) : kind_(kind) {
  AL_CHECK(options.is_object(), name() << ": task options must be a JSON object");
  const auto num = [&](const char* key, int def) {
    const auto it = options.find(key);
    if (it == options.end() || it->is_null()) return def;
    AL_CHECK(it->is_number_integer(), name() << ": " << key << " must be an integer");
    return it->get<int>();
  };
  n_min_ = num("n_min", num("n", 5));
  n_max_ = num("n_max", std::max(n_min_, num("n", n_min_)));
  AL_CHECK(n_min_ >= 1 && n_max_ >= n_min_ && n_max_ <= 1000,
           name() << ": need 1 <= n_min <= n_max <= 1000 (got " << n_min_ << ", " << n_max_ << ")");
  AL_CHECK(kind != PointKind::Tsp || n_max_ <= 10, "tsp: n_max must be at most 10");
}

std::string PointTask::name() const {
  switch (kind_) {
    case PointKind::Hull:
      return "convex-hull";
    case PointKind::Tsp:
      return "tsp";
    case PointKind::Sort:
      return "point-sort";
  }
  return "?";
}

std::vector<int> PointTask::label(const std::vector<float>& x, int n) const {
  AL_CHECK(int(x.size()) == n * dim(),
           name() << ": expected " << n * dim() << " coordinates, got " << x.size());
  for (float v : x) AL_CHECK(std::isfinite(v), name() << ": coordinates must be finite numbers");
  switch (kind_) {
    case PointKind::Hull:
      AL_CHECK(n >= 3, "convex hull needs at least 3 points, got " << n);
      return convex_hull(x);
    case PointKind::Tsp:
      AL_CHECK(n >= 3 && n <= 10, "tsp supports 3..10 cities (exact labels), got " << n);
      return tsp_optimal(x);
    case PointKind::Sort: {
      AL_CHECK(n >= 2, "sort needs at least 2 numbers, got " << n);
      std::vector<int> idx(size_t(n), 0);
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(),
                       [&](int a, int b) { return x[size_t(a)] < x[size_t(b)]; });
      return idx;
    }
  }
  return {};
}

PointExample PointTask::sample(Rng& rng, int n, Split split) const {
  PointExample ex;
  ex.n = n;
  ex.dim = dim();
  ex.x.resize(size_t(n) * ex.dim);
  for (;;) {
    for (auto& v : ex.x) v = rng.uniform();
    std::vector<int32_t> bits(ex.x.size());
    std::memcpy(bits.data(), ex.x.data(), bits.size() * sizeof(float));
    if ((source_hash(bits) % 100 < 10) == (split == Split::Test)) break;  // 10% held out
  }
  ex.target = label(ex.x, n);
  return ex;
}

Example PointTask::example(Rng& rng, int n, Split split) const {
  PointExample p = sample(rng, n, split);
  Example e;
  e.x = std::move(p.x);
  for (int j : p.target) e.tgt.push_back(kFirstSymbol + j);
  return e;
}

Example PointTask::sample(Rng& rng, Split split) const {
  const int n = n_min_ + int(rng.below(uint32_t(n_max_ - n_min_ + 1)));
  return example(rng, n, split);
}

Example PointTask::draw(Rng& rng) const { return sample(rng, Split::Train); }

// One n for the whole batch, then its sets: the draws the pointer network has always trained on.
Batch PointTask::sample_batch(Rng& rng, Split split, int count, int first, int rows) const {
  if (rows < 0) rows = count;
  AL_CHECK(first >= 0 && first + rows <= count, "batch rows out of range");
  const int n = n_min_ + int(rng.below(uint32_t(n_max_ - n_min_ + 1)));
  std::vector<Example> ex;
  for (int i = 0; i < count; ++i) ex.push_back(example(rng, n, split));
  return make_batch(std::vector<Example>(ex.begin() + first, ex.begin() + first + rows), dim());
}

Batch PointTask::sample_sets(Rng& rng, Split split, int count, int n) const {
  AL_CHECK(count >= 1 && n >= 1 && n <= 1000, name() << ": bad set count or size");
  std::vector<Example> ex;
  for (int i = 0; i < count; ++i) ex.push_back(example(rng, n, split));
  return make_batch(ex, dim());
}

nlohmann::json PointTask::model_fields() const {
  return {{"dim", dim()},
          {"permutation", permutation()},
          {"min_outputs", kind_ == PointKind::Hull ? 3 : 1}};
}

nlohmann::json pointer_config_for(const Task& task, int hidden, bool glimpse) {
  AL_CHECK(task.input_dim() > 0, "task " << task.name() << " has no point inputs");
  nlohmann::json cfg = task.model_fields();
  cfg["model"] = "pointer";
  cfg["hidden"] = hidden;
  cfg["attn"] = hidden;
  cfg["glimpse"] = glimpse;
  return cfg;
}

std::unique_ptr<Task> make_hull_task(const nlohmann::json& o) {
  return std::make_unique<PointTask>(PointKind::Hull, o);
}

std::unique_ptr<Task> make_tsp_task(const nlohmann::json& o) {
  return std::make_unique<PointTask>(PointKind::Tsp, o);
}

std::unique_ptr<Task> make_point_sort_task(const nlohmann::json& o) {
  return std::make_unique<PointTask>(PointKind::Sort, o);
}

}  // namespace attnlab
