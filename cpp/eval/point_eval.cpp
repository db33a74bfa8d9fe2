// Held-out metrics of point-set models (see point_eval.hpp).
#include "eval/point_eval.hpp"

#include <algorithm>

#include "core/check.hpp"
#include "core/rng.hpp"
#include "data/geometry.hpp"

namespace attnlab {

EvalResult evaluate_points(Model& m, const Task& task, int samples, int n_min, int n_max,
                           uint64_t seed, int batch, int beam) {
  AL_CHECK(samples >= 1 && n_min >= 1 && n_max >= n_min, "evaluation: bad sample count or n range");
  AL_CHECK(batch >= 1, "evaluation: batch must be at least 1");
  const int D = task.input_dim();
  AL_CHECK(D > 0 && m.input_dim() == D, "evaluation: task " << task.name() << " has " << D
                                                            << " input features, the model reads "
                                                            << m.input_dim());
  const bool hull = task.name() == "convex-hull", tsp = task.name() == "tsp";
  Rng rng(seed);
  EvalResult r;
  std::map<int, std::pair<long, long>> per_n;  // n -> (exact, total)
  long exact = 0, invalid = 0, total = 0;
  double cover = 0, tour = 0, opt = 0;
  ForcedScore forced;
  for (int n = n_min; n <= n_max; ++n)
    for (int done = 0; done < samples; done += batch) {
      const int B = std::min(batch, samples - done);
      const Batch b = task.sample_sets(rng, Split::Test, B, n);
      const PointDecoded d = decode_points(m, b.x, B, n, beam);
      for (int i = 0; i < B; ++i) {
        std::vector<int> ref;  // the answer: ids kFirstSymbol + j up to </s>
        for (int t = 0; t < b.T && b.tgt_out[size_t(i) * b.T + t] != kEos; ++t)
          ref.push_back(b.tgt_out[size_t(i) * b.T + t] - kFirstSymbol);
        const auto& out = d.order[size_t(i)];
        const bool ok = out == ref;
        exact += ok;
        per_n[n].first += ok;
        per_n[n].second += 1;
        ++total;
        const std::vector<float> pts(b.x.begin() + long(i) * n * D,
                                     b.x.begin() + long(i + 1) * n * D);
        if (hull) {
          const double a = polygon_area(pts, out);
          invalid += a == 0.0;
          cover += a / polygon_area(pts, ref);
        } else if (tsp) {
          tour += tour_length(pts, out);
          opt += tour_length(pts, ref);
        }
      }
      forced.add(m, b);
    }
  r.samples = int(total);
  r.loss = forced.loss();
  r.token_accuracy = forced.accuracy();
  r.sequence_accuracy = double(exact) / double(total);
  for (const auto& [n, ct] : per_n) r.per_length[n] = double(ct.first) / double(ct.second);
  if (hull) {
    r.area_coverage = cover / double(total);
    r.invalid_rate = double(invalid) / double(total);
  }
  if (tsp) {
    r.tour_length = tour / double(total);
    r.optimal_tour_length = opt / double(total);
  }
  return r;
}

nlohmann::json point_eval_json(const EvalResult& r, const std::string& task) {
  nlohmann::json j = {{"samples", r.samples},
                      {"accuracy", r.sequence_accuracy},
                      {"sequence_accuracy", r.sequence_accuracy}};
  if (task == "convex-hull") {
    j["area_coverage"] = r.area_coverage;
    j["invalid_rate"] = r.invalid_rate;
  }
  if (task == "tsp") {
    j["tour_length"] = r.tour_length;
    j["optimal_tour_length"] = r.optimal_tour_length;
  }
  nlohmann::json pl = nlohmann::json::object();
  for (const auto& [n, acc] : r.per_length) pl[std::to_string(n)] = acc;
  j["per_length"] = pl;
  return j;
}

}  // namespace attnlab
