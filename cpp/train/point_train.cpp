// Pointer-network training loop and metrics (see point_train.hpp).
#include "train/point_train.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "data/geometry.hpp"
#include "train/step.hpp"

namespace attnlab {

nlohmann::json pointer_config_for(const PointTask& task, int hidden, bool glimpse) {
  return {{"model", "pointer"},
          {"dim", task.dim()},
          {"hidden", hidden},
          {"attn", hidden},
          {"glimpse", glimpse},
          {"permutation", task.permutation()},
          {"min_outputs", task.kind() == PointKind::Hull ? 3 : 1}};
}

PointBatch make_point_batch(const PointTask& task, Rng& rng, Split split, int B, int n) {
  PointBatch b;
  b.B = B;
  b.n = n;
  for (int i = 0; i < B; ++i) {
    PointExample e = task.sample(rng, n, split);
    b.x.insert(b.x.end(), e.x.begin(), e.x.end());
    b.targets.push_back(std::move(e.target));
  }
  return b;
}

PointTrainer::PointTrainer(PointerNet& m, const PointTask& task, PointTrainOptions o)
    : m_(m),
      task_(task),
      o_(o),
      rng_(o.seed),
      adam_(m.params(), AdamOptions{0.9f, 0.999f, 1e-8f, 0.f}) {
  AL_CHECK(o.batch >= 1 && o.n_min >= 1 && o.n_max >= o.n_min,
           "pointer training: bad batch or n range");
  o.dp.require_valid();
  AL_CHECK(m.cfg().dim == task.dim(), "pointer model has dim " << m.cfg().dim << ", task "
                                                               << task.name() << " needs "
                                                               << task.dim());
}

float PointTrainer::lr_at(int step) const {
  const int from = std::max(1, o_.decay_from);
  if (o_.lr_final <= 0.f || from >= o_.steps || step <= from) return o_.lr;
  const double f = double(std::min(step, o_.steps) - from) / double(o_.steps - from);
  return float(o_.lr * std::pow(double(o_.lr_final) / o_.lr, f));
}

double PointTrainer::step() {
  const int n = o_.n_min + int(rng_.below(uint32_t(o_.n_max - o_.n_min + 1)));
  PointBatch b = make_point_batch(task_, rng_, Split::Train, o_.batch * o_.dp.size, n);
  if (o_.dp.size > 1) {  // this rank's rows of the global batch
    const size_t row = size_t(n) * size_t(task_.dim()), first = size_t(o_.dp.rank) * o_.batch;
    b.x = std::vector<float>(b.x.begin() + long(first * row),
                             b.x.begin() + long((first + o_.batch) * row));
    b.targets = std::vector<std::vector<int>>(b.targets.begin() + long(first),
                                              b.targets.begin() + long(first + o_.batch));
    b.B = o_.batch;
  }
  long targets = 0;  // pointer targets the loss averages over: each output and the end symbol
  for (const auto& tg : b.targets) targets += long(tg.size()) + 1;
  const int step = adam_.steps() + 1;
  return train_step(
             m_.params(), adam_,
             [&] {
               const double loss = m_.forward_points(b);
               m_.backward();
               return loss;
             },
             targets, {step, lr_at(step), o_.clip, 0.f}, o_.dp.sync)
      .loss;
}

nlohmann::json PointEval::to_json(PointKind kind) const {
  nlohmann::json j = {
      {"samples", samples}, {"accuracy", accuracy}, {"sequence_accuracy", accuracy}};
  if (kind == PointKind::Hull) {
    j["area_coverage"] = area_coverage;
    j["invalid_rate"] = invalid_rate;
  }
  if (kind == PointKind::Tsp) {
    j["tour_length"] = tour_length;
    j["optimal_tour_length"] = optimal_tour_length;
  }
  nlohmann::json pl = nlohmann::json::object();
  for (const auto& [n, ct] : per_length)
    pl[std::to_string(n)] = ct.second ? double(ct.first) / double(ct.second) : 0.0;
  j["per_length"] = pl;
  return j;
}

PointEval evaluate_points(PointerNet& m, const PointTask& task, int samples, int n_min, int n_max,
                          uint64_t seed, int batch, int beam) {
  AL_CHECK(samples >= 1 && n_min >= 1 && n_max >= n_min, "evaluation: bad sample count or n range");
  Rng rng(seed);
  PointEval r;
  long exact = 0, invalid = 0, total = 0;
  double cover = 0, tour = 0, opt = 0;
  for (int n = n_min; n <= n_max; ++n)
    for (int done = 0; done < samples; done += batch) {
      const int B = std::min(batch, samples - done);
      const PointBatch b = make_point_batch(task, rng, Split::Test, B, n);
      const PointDecoded d = m.beam_search(b.x, B, n, beam);
      for (int i = 0; i < B; ++i) {
        const auto& out = d.order[size_t(i)];
        const auto& ref = b.targets[size_t(i)];
        const bool ok = out == ref;
        exact += ok;
        auto& pl = r.per_length[n];
        pl.first += ok;
        pl.second += 1;
        ++total;
        const std::vector<float> pts(b.x.begin() + long(i) * n * task.dim(),
                                     b.x.begin() + long(i + 1) * n * task.dim());
        if (task.kind() == PointKind::Hull) {
          const double a = polygon_area(pts, out);
          invalid += a == 0.0;
          cover += a / polygon_area(pts, ref);
        } else if (task.kind() == PointKind::Tsp) {
          tour += tour_length(pts, out);
          opt += tour_length(pts, ref);
        }
      }
    }
  r.samples = int(total);
  r.accuracy = double(exact) / double(total);
  r.area_coverage = cover / double(total);
  r.invalid_rate = double(invalid) / double(total);
  r.tour_length = tour / double(total);
  r.optimal_tour_length = opt / double(total);
  return r;
}

}  // namespace attnlab
