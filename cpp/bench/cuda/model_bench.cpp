// Training-step throughput of attnlab's encoder-decoder Transformer at the paper's base size
// (or big), the counterpart of bench/peers/torch_transformer_gpu.py: same batch (B
// sentences of `len` tokens each side), shared 37k vocabulary, label smoothing 0.1, Adam; prints
// target tokens/s and model FLOP utilisation with the same FLOP count as the PyTorch script. Usage:
// attnlab_model_bench [--device cuda|cpu] [--preset base|big|translator] [--batch 128] [--len 96]
//                            [--steps 20] [--warmup 3] [--threads N] [--peak-tflops 989]
// translator: the page's translator recipe (experiments/lib/translate-run.mjs: 2+2 layers,
// d_model 256, 4 heads, d_ff 512, 3,000-token vocabulary, dropout 0.3), run at 64 x 32 tokens
// (its 2,048-token batches) by scripts/gpu-check.sh.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/check.hpp"
#include "cuda/device.hpp"
#include "models/model.hpp"
#include "train/optim.hpp"

using namespace attnlab;

int main(int argc, char** argv) {
  std::string device = "cuda", preset = "base";
  int B = 128, L = 96, steps = 20, warmup = 3, threads = 1, V = 0;
  double peak = 989.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--device")
      device = v;
    else if (k == "--preset")
      preset = v;
    else if (k == "--batch")
      B = std::atoi(v.c_str());
    else if (k == "--len")
      L = std::atoi(v.c_str());
    else if (k == "--steps")
      steps = std::atoi(v.c_str());
    else if (k == "--warmup")
      warmup = std::atoi(v.c_str());
    else if (k == "--threads")
      threads = std::atoi(v.c_str());
    else if (k == "--vocab")
      V = std::atoi(v.c_str());
    else if (k == "--peak-tflops")
      peak = std::atof(v.c_str());
    else {
      std::fprintf(stderr, "unknown flag %s\n", k.c_str());
      return 2;
    }
  }
  const KernelTable* kt = device == "cpu" ? &cpu_kernels() : cuda_kernels();
  if (!kt) {
    std::printf("no CUDA device: no attnlab model timing\n");
    return 0;
  }
  set_num_threads(threads);
  const bool big = preset == "big", translator = preset == "translator";
  if (!big && !translator && preset != "base") {
    std::fprintf(stderr, "unknown preset %s (base, big, translator)\n", preset.c_str());
    return 2;
  }
  const int C = big          ? 1024
                : translator ? 256
                             : 512,
            F = big          ? 4096
                : translator ? 512
                             : 2048,
            H = big          ? 16
                : translator ? 4
                             : 8,
            N = translator ? 2 : 6;
  if (V <= 0) V = translator ? 3000 : 37000;
  const nlohmann::json cfg = {{"model", "transformer"},
                              {"src_vocab", V},
                              {"tgt_vocab", V},
                              {"d_model", C},
                              {"heads", H},
                              {"d_ff", F},
                              {"enc_layers", N},
                              {"dec_layers", N},
                              {"dropout", big || translator ? 0.3 : 0.1},
                              {"max_len", L + 2},
                              {"tie_embeddings", true}};
  try {
    auto model = make_model(cfg, *kt, 1);
    Adam adam(model->params());
    Rng data(7), dropout(8);
    Batch b;
    b.B = B;
    b.S = L;
    b.T = L;
    for (int i = 0; i < B * L; ++i) {
      b.src.push_back(3 + int(data.below(uint32_t(V - 3))));
      b.tgt_in.push_back(i % L == 0 ? 1 : 3 + int(data.below(uint32_t(V - 3))));
      b.tgt_out.push_back(3 + int(data.below(uint32_t(V - 3))));
    }
    double loss = 0;
    auto step = [&] {
      model->params().zero_grad();
      loss = model->forward(b, true, &dropout, 0.1f);
      model->backward();
      adam.step(1e-4f);
    };
    for (int i = 0; i < warmup; ++i) step();
    kt->synchronize();
    const long calls0 = cuda::gemm_calls();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i) step();
    kt->synchronize();
    const double dt =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / steps;
    // cuBLAS calls per step (attention's batch x heads products are one call each); 0 on the CPU
    const long gemm_calls = (cuda::gemm_calls() - calls0) / (steps > 0 ? steps : 1);
    // Same count as the PyTorch script: 3 x forward matmul FLOPs (dense layers, tied output
    // projection, attention products).
    const double enc = N * (4.0 * C * C + 2.0 * C * F), dec = N * (8.0 * C * C + 2.0 * C * F);
    const double tok = double(B) * L;
    const double dense = 2 * (enc * tok + dec * tok + double(C) * V * tok);
    const double attn = 2.0 * 2 * B * double(L) * L * C * N * 3;
    const double tflops = 3 * (dense + attn) / dt / 1e12;
    std::printf(
        "attnlab device=%s preset=%s batch=%d len=%d step_ms=%.1f tgt_tokens_per_s=%.0f "
        "tflops=%.2f mfu=%.1f%% loss=%.3f params=%ld gemm_calls_per_step=%ld\n",
        kt->name, preset.c_str(), B, L, dt * 1e3, tok / dt, tflops, 100 * tflops / peak, loss,
        model->params().total(), gemm_calls);
  } catch (const Error& e) {
    std::fprintf(stderr, "attnlab_model_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
