// Times every CUDA kernel-table entry at the shapes of one base-model training batch
// (R = B*T tokens, C = 512, d_ff 2048, h 8, V = 37000) and prints TFLOP/s for GEMMs and GB/s
// for the memory-bound kernels, one line each. Built only with -DATTNLAB_CUDA=ON; run by
// scripts/gpu-check.sh. Usage: attnlab_cuda_bench [tokens=12288] [len=96]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "kernels/kernels.hpp"

using namespace attnlab;

namespace {

double time_ms(const KernelTable& k, const std::function<void()>& f, int reps = 20) {
  f();
  k.synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  k.synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
         reps;
}

float* filled(const KernelTable& k, size_t n, Rng& rng, float std = 1.f) {
  std::vector<float> h(n);
  for (auto& x : h) x = rng.normal() * std;
  float* d = static_cast<float*>(k.alloc(n * sizeof(float)));
  k.upload(d, h.data(), n * sizeof(float));
  return d;
}

void report(const std::string& what, double ms, double flops, double bytes) {
  std::printf("%-44s %8.3f ms", what.c_str(), ms);
  if (flops > 0) std::printf("  %7.1f TFLOP/s", flops / ms / 1e9);
  if (bytes > 0) std::printf("  %7.1f GB/s", bytes / ms / 1e6);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const KernelTable* gpu = cuda_kernels();
  if (!gpu) {
    std::printf("no CUDA device: nothing to time\n");
    return 0;
  }
  const KernelTable& k = *gpu;
  const int R = argc > 1 ? std::atoi(argv[1]) : 12288, T = argc > 2 ? std::atoi(argv[2]) : 96;
  const int C = 512, F = 2048, H = 8, V = 37000, B = R / T;
  Rng rng(0);
  float* x = filled(k, size_t(R) * F, rng);
  float* w = filled(k, size_t(F) * C, rng, 0.02f);
  float* y = filled(k, size_t(R) * F, rng);
  float* big = filled(k, size_t(R) * V, rng);  // logits; also attention scores [B*H*T, T]
  float* wv = filled(k, size_t(V) * C, rng, 0.02f);
  float* vec = filled(k, size_t(F), rng);  // gamma/beta [C] or bias [F]
  float* stats = filled(k, size_t(R) * 2, rng);
  std::vector<int32_t> tgt_h(R);
  for (auto& t : tgt_h) t = int32_t(rng.below(V));
  int32_t* tgt = static_cast<int32_t*>(k.alloc(R * sizeof(int32_t)));
  k.upload(tgt, tgt_h.data(), R * sizeof(int32_t));
  std::printf("CUDA kernel table at base-model shapes: R=%d tokens, C=%d, d_ff=%d, V=%d\n", R, C, F,
              V);
  const double f4 = 4.0;  // bytes per float

  report("gemm  [R,C] x [C,F]  (FFN up)",
         time_ms(k, [&] { k.gemm(false, false, R, F, C, 1.f, x, C, w, F, 0.f, y, F); }),
         2.0 * R * F * C, 0);
  report("gemm  [R,F] x [F,C]  (FFN down)",
         time_ms(k, [&] { k.gemm(false, false, R, C, F, 1.f, y, F, w, C, 0.f, x, C); }),
         2.0 * R * F * C, 0);
  report("gemm  [R,C] x [V,C]^T  (logits)",
         time_ms(k, [&] { k.gemm(false, true, R, V, C, 1.f, x, C, wv, C, 0.f, big, V); }),
         2.0 * R * V * C, 0);
  report("gemm  [C,R] x [R,V]  (dW of logits)",
         time_ms(k, [&] { k.gemm(true, false, C, V, R, 1.f, x, C, big, V, 0.f, wv, V); }),
         2.0 * R * V * C, 0);
  const int hs = C / H;
  report("gemm_batched QK^T  [B*H] x [T,hs][hs,T]",
         time_ms(k,
                 [&] {
                   k.gemm_batched(false, true, T, T, hs, 1.f, x, hs, long(T) * hs, y, hs,
                                  long(T) * hs, 0.f, big, T, long(T) * T, B * H);
                 }),
         2.0 * B * H * T * T * hs, 0);
  const double sbytes = 2.0 * f4 * B * H * T * T;
  report("softmax_forward causal [B*H*T, T]",
         time_ms(k, [&] { k.softmax_forward(big, big, 0.125f, nullptr, true, B, H, T, T); }), 0,
         sbytes);
  report("softmax_backward [B*H*T, T]",
         time_ms(k, [&] { k.softmax_backward(big, big, big, 0.125f, B * H * T, T); }), 0,
         1.5 * sbytes);
  report("layernorm_forward [R,C]",
         time_ms(k, [&] { k.layernorm_forward(y, stats, stats + R, x, vec, vec, 1e-5f, R, C); }), 0,
         2.0 * f4 * R * C);
  report("layernorm_backward [R,C]",
         time_ms(k, [&] { k.layernorm_backward(y, vec, vec, x, x, stats, stats + R, vec, R, C); }),
         0, 3.0 * f4 * R * C);
  report("bias_act_forward GELU [R,F]",
         time_ms(k, [&] { k.bias_act_forward(y, x, y, w, Act::GELU, R, F); }), 0, 3.0 * f4 * R * F);
  report("bias_act_backward GELU [R,F]",
         time_ms(k, [&] { k.bias_act_backward(y, vec, y, x, Act::GELU, R, F); }), 0,
         3.0 * f4 * R * F);
  report("cross_entropy smoothing 0.1 [R,V]",
         time_ms(k, [&] { k.cross_entropy(stats, big, big, tgt, 0.1f, -1, 1.f / R, R, V); }), 0,
         2.0 * f4 * R * V);
  const long P = long(V) * C;
  report("adam [V*C params]",
         time_ms(k, [&] { k.adam(wv, y, x, wv, P, 1e-4f, 0.9f, 0.98f, 1e-9f, 0.f, 1); }), 0,
         7.0 * f4 * P);
  float out = 0;
  report("sumsq [V*C]", time_ms(k, [&] { k.sumsq(&out, wv, P); }), 0, f4 * P);
  for (void* p : {static_cast<void*>(x), static_cast<void*>(w), static_cast<void*>(y),
                  static_cast<void*>(big), static_cast<void*>(wv), static_cast<void*>(vec),
                  static_cast<void*>(stats), static_cast<void*>(tgt)})
    k.release(p);
  return 0;
}
