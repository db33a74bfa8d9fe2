// Benchmark timing loops (see bench.hpp).
#include "api/bench.hpp"

#include <algorithm>
#include <chrono>
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

double bench_simd_peak(double min_seconds) {
  using simd::fbatch;
  constexpr int kSteps = 4096;
  volatile float one = 1.f, zero = 0.f;  // opaque to the compiler: nothing folds or underflows
  const fbatch m(one), a(zero);
#ifdef __FMA__
  // Fused multiply-add chains: enough of them to cover FMA latency times the FMA pipes.
  constexpr int kChains = 12, kFlopsPerOp = 2;
  fbatch acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = fbatch(float(c));
  auto step = [&] {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = xsimd::fma(acc[c], m, a);
  };
#else
  // No FMA (WASM SIMD128): independent multiply chains and add chains, one flop per lane each,
  // so the mul and add pipes are both kept busy as in the GEMM micro-kernel. 12 chains and the two
  // operands fit the 15 xmm registers V8 allocates on x86 (more would spill).
  constexpr int kChains = 12, kFlopsPerOp = 1;
  fbatch acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = fbatch(float(c));
  auto step = [&] {
#pragma GCC unroll 12
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
