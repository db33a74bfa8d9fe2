// Benchmark timing loops (see bench.hpp).
#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/rng.hpp"
#include "kernels/attention.hpp"
#include "kernels/kernels.hpp"
#include "kernels/simd.hpp"

namespace attnlab::api {

namespace {

std::vector<float> random_vector(size_t n, Rng& rng) {
  std::vector<float> v(n);
  for (auto& x : v) x = rng.uniform(-1.f, 1.f);
  return v;
}

// Seconds per call of f(): after one warm-up call, calls are timed in rounds of >= 2 ms until
// min_seconds have passed, and the fastest round's mean is returned (the least disturbed by
// other processes on a shared machine).
template <class F>
double time_per_call(F&& f, double min_seconds) {
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  f();
  const auto start = clock::now();
  double best = 1e30;
  do {
    long calls = 0;
    const auto t0 = clock::now();
    double round = 0;
    do {
      f();
      ++calls;
      round = since(t0);
    } while (round < 0.002);
    best = std::min(best, round / calls);
  } while (since(start) < min_seconds);
  return best;
}

}  // namespace

double bench_gemm(int M, int N, int K, bool transA, bool transB, int batch, double min_seconds) {
  AL_CHECK(M > 0 && N > 0 && K > 0 && batch > 0,
           "bench_gemm: sizes must be positive (M=" << M << " N=" << N << " K=" << K
                                                    << " batch=" << batch << ")");
  Rng rng(1);
  const long sA = long(M) * K, sB = long(K) * N, sC = long(M) * N;
  const auto A = random_vector(size_t(sA) * batch, rng), B = random_vector(size_t(sB) * batch, rng);
  std::vector<float> C(size_t(sC) * batch);
  const int lda = transA ? M : K, ldb = transB ? K : N;
  const KernelTable& k = cpu_kernels();
  const double s = time_per_call(
      [&] {
        if (batch == 1)
          k.gemm(transA, transB, M, N, K, 1.f, A.data(), lda, B.data(), ldb, 0.f, C.data(), N);
        else
          k.gemm_batched(transA, transB, M, N, K, 1.f, A.data(), lda, sA, B.data(), ldb, sB, 0.f,
                         C.data(), N, sC, batch);
      },
      min_seconds);
  return 2.0 * M * N * K * batch / s * 1e-9;
}

namespace {

// kChains independent dependency chains of the build's multiply-add, kSteps times per call.
// Natively (FMA) and in the relaxed-SIMD wasm build (relaxed_madd): every chain is a fused
// multiply-add chain (2 flops per lane per op). WASM SIMD128 has no
// FMA: half the chains multiply and half add (1 flop per lane per op), the mix the GEMM
// micro-kernel issues, so CPUs with separate multiply and add pipes (AMD Zen: two of each)
// are measured with both busy. A chain's next op waits for its previous one, so a peak needs
// chains >= latency x pipes; too many spill registers. bench_simd_peak sweeps kChains.
template <int kChains>
double chains_gflops(double min_seconds) {
  using simd::fbatch;
  constexpr int kSteps = 2048;
  volatile float one = 1.f, zero = 0.f;  // opaque to the compiler: nothing folds or underflows
  const fbatch m(one), a(zero);
  fbatch acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = fbatch(float(c));
#if defined(__FMA__) || defined(ATTNLAB_RELAXED_SIMD)
  constexpr int kFlopsPerOp = 2;
  auto step = [&] {
#pragma GCC unroll 32
    for (int c = 0; c < kChains; ++c) acc[c] = simd::madd(acc[c], m, a);
  };
#else
  constexpr int kFlopsPerOp = 1;
  auto step = [&] {
#pragma GCC unroll 32
    for (int c = 0; c < kChains; c += 2) {
      acc[c] = acc[c] * m;
      acc[c + 1] = acc[c + 1] + a;
    }
  };
#endif
  const double s = time_per_call(
      [&] {
        for (int i = 0; i < kSteps; ++i) step();
      },
      min_seconds);
  fbatch total(0.f);
  for (int c = 0; c < kChains; ++c) total += acc[c];
  volatile float sink = xsimd::hadd(total);
  (void)sink;
  return double(kFlopsPerOp) * simd::W * kChains * kSteps / s * 1e-9;
}

}  // namespace

PeakResult bench_simd_peak_sweep(double min_seconds) {
  // 8..24 chains: covers latency 4 x 2 pipes (FMA), latency 3 x 4 pipes (Zen's 2 mul + 2 add
  // pipes in SIMD128) and beyond; the best one is the peak. Each is timed for a share of the
  // time, the sweep twice (the first pass also warms the clock up).
  PeakResult best{0, 0};
  const double t = min_seconds / 10;
  for (int pass = 0; pass < 2; ++pass) {
    const std::pair<int, double> runs[] = {{8, chains_gflops<8>(t)},
                                           {12, chains_gflops<12>(t)},
                                           {16, chains_gflops<16>(t)},
                                           {20, chains_gflops<20>(t)},
                                           {24, chains_gflops<24>(t)}};
    for (const auto& [chains, g] : runs)
      if (g > best.gflops) best = {g, chains};
  }
  return best;
}

double bench_simd_peak(double min_seconds) { return bench_simd_peak_sweep(min_seconds).gflops; }

double bench_attention(int B, int H, int T, int S, int D, bool causal, double min_seconds) {
  AL_CHECK(B > 0 && H > 0 && T > 0 && S > 0 && D > 0, "bench_attention: sizes must be positive");
  Rng rng(2);
  const size_t bh = size_t(B) * H;
  const auto q = random_vector(bh * T * D, rng), k = random_vector(bh * S * D, rng),
             v = random_vector(bh * S * D, rng);
  std::vector<float> out(bh * T * D), att(bh * T * S);
  const double s = time_per_call(
      [&] {
        kernels::attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), nullptr,
                                   causal, B, H, T, S, D, D);
      },
      min_seconds);
  return s * 1e3;
}

}  // namespace attnlab::api
