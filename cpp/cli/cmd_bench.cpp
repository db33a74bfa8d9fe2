// attn bench: milliseconds per training step (forward + backward + Adam) of the
// encoder-decoder at the benchmark configurations, as one JSON object on stdout:
//   S: vocab 32, d_model 64, 4 heads, d_ff 256, 2+2 layers, lengths 16, batch 32
//   M: vocab 32, d_model 128, 4 heads, d_ff 512, 2+2 layers, lengths 32, batch 32
//   base: the paper's base model, vocab 8000 (untied), d_model 512, 8 heads, d_ff 2048,
//         6+6 layers, lengths 32, batch 16
// Dropout 0, label smoothing 0.1, fixed random tokens; the peer is
// scripts/bench/transformer_torch.py.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cli/commands.hpp"
#include "core/check.hpp"
#include "models/model.hpp"
#include "train/optim.hpp"

namespace attnlab::cli {

int cmd_bench(Args& a) {
  const std::string size = a.str("config", "S");
  AL_CHECK(size == "S" || size == "M" || size == "base", "--config must be S, M or base");
  const int threads = a.integer("threads", 1, 1, 256);
  const double seconds = a.number("seconds", 2.0, 0.01, 3600);
  a.finish();
  set_num_threads(threads);
  const bool base = size == "base";
  const int C = base ? 512 : size == "S" ? 64 : 128, L = size == "S" ? 16 : 32;
  const int B = base ? 16 : 32, V = base ? 8000 : 32, H = base ? 8 : 4, N = base ? 6 : 2;
  const nlohmann::json cfg = {{"model", "transformer"}, {"src_vocab", V}, {"tgt_vocab", V},
                              {"d_model", C}, {"heads", H}, {"d_ff", 4 * C}, {"enc_layers", N},
                              {"dec_layers", N}, {"dropout", 0.0}, {"max_len", L + 1}};
  auto m = make_model(cfg, cpu_kernels(), 1);
  Rng rng(2);
  Batch b;
  b.B = B;
  b.S = b.T = L;
  for (int i = 0; i < B * L; ++i) {
    b.src.push_back(3 + int32_t(rng.below(V - 3)));
    b.tgt_out.push_back(3 + int32_t(rng.below(V - 3)));
    b.tgt_in.push_back(i % L == 0 ? 1 : b.tgt_out.back());
  }
  Adam adam(m->params());
  auto step = [&] {
    m->params().zero_grad();
    m->forward(b, true, &rng, 0.1f);
    m->backward();
    adam.step(1e-4f);
  };
  for (int i = 0; i < 3; ++i) step();
  std::vector<double> ms;
  const auto t0 = std::chrono::steady_clock::now();
  while (ms.size() < 5 ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    const auto s = std::chrono::steady_clock::now();
    step();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%s\n", nlohmann::json({{"config", size}, {"threads", num_threads()},
                                      {"ms_per_step", ms[ms.size() / 2]}, {"steps", ms.size()},
                                      {"params", m->params().total()}}).dump().c_str());
  return 0;
}

}  // namespace attnlab::cli
