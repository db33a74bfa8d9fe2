// attn bench: milliseconds per training step (forward + backward + Adam) of the
// encoder-decoder at the benchmark configurations, as one JSON object on stdout:
//   S: vocab 32, d_model 64, 4 heads, d_ff 256, 2+2 layers, lengths 16, batch 32
//   M: vocab 32, d_model 128, 4 heads, d_ff 512, 2+2 layers, lengths 32, batch 32
//   base: the paper's base model, vocab 8000 (untied), d_model 512, 8 heads, d_ff 2048,
//         6+6 layers, lengths 32, batch 16
//   de-en: the guide's German-English translator (experiments/translator.mjs): shared vocab 3000
//         with tied target embeddings, d_model 256, 4 heads, d_ff 512, 2+2 layers, lengths 32,
//         batch 64 (its 2,048-token batches)
// Dropout 0, label smoothing 0.1, fixed random tokens; the peer is
// bench/rows/transformer_torch.py. Medians over the timed steps: wall ms per step and its
// forward / backward / update parts (the clip at norm 1 and Adam: adam_ms), and process CPU ms
// per step.
// Under mpirun -np N the step is data-parallel, as `attn train` takes it: every rank runs its
// own batch of the config's size (per rank), and its gradients go through the bucketed
// all-reduce, started during backward (GradientSync::begin / grads_ready) and finished before
// Adam (reduce_ms: the wait after backward). Rank 0 prints the JSON; tokens_per_s counts the
// target tokens of every rank. The peer is bench/peers/torch_ddp.py.
// --thread-split ranks|kernels|both|auto (with --threads N, one process): ranks runs the config's
// batch as N thread ranks (parallel/thread_ranks.hpp: replicas viewing one copy of the weights,
// each on its rank_rows share of the batch, the bucketed sync over a ThreadWorld, then every rank
// clips and updates its shard of the weights, update_shard); kernels splits each kernel call over N
// threads; both runs r ranks that each split their kernel calls over N / r threads; auto (the
// default, as `attn train`'s) takes plan_threads' choice. The JSON says which ("split",
// "thread_ranks", "kernel_threads", "plan"); a thread-rank step's wall time includes starting and
// joining the rank threads.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

#include "cli/commands.hpp"
#include "cli/data_parallel.hpp"
#include "core/check.hpp"
#include "models/model.hpp"
#include "parallel/thread_ranks.hpp"
#include "train/optim.hpp"
#include "train/step.hpp"

