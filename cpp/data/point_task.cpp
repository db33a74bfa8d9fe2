// Pointer task generators and exact labels (see point_task.hpp).
#include "data/point_task.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/check.hpp"
#include "data/geometry.hpp"

namespace attnlab {

std::string PointTask::name() const {
  switch (kind_) {
    case PointKind::Hull:
      return "convex-hull";
    case PointKind::Tsp:
      return "tsp";
    case PointKind::Sort:
      return "sort";
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

bool is_point_task(const std::string& name) {
  return name == "convex-hull" || name == "tsp" || name == "sort";
}

std::unique_ptr<PointTask> make_point_task(const std::string& name) {
  if (name == "convex-hull") return std::make_unique<PointTask>(PointKind::Hull);
  if (name == "tsp") return std::make_unique<PointTask>(PointKind::Tsp);
  if (name == "sort") return std::make_unique<PointTask>(PointKind::Sort);
  throw Error("unknown pointer task '" + name + "' (expected convex-hull, tsp or sort)");
}

}  // namespace attnlab
