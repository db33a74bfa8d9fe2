// Embind registration of the wasm benchmarks (cpp/bench/bench.hpp), timed inside WebAssembly:
//   benchGemm(M, N, K, transA, transB, batch, minSeconds) -> GFLOP/s
//   benchSimdPeak(minSeconds) -> GFLOP/s, the one-core bound (api::bench_simd_peak_sweep)
//   benchSimdPeakParts(minSeconds) -> {gflops, mulAdd, fma, tile}: the bound and its parts
//   benchAttention(B, H, T, S, D, causal, minSeconds) -> ms per call
//   benchGemmPrepare(M, N, K, transA, transB, batch) -> flops of one product; then
//   benchGemmRun() computes that product once per call (timed from JS, per call, the layer a
//   JS library's matMul is timed through); one prepared problem at a time
// Arguments are checked here (integers, each dimension at most 2^14, the operands within the
// memory budget, at most 60 s) before a buffer is allocated; errors arrive as JS Errors.
#include <emscripten/bind.h>

#include <memory>

#include "bench/bench.hpp"
#include "bindings/convert.hpp"
#include "models/memory.hpp"

using emscripten::val;
using namespace attnlab::bind;

namespace {

constexpr int kMaxDim = 1 << 14;

double seconds_arg(const val& x, const char* what) { return number_arg(x, what, 0, 60); }

double bench_gemm(val M, val N, val K, val transA, val transB, val batch, val min_seconds) {
  return guarded([&] {
    const int m = int_arg(M, "benchGemm: M", 1, kMaxDim),
              n = int_arg(N, "benchGemm: N", 1, kMaxDim),
              k = int_arg(K, "benchGemm: K", 1, kMaxDim),
              b = int_arg(batch, "benchGemm: batch", 1, 4096);
    attnlab::check_alloc(4.0 * b * (double(m) * k + double(k) * n + double(m) * n),
                         "benchGemm: the operands");
    return attnlab::api::bench_gemm(m, n, k, bool_arg(transA, "benchGemm: transA", false),
                                    bool_arg(transB, "benchGemm: transB", false), b,
                                    seconds_arg(min_seconds, "benchGemm: minSeconds"));
  });
}

std::unique_ptr<attnlab::api::GemmProblem> prepared;

double bench_gemm_prepare(val M, val N, val K, val transA, val transB, val batch) {
  return guarded([&] {
    const int m = int_arg(M, "benchGemmPrepare: M", 1, kMaxDim),
              n = int_arg(N, "benchGemmPrepare: N", 1, kMaxDim),
              k = int_arg(K, "benchGemmPrepare: K", 1, kMaxDim),
              b = int_arg(batch, "benchGemmPrepare: batch", 1, 4096);
    attnlab::check_alloc(4.0 * b * (double(m) * k + double(k) * n + double(m) * n),
                         "benchGemmPrepare: the operands");
    prepared.reset();
    prepared = std::make_unique<attnlab::api::GemmProblem>(
        m, n, k, bool_arg(transA, "benchGemmPrepare: transA", false),
        bool_arg(transB, "benchGemmPrepare: transB", false), b);
    return prepared->flops();
  });
}

void bench_gemm_run() {
  guarded([&] {
    if (!prepared) throw JsError(ErrorType::Error, "benchGemmRun: call benchGemmPrepare first");
    prepared->run();
  });
}

double bench_simd_peak(val min_seconds) {
  return guarded([&] {
    return attnlab::api::bench_simd_peak(seconds_arg(min_seconds, "benchSimdPeak: minSeconds"));
  });
}

// {gflops, mulAdd, fma, tile}: the bound and its parts (fma 0 without a fused multiply-add).
val bench_simd_peak_parts(val min_seconds) {
  return guarded([&] {
    const auto p = attnlab::api::bench_simd_peak_sweep(
        seconds_arg(min_seconds, "benchSimdPeakParts: minSeconds"));
    val r = val::object();
    r.set("gflops", p.gflops);
    r.set("mulAdd", p.mul_add_gflops);
    r.set("fma", p.fma_gflops);
    r.set("tile", p.tile_gflops);
    return r;
  });
}

double bench_attention(val B, val H, val T, val S, val D, val causal, val min_seconds) {
  return guarded([&] {
    const int b = int_arg(B, "benchAttention: B", 1, kMaxDim),
              h = int_arg(H, "benchAttention: H", 1, kMaxDim),
              t = int_arg(T, "benchAttention: T", 1, kMaxDim),
              s = int_arg(S, "benchAttention: S", 1, kMaxDim),
              d = int_arg(D, "benchAttention: D", 1, kMaxDim);
    attnlab::check_alloc(4.0 * b * h * (2.0 * t * d + 2.0 * s * d + double(t) * s),
                         "benchAttention: the operands");
    return attnlab::api::bench_attention(b, h, t, s, d,
                                         bool_arg(causal, "benchAttention: causal", false),
                                         seconds_arg(min_seconds, "benchAttention: minSeconds"));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_bench) {
  emscripten::function("benchGemm", &bench_gemm);
  emscripten::function("benchGemmPrepare", &bench_gemm_prepare);
  emscripten::function("benchGemmRun", &bench_gemm_run);
  emscripten::function("benchSimdPeak", &bench_simd_peak);
  emscripten::function("benchSimdPeakParts", &bench_simd_peak_parts);
  emscripten::function("benchAttention", &bench_attention);
}
