// Benchmark timing loops (see bench.hpp).
#include "bench/bench.hpp"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/rng.hpp"
#include "kernels/attention.hpp"
#include "kernels/cpu.hpp"
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

GemmProblem::GemmProblem(int M, int N, int K, bool transA, bool transB, int batch)
    : M_(M), N_(N), K_(K), batch_(batch), transA_(transA), transB_(transB) {
  AL_CHECK(M > 0 && N > 0 && K > 0 && batch > 0,
           "GemmProblem: sizes must be positive (M=" << M << " N=" << N << " K=" << K
                                                     << " batch=" << batch << ")");
  Rng rng(1);
  A_ = random_vector(size_t(M) * K * batch, rng);
  B_ = random_vector(size_t(K) * N * batch, rng);
  C_.resize(size_t(M) * N * batch);
}

void GemmProblem::run() {
  const int lda = transA_ ? M_ : K_, ldb = transB_ ? K_ : N_;
  const KernelTable& k = cpu_kernels();
  if (batch_ == 1)
    k.gemm(transA_, transB_, M_, N_, K_, 1.f, A_.data(), lda, B_.data(), ldb, 0.f, C_.data(), N_);
  else
    k.gemm_batched(transA_, transB_, M_, N_, K_, 1.f, A_.data(), lda, long(M_) * K_, B_.data(), ldb,
                   long(K_) * N_, 0.f, C_.data(), N_, long(M_) * N_, batch_);
}

namespace {

// kChains independent dependency chains, kSteps ops each per call. kFused: every chain is a
// fused multiply-add chain (FMA natively, relaxed_madd in the relaxed-SIMD wasm build; 2 flops
// per lane per op). Otherwise half the chains multiply and half add (1 flop per lane per op),
// the mix a GEMM micro-kernel without FMA issues (WASM SIMD128), so CPUs with separate multiply
// and add pipes (AMD Zen: two of each; Intel Golden Cove: extra add units) are measured with
// both busy. A chain's next op waits for its previous one, so a peak needs chains >= latency x
// pipes; too many spill registers. bench_simd_peak_sweep sweeps kChains and both kinds.
template <int kChains, bool kFused>
double chains_gflops(double min_seconds) {
  using simd::fbatch;
  constexpr int kSteps = 2048;
  volatile float one = 1.f, zero = 0.f;  // opaque to the compiler: nothing folds or underflows
  const fbatch m(one), a(zero);
  fbatch acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = fbatch(float(c));
  constexpr int kFlopsPerOp = kFused ? 2 : 1;
  auto step = [&] {
    if constexpr (kFused) {
#pragma GCC unroll 32
      for (int c = 0; c < kChains; ++c) acc[c] = simd::madd(acc[c], m, a);
    } else {
#pragma GCC unroll 32
      for (int c = 0; c < kChains; c += 2) {
        acc[c] = acc[c] * m;
        acc[c + 1] = acc[c + 1] + a;
      }
    }
  };
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

// The build has a fused multiply-add instruction (simd::madd is one op, not a mul and an add).
#if defined(__FMA__) || defined(__AVX512F__) || defined(__ARM_FEATURE_FMA) || \
    defined(ATTNLAB_RELAXED_SIMD)
constexpr bool kHasFma = true;
#else
constexpr bool kHasFma = false;
#endif

// The best of 8..24 chains of one kind: {GFLOP/s, chains}.
template <bool kFused>
std::pair<double, int> sweep(double t) {
  const std::pair<int, double> runs[] = {{8, chains_gflops<8, kFused>(t)},
                                         {12, chains_gflops<12, kFused>(t)},
                                         {16, chains_gflops<16, kFused>(t)},
                                         {20, chains_gflops<20, kFused>(t)},
                                         {24, chains_gflops<24, kFused>(t)}};
  std::pair<double, int> best{0, 0};
  for (const auto& [chains, g] : runs)
    if (g > best.first) best = {g, chains};
  return best;
}

}  // namespace

PeakResult bench_simd_peak_sweep(double min_seconds) {
  // 8..24 chains: covers latency 4 x 2 pipes (FMA), latency 3 x 4 pipes (Zen's 2 mul + 2 add
  // pipes in SIMD128) and beyond. Both mul+add chains and, where the build has one, FMA chains
  // are measured, and the GEMM's register tile on L1 data; the largest is the peak, so that it
  // bounds kernels of either kind on any CPU: on Intel cores mul+add chains reach half the FMA
  // rate, and in node V8 spills a dozen chain accumulators (SIMD128 mul+add chains 37.6 GFLOP/s
  // on an AVX-512 EPYC, relaxed chains 52.6) while the GEMM's 4 x 8 tile stays in registers
  // (55.9). Each count is timed for a share of the time, the sweep twice (the first pass also
  // warms the clock up).
  PeakResult r{0, 0, 0, 0, 0, 0, 0};
  const int kinds = kHasFma ? 2 : 1;
  const double t = min_seconds / (10 * kinds);
  for (int pass = 0; pass < 2; ++pass) {
    const auto mul_add = sweep<false>(t);
    if (mul_add.first > r.mul_add_gflops) std::tie(r.mul_add_gflops, r.mul_add_chains) = mul_add;
    if constexpr (kHasFma) {
      const auto fused = sweep<true>(t);
      if (fused.first > r.fma_gflops) std::tie(r.fma_gflops, r.fma_chains) = fused;
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    double flops = 0;
    const double s = time_per_call([&] { flops = kernels::cpu::gemm_tile_run(16); }, 2 * t);
    r.tile_gflops = std::max(r.tile_gflops, flops / s * 1e-9);
  }
  const bool fma_wins = r.fma_gflops > r.mul_add_gflops;
  r.gflops = fma_wins ? r.fma_gflops : r.mul_add_gflops;
  r.chains = fma_wins ? r.fma_chains : r.mul_add_chains;
  if (r.tile_gflops > r.gflops) {
    r.gflops = r.tile_gflops;
    r.chains = 0;
  }
  return r;
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
