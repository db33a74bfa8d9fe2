// Embind registration of the wasm benchmarks (cpp/api/bench.hpp), timed inside WebAssembly:
//   benchGemm(M, N, K, transA, transB, batch, minSeconds) -> GFLOP/s
//   benchSimdPeak(minSeconds) -> GFLOP/s of SIMD128 mul+add chains
//   benchAttention(B, H, T, S, D, causal, minSeconds) -> ms per call
#include <emscripten/bind.h>

#include "api/bench.hpp"

EMSCRIPTEN_BINDINGS(attnlab_bench) {
  emscripten::function("benchGemm", &attnlab::api::bench_gemm);
  emscripten::function("benchSimdPeak", &attnlab::api::bench_simd_peak);
  emscripten::function("benchAttention", &attnlab::api::bench_attention);
}
