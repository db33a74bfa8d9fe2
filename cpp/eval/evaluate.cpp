// Held-out evaluation (evaluate.hpp).
#include "eval/evaluate.hpp"

#include <algorithm>
#include <vector>

#include "core/check.hpp"
#include "core/rng.hpp"
#include "eval/decode.hpp"
#include "eval/point_eval.hpp"

namespace attnlab {

void ForcedScore::add(Model& m, const Batch& b) {
  long n = 0;
  for (int32_t t : b.tgt_out) n += t != m.pad_id();
  loss_sum += m.forward(b, false, nullptr, 0.f) * double(n);
  tokens += n;
  const int V = m.out_vocab();
  const std::vector<float> z = m.logits();
  for (size_t k = 0; k < b.tgt_out.size(); ++k) {
    if (b.tgt_out[k] == m.pad_id()) continue;
    const float* zr = z.data() + k * size_t(V);
    correct += int(std::max_element(zr, zr + V) - zr) == b.tgt_out[k];
  }
}

EvalResult evaluate(Model& m, const Task& task, int samples, uint64_t seed, int batch) {
  AL_CHECK(samples >= 1, "need at least one evaluation sample");
  if (task.input_dim() > 0)
    return evaluate_points(m, task, samples, task.min_src_len(), task.max_src_len(), seed);
  Rng rng(seed);
  const std::vector<Example> ex = sample_many(task, rng, Split::Test, samples);
  EvalResult r;
  r.samples = samples;
  ForcedScore forced;
  long exact = 0;
  for (size_t i = 0; i < ex.size(); i += size_t(batch)) {
    const std::vector<Example> part(ex.begin() + long(i),
                                    ex.begin() + long(std::min(ex.size(), i + size_t(batch))));
    forced.add(m, make_batch(part));
    std::vector<std::vector<int32_t>> srcs;
    for (const Example& e : part) srcs.push_back(e.src);
    const auto out = greedy_decode(m, srcs, task.max_tgt_len() + 1);
    for (size_t k = 0; k < part.size(); ++k) exact += out[k] == part[k].tgt;
  }
  r.loss = forced.loss();
  r.token_accuracy = forced.accuracy();
  r.sequence_accuracy = double(exact) / double(samples);
  return r;
}

}  // namespace attnlab