namespace attnlab::cli {

int cmd_bench(Args& a) {
  const std::string size = a.str("config", "S");
  AL_CHECK(size == "S" || size == "M" || size == "base" || size == "de-en",
           "--config must be S, M, base or de-en");
  const int threads = a.integer("threads", 1, 1, 256);
  const double seconds = a.number("seconds", 2.0, 0.01, 3600);
  const ThreadSplit split = parse_thread_split(a.str("thread-split", "auto"));
  DataParallelRun dist(a, false);
  a.finish();
  struct Shape {
    int C, L, B, V, H, N, F;  // F: d_ff
    bool tied;
  };
  const Shape sh = size == "S"      ? Shape{64, 16, 32, 32, 4, 2, 256, false}
                   : size == "M"    ? Shape{128, 32, 32, 32, 4, 2, 512, false}
                   : size == "base" ? Shape{512, 32, 16, 8000, 8, 6, 2048, false}
                                    : Shape{256, 32, 64, 3000, 4, 2, 512, true};
  const int C = sh.C, L = sh.L, B = sh.B, V = sh.V, H = sh.H, N = sh.N;
  const nlohmann::json cfg = {{"model", "transformer"},
                              {"src_vocab", V},
                              {"tgt_vocab", V},
                              {"d_model", C},
                              {"heads", H},
                              {"d_ff", sh.F},
                              {"enc_layers", N},
                              {"dec_layers", N},
                              {"dropout", 0.0},
                              {"max_len", L + 1},
                              {"tie_embeddings", sh.tied}};
  const ThreadPlan plan = dist.size() > 1
                              ? plan_threads(threads, ThreadSplit::Kernels, B, 2.0 * B * L, C)
                              : plan_threads(threads, split, B, 2.0 * B * L, C);
  set_num_threads(plan.kernel_threads);
  auto m = make_model(cfg, cpu_kernels(), 1);
  Rng rng(2 + uint64_t(dist.rank()));  // each rank its own tokens
  Batch b;
  b.B = B;
  b.S = b.T = L;
  for (int i = 0; i < B * L; ++i) {
    b.src.push_back(3 + int32_t(rng.below(V - 3)));
    b.tgt_out.push_back(3 + int32_t(rng.below(V - 3)));
    b.tgt_in.push_back(i % L == 0 ? 1 : b.tgt_out.back());
  }
  Adam adam(m->params());
  ParamArena& P = m->params();
  GradientSync* sync = dist.dp().sync;    // null in a world of one
  const int64_t tokens = int64_t(B) * L;  // no pads
  using clock = std::chrono::steady_clock;
  auto ms_since = [](clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  };
  // One step; returns {total, forward, backward, Adam} wall milliseconds, the process CPU
  // milliseconds (all threads), which a shared machine disturbs less, and the reduce wait.
  auto step = [&] {
    const std::clock_t c0 = std::clock();
    const auto t0 = clock::now();
    P.zero_grad();
    if (sync) {
      sync->begin(P, tokens);
      P.set_grads_ready([sync](size_t offset, size_t n) { sync->grads_ready(offset, n); });
    }
    const double loss = m->forward(b, true, &rng, 0.1f);
    const double f = ms_since(t0);
    m->backward();
    const double fb = ms_since(t0);
    if (sync) {
      P.set_grads_ready(nullptr);
      sync->reduce(P, loss, tokens);
    }
    const double fbr = ms_since(t0);
    clip_grad_norm(P, 1.f);  // the trainers' clip, then the step
    adam.step(1e-4f);
    const double all = ms_since(t0);
    const double cpu = 1e3 * double(std::clock() - c0) / CLOCKS_PER_SEC;
    return std::array<double, 6>{all, f, fb - f, all - fbr, cpu, fbr - fb};
  };
  // Thread ranks: replicas on rank_rows shares of the batch, rank 0's step timed as the step.
  const int R = plan.ranks;
  std::unique_ptr<ThreadRanks> ranks;
  std::vector<std::unique_ptr<Model>> replicas;
  std::vector<Batch> shares;
  std::vector<std::unique_ptr<Adam>> replica_adams;  // viewing adam's moments
  std::vector<Adam*> adams;                          // per rank
  if (R > 1) {
    ranks = std::make_unique<ThreadRanks>(R);
    replicas = make_replicas(*m, R - 1);
    adams.push_back(&adam);
    for (auto& rm : replicas) {
      replica_adams.push_back(std::make_unique<Adam>(rm->params(), AdamOptions{}, false));
      replica_adams.back()->view_moments_of(adam);
      adams.push_back(replica_adams.back().get());
    }
    for (int r = 0; r < R; ++r) {
      long first = 0, last = 0;
      rank_rows(B, r, R, &first, &last);
      Batch s;
      s.B = int(last - first);
      s.S = s.T = L;
      auto rows = [&](const std::vector<int32_t>& v) {
        return std::vector<int32_t>(v.begin() + first * L, v.begin() + last * L);
      };
      s.src = rows(b.src);
      s.tgt_in = rows(b.tgt_in);
      s.tgt_out = rows(b.tgt_out);
      shares.push_back(std::move(s));
    }
  }
  auto rank_step = [&] {
    std::array<double, 6> t{};
    const std::clock_t c00 = std::clock();
    const auto t00 = clock::now();
    ranks->run([&](int r) {
      Model& mr = r ? *replicas[size_t(r - 1)] : *m;
      ParamArena& Pr = mr.params();
      GradientSync* s = ranks->dp(r).sync;
      const int64_t n = int64_t(shares[size_t(r)].B) * L;
      const auto t0 = clock::now();
      Pr.zero_grad();
      s->begin(Pr, n);
      Pr.set_grads_ready([s](size_t offset, size_t k) { s->grads_ready(offset, k); });
      const double loss = mr.forward(shares[size_t(r)], true, nullptr, 0.1f);
      const double f = ms_since(t0);
      mr.backward();
      const double fb = ms_since(t0);
      Pr.set_grads_ready(nullptr);
      const double global = s->reduce(Pr, loss, n);
      const double fbr = ms_since(t0);
      // every rank clips and updates its shard, as the trainers' step does
      update_shard(Pr, *adams[size_t(r)], *s, r, R, 1e-4f, 1.f, 1, global);
      if (r == 0) t = {0, f, fb - f, ms_since(t0) - fbr, 0, fbr - fb};
    });
    t[0] = ms_since(t00);
    t[4] = 1e3 * double(std::clock() - c00) / CLOCKS_PER_SEC;
    return t;
  };
  auto any_step = [&] { return R > 1 ? rank_step() : step(); };
  for (int i = 0; i < 3; ++i) any_step();
  std::array<std::vector<double>, 6> ms;
  const auto t0 = clock::now();
  for (;;) {  // every rank stops at the same step (the all-reduces pair them up)
    const auto t = any_step();
    for (size_t k = 0; k < t.size(); ++k) ms[k].push_back(t[k]);
    if (dist.any(ms[0].size() >= 5 && ms_since(t0) >= 1e3 * seconds)) break;
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  if (!dist.root()) return 0;
  const double step_ms = median(ms[0]);
  std::printf("%s\n", nlohmann::json({{"config", size},
                                      {"threads", threads},
                                      {"split", plan.mode},
                                      {"kernel_threads", num_threads()},
                                      {"thread_ranks", R},
                                      {"plan", plan.to_json()},
                                      {"ranks", dist.size()},
                                      {"ms_per_step", step_ms},
                                      {"forward_ms", median(ms[1])},
                                      {"backward_ms", median(ms[2])},
                                      {"adam_ms", median(ms[3])},
                                      {"reduce_ms", median(ms[5])},
                                      {"cpu_ms_per_step", median(ms[4])},
                                      {"steps", ms[0].size()},
                                      {"tokens_per_step", B * L},
                                      {"tokens_per_s", 1e3 * double(B) * L * dist.size() / step_ms},
                                      {"params", m->params().total()}})
                          .dump()
                          .c_str());
  return 0;
}

}  // namespace attnlab::cli
