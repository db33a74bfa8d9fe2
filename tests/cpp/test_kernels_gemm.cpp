// GEMM and strided-batched GEMM of the CPU table vs. the reference loops: all four transpose
// variants, tiny and odd sizes, sizes that cross every cache block, padded leading dimensions
// (4 KiB row strides included), alpha/beta (beta == 0 must not read C), and bitwise
// determinism across thread counts, on shapes large enough to be split (row stripes sharing one
// packed B, or column stripes) in awkward ways.
#include <cstring>
#include <initializer_list>
#include <string>

#include "kernel_check.hpp"
#include "kernels/kernels.hpp"
#include "kernels/reference.hpp"
#include "kernels/threads.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

struct Case {
  int M, N, K;
};

// Runs the CPU gemm and the reference on the same random operands and compares. A float sum
// of K products carries rounding relative to sum_k |a_ik b_kj|, not to the (possibly
// cancelling) result, so the bound is kKernelRel times that magnitude.
// With `threads`, the CPU gemm runs once per thread count (the pool's balance reset first, so
// that it does use them) and every run must give the bits of the first.
void check_gemm(bool ta, bool tb, Case c, float alpha, float beta, Rng& rng, int pad = 0,
                std::initializer_list<int> threads = {}) {
  const int lda = (ta ? c.M : c.K) + pad, ldb = (tb ? c.K : c.N) + pad, ldc = c.N + pad;
  const auto A = randv(size_t(ta ? c.K : c.M) * lda, rng);
  const auto B = randv(size_t(tb ? c.N : c.K) * ldb, rng);
  auto C0 = randv(size_t(c.M) * ldc, rng);
  if (beta == 0.f) C0.assign(C0.size(), NAN);  // must not be read
  auto got = C0, want = C0;
  auto run = [&](std::vector<float>& out) {
    cpu_kernels().gemm(ta, tb, c.M, c.N, c.K, alpha, A.data(), lda, B.data(), ldb, beta, out.data(),
                       ldc);
  };
  if (threads.size() == 0) run(got);
  for (const int t : threads) {
    auto out = C0;
    with_threads(t, [&] {
      threads::reset_balance();
      run(out);
    });
    if (t == *threads.begin()) {
      got = out;
    } else {
      INFO("gemm ta=" << ta << " tb=" << tb << " M=" << c.M << " N=" << c.N << " K=" << c.K << ": "
                      << t << " threads vs. " << *threads.begin());
      REQUIRE(std::memcmp(out.data(), got.data(), out.size() * sizeof(float)) == 0);
    }
  }
  kernels::ref::gemm(ta, tb, c.M, c.N, c.K, alpha, A.data(), lda, B.data(), ldb, beta, want.data(),
                     ldc);
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j) {
      double mag = 0;
      for (int k = 0; k < c.K; ++k) {
        const float a = ta ? A[size_t(k) * lda + i] : A[size_t(i) * lda + k];
        const float b = tb ? B[size_t(j) * ldb + k] : B[size_t(k) * ldb + j];
        mag += std::fabs(double(a) * b);
      }
      const size_t o = size_t(i) * ldc + j;
      mag = std::fabs(alpha) * mag + (beta == 0.f ? 0.0 : std::fabs(double(beta) * C0[o]));
      const bool ok = std::fabs(double(got[o]) - want[o]) <= kKernelRel * mag + kKernelAbs;
      if (!ok) {
        INFO("gemm ta=" << ta << " tb=" << tb << " M=" << c.M << " N=" << c.N << " K=" << c.K
                        << " alpha=" << alpha << " beta=" << beta << " pad=" << pad << " at (" << i
                        << "," << j << "): got " << got[o] << " want " << want[o]);
        REQUIRE(ok);
      }
    }
  for (int i = 0; i < c.M; ++i)  // padding columns untouched
    for (int j = c.N; j < ldc; ++j) {
      const size_t o = size_t(i) * ldc + j;
      REQUIRE((got[o] == C0[o] || (std::isnan(got[o]) && std::isnan(C0[o]))));
    }
}

}  // namespace

TEST_CASE("gemm: named odd sizes, all transposes", "[kernels][gemm]") {
  Rng rng(11);
  const Case cases[] = {{1, 1, 1},   {7, 13, 5},   {1, 512, 1}, {512, 1, 1},
                        {1, 1, 512}, {33, 65, 17}, {2, 3, 1},   {16, 16, 16}};
  for (const Case& c : cases)
    for (int t = 0; t < 4; ++t) {
      check_gemm(t & 1, t & 2, c, 1.f, 0.f, rng);
      check_gemm(t & 1, t & 2, c, 0.5f, 1.5f, rng, 3);
    }
}

