// Timed kernel calls shared by the native benchmark (bench/) and the wasm one (Embind,
// cpp/bindings/bench_bind.cpp), so both builds time the same code the same way: calls are
// timed in rounds for at least `min_seconds` (after one warm-up call) and the fastest round's
// mean per call is reported. Arguments are checked (attnlab::Error).
#pragma once
#include <vector>

namespace attnlab::api {

// GFLOP/s of the CPU table's gemm (batch == 1) or gemm_batched on random operands,
// 2*M*N*K*batch flops per call; the current num_threads() is used.
double bench_gemm(int M, int N, int K, bool transA, bool transB, int batch, double min_seconds);

// One GEMM problem on random operands, computed once per run() call: for timing the engine
// through a caller's own per-call layer (JS calling into wasm once per product, as a JS
// library's matMul is called), beside bench_gemm's timing inside the engine.
class GemmProblem {
 public:
  GemmProblem(int M, int N, int K, bool transA, bool transB, int batch);
  void run();
  double flops() const { return 2.0 * M_ * N_ * K_ * batch_; }

 private:
  int M_, N_, K_, batch_;
  bool transA_, transB_;
  std::vector<float> A_, B_, C_;
};

// GFLOP/s of independent vector arithmetic chains on one thread: the machine's SIMD peak as
// this build sees it, the larger of separate mul and add chains and (where the build has a
// fused multiply-add: natively, and the relaxed-SIMD wasm build) FMA chains, each the best of a
// sweep over the number of chains (8..24), so that latency x pipes is covered whatever the
// CPU. The GEMM's own register tile on L1-resident panels (kernels::cpu::gemm_tile_run) is
// measured too and the bound is the largest of the three: a compiler may schedule a kernel better
// than separate chains (V8 spills chain accumulators that a GEMM tile keeps in registers), and
// no GEMM runs faster than its inner loop without memory traffic. `gflops` is that bound,
// `chains` the winning chain count (0 when the tile won); fma_gflops is 0 without FMA.
struct PeakResult {
  double gflops;
  int chains;
  double mul_add_gflops;
  int mul_add_chains;
  double fma_gflops;
  int fma_chains;
  double tile_gflops;
};
PeakResult bench_simd_peak_sweep(double min_seconds);
double bench_simd_peak(double min_seconds);  // bench_simd_peak_sweep(...).gflops

// Milliseconds per kernels::attention_forward call for q, k, v of [B,H,T|S,D].
double bench_attention(int B, int H, int T, int S, int D, bool causal, double min_seconds);

}  // namespace attnlab::api
