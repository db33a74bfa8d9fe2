// Timed training steps of RNNsearch and Ptr-Net (see rnn_bench.hpp).
#include "bench/rnn_bench.hpp"

#include <algorithm>
#include <chrono>

#include "data/point_task.hpp"
#include "models/rnnsearch.hpp"
#include "train/optim.hpp"

namespace attnlab {

namespace {

template <class F>
double median_ms(int reps, F&& step) {
  step();  // warm-up: workspace growth
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

std::vector<RnnBenchRow> rnn_bench(const KernelTable& kt, int reps) {
  std::vector<RnnBenchRow> rows;
  {
    const int B = 32, L = 20, V = 40;
    auto m = make_model({{"model", "rnnsearch"},
                         {"src_vocab", V},
                         {"tgt_vocab", V},
                         {"emb", 32},
                         {"hidden", 64},
                         {"attn", 64}},
                        kt, 1);
    Rng rng(1);
    Batch b;
    b.B = B, b.S = L, b.T = L;
    for (int i = 0; i < B * L; ++i) {
      b.src.push_back(3 + int(rng.below(V - 3)));
      b.tgt_in.push_back(3 + int(rng.below(V - 3)));
      b.tgt_out.push_back(3 + int(rng.below(V - 3)));
    }
    Adam adam(m->params());
    const double ms = median_ms(reps, [&] {
      m->params().zero_grad();
      m->forward(b, true, nullptr, 0.f);
      m->backward();
      adam.step(1e-3f);
      kt.synchronize();
    });
    rows.push_back({"rnnsearch train step (hidden 64, len 20, batch 32)", ms, reps});
  }
  {
    const auto task = make_task("convex-hull");
    auto m = make_model(pointer_config_for(*task, 128, false), kt, 1);
    Rng rng(2);
    const Batch b = task->sample_sets(rng, Split::Train, 128, 10);
    Adam adam(m->params());
    const double ms = median_ms(reps, [&] {
      m->params().zero_grad();
      m->forward(b, true, nullptr, 0.f);
      m->backward();
      adam.step(1e-3f);
      kt.synchronize();
    });
    rows.push_back({"ptr-net train step (hidden 128, n 10, batch 128)", ms, reps});
  }
  return rows;
}

}  // namespace attnlab