TEST_CASE("gemm: random shapes crossing the cache blocks", "[kernels][gemm]") {
  Rng rng(12);
  for (int it = 0; it < 24; ++it) {
    const Case c{1 + int(rng.below(150)), 1 + int(rng.below(150)), 1 + int(rng.below(300))};
    check_gemm(rng.below(2), rng.below(2), c, rng.uniform(-2.f, 2.f),
               it % 3 == 0 ? 0.f : rng.uniform(-1.f, 1.f), rng, int(rng.below(4)));
  }
  for (int t = 0; t < 4; ++t) {
    check_gemm(t & 1, t & 2, {200, 70, 530}, 1.f, 1.f, rng);   // several K and M blocks
    check_gemm(t & 1, t & 2, {3, 2100, 9}, 1.f, 0.f, rng, 1);  // more than one N block
    // a plain A with rows 4 KiB apart (lda 1024) is copied to a padded block first
    check_gemm(t & 1, t & 2, {131, 70, 700}, 0.7f, 1.f, rng, 1024 - 700);
  }
}

TEST_CASE("gemm: K == 0 and alpha == 0 scale C by beta", "[kernels][gemm]") {
  Rng rng(13);
  for (int t = 0; t < 4; ++t) {
    check_gemm(t & 1, t & 2, {5, 9, 0}, 1.f, 0.5f, rng);
    check_gemm(t & 1, t & 2, {5, 9, 0}, 1.f, 0.f, rng);
    check_gemm(t & 1, t & 2, {6, 4, 7}, 0.f, 2.f, rng);
  }
}

TEST_CASE("gemm: same bits for every thread count", "[kernels][gemm]") {
  Rng rng(14);
  for (const Case c : {Case{257, 130, 140}, Case{40, 300, 200}}) {
    const auto A = randv(size_t(c.M) * c.K, rng), B = randv(size_t(c.K) * c.N, rng);
    std::vector<float> c1(size_t(c.M) * c.N), c2 = c1, c3 = c1;
    auto run = [&](std::vector<float>& C) {
      cpu_kernels().gemm(false, true, c.M, c.N, c.K, 1.f, A.data(), c.K, B.data(), c.K, 0.f,
                         C.data(), c.N);
    };
    with_threads(1, [&] { run(c1); });
    with_threads(2, [&] { run(c2); });
    with_threads(3, [&] { run(c3); });
    CHECK(c1 == c2);
    CHECK(c1 == c3);
  }
}

// Each shape has at least 4 MFLOP, enough for two threads (kernels/gemm.cpp kGrainFlops).
TEST_CASE("gemm: thread splits of awkward shapes match the reference, same bits",
          "[kernels][gemm]") {
  Rng rng(16);
  const Case cases[] = {
      {257, 130, 140},  // M, N off every panel and group boundary
      {3000, 700, 1},   // K == 1: row stripes, eleven groups of B panels
      {25, 20, 5000},   // barely enough rows for row stripes; twenty K blocks
      {7, 16, 20000},   // too few rows for row stripes, one column panel: one thread idles
      {1, 5000, 500},   // 1 x N: column stripes
      {600, 5, 700},    // N below one vector: the narrow tile's row stripes
      {40, 4200, 13},   // more than one NC block of B
      {300, 300, 300},  // several K blocks
  };
  for (const Case& c : cases)
    for (int t = 0; t < 4; ++t) {
      check_gemm(t & 1, t & 2, c, 1.f, 0.f, rng, 0, {1, 2, 3});
      check_gemm(t & 1, t & 2, c, 0.5f, -1.5f, rng, t, {2, 1, 4});
    }
}

TEST_CASE("gemm_batched: strided heads vs. the reference", "[kernels][gemm]") {
  Rng rng(15);
  for (int it = 0; it < 8; ++it) {
    const bool ta = it & 1, tb = it & 2;
    const int M = 1 + int(rng.below(40)), N = 1 + int(rng.below(40)), K = 1 + int(rng.below(40));
    const int batch = 1 + int(rng.below(5));
    const int lda = (ta ? M : K) + 1, ldb = (tb ? K : N), ldc = N + 2;
    const long sA = long(ta ? K : M) * lda + 3, sB = long(tb ? N : K) * ldb, sC = long(M) * ldc + 1;
    const auto A = randv(size_t(sA) * batch, rng), B = randv(size_t(sB) * batch, rng);
    auto got = randv(size_t(sC) * batch, rng), want = got;
    const float alpha = 0.7f, beta = it < 4 ? 0.f : -0.3f;
    cpu_kernels().gemm_batched(ta, tb, M, N, K, alpha, A.data(), lda, sA, B.data(), ldb, sB, beta,
                               got.data(), ldc, sC, batch);
    kernels::ref::gemm_batched(ta, tb, M, N, K, alpha, A.data(), lda, sA, B.data(), ldb, sB, beta,
                               want.data(), ldc, sC, batch);
    // Entries are sums of at most 40 products of N(0,1) values: a fixed bound suffices here.
    check_close(got, want, "gemm_batched", kKernelRel, 40 * kKernelRel);
  }
}
