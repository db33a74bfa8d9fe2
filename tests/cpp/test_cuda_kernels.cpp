// The CUDA kernel table against the CPU table on the same inputs, one test per table entry
// (ggml's test-backend-ops idea): memory, GEMMs, softmax, layernorm, activations,
// cross-entropy, the optimizer's and BLAS-1 entries, embeddings, dropout. GEMMs are held to the
// bf16 bound of tolerances.hpp, the fused kernels to fp32 agreement. Compiled only in the CUDA
// build; skipped without a device (cuda_check.hpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda/device.hpp"
#include "cuda_check.hpp"
#include "kernels/gemm_grid.hpp"

using namespace attnlab;
using namespace attnlab::test;

TEST_CASE("cuda: memory entries round-trip and zero-fill", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  Rng rng(1);
  const std::vector<float> host = randv(1001, rng);
  DevBuf<float> a(g, host);
  CHECK(a.get() == host);
  DevBuf<float> b(g, std::vector<float>(1001, 0.f));
  g.copy(b.p, a.p, 1001 * sizeof(float));
  g.synchronize();
  CHECK(b.get() == host);
  g.zero(b.p, 500 * sizeof(float));
  const auto z = b.get();
  CHECK(z[499] == 0.f);
  CHECK(z[500] == host[500]);
  float* fresh = static_cast<float*>(g.alloc(64 * sizeof(float)));
  std::vector<float> h(64, 1.f);
  g.download(h.data(), fresh, 64 * sizeof(float));
  g.release(fresh);
  CHECK(h == std::vector<float>(64, 0.f));
}

TEST_CASE("cuda: gemm and gemm_batched match the CPU within the bf16 bound", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(2);
  const int M = 37, N = 29, K = 53, batch = 3;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (float beta : {0.f, 0.7f}) {
        // Padded leading dimensions exercise lda/ldb/ldc beyond the logical width.
        const int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldc = N + 5;
        const long sA = long(ta ? K : M) * lda, sB = long(tb ? N : K) * ldb, sC = long(M) * ldc;
        const auto A = randv(sA * batch, rng), B = randv(sB * batch, rng);
        const auto C0 = randv(sC * batch, rng);
        std::vector<float> want = C0;
        c.gemm_batched(ta, tb, M, N, K, 0.5f, A.data(), lda, sA, B.data(), ldb, sB, beta,
                       want.data(), ldc, sC, batch);
        DevBuf<float> dA(g, A), dB(g, B), dC(g, C0), dC1(g, C0);
        g.gemm_batched(ta, tb, M, N, K, 0.5f, dA.p, lda, sA, dB.p, ldb, sB, beta, dC.p, ldc, sC,
                       batch);
        g.gemm(ta, tb, M, N, K, 0.5f, dA.p, lda, dB.p, ldb, beta, dC1.p, ldc);
        const auto got = dC.get(), got1 = dC1.get();
        INFO("transA " << ta << " transB " << tb << " beta " << beta);
        for (int i = 0; i < batch; ++i)
          for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) {
              double mag = 0;
              for (int k = 0; k < K; ++k)
                mag +=
                    std::abs(double(at(A, ta, lda, m, k, i * sA)) * at(B, tb, ldb, k, n, i * sB));
              const size_t o = i * sC + size_t(m) * ldc + n;
              const double bound = kBf16Gemm * 0.5 * mag + 1e-5;
              REQUIRE(std::abs(got[o] - want[o]) <= bound);
              if (i == 0) REQUIRE(std::abs(got1[o] - want[o]) <= bound);
            }
        // Padding columns of C are never written.
        REQUIRE(got[N] == C0[N]);
      }
}

TEST_CASE("cuda: masked softmax forward and backward match the CPU", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(3);
  struct Case {
    int B, H, T, S;
    bool causal, pad;
  };
  const Case cases[] = {{1, 1, 1, 1, false, false},
                        {2, 3, 7, 7, true, false},
                        {2, 2, 5, 70, false, true},
                        {3, 1, 16, 40, true, true},
                        {1, 2, 9, 300, true, false}};
  for (const auto& k : cases) {
    INFO("B " << k.B << " H " << k.H << " T " << k.T << " S " << k.S);
    const size_t n = size_t(k.B) * k.H * k.T * k.S;
    const auto x = randv(n, rng, 3.f), dy = randv(n, rng);
    std::vector<uint8_t> pad(size_t(k.B) * k.S, 0);
    if (k.pad) {
      for (int j = 0; j < k.S; j += 3) pad[j] = 1;
      for (int j = 0; j < k.S; ++j) pad[size_t(k.B - 1) * k.S + j] = 1;  // a fully masked batch
    }
    const uint8_t* padp = k.pad ? pad.data() : nullptr;
    std::vector<float> y(n), dx(n);
    c.softmax_forward(y.data(), x.data(), 0.3f, padp, k.causal, k.B, k.H, k.T, k.S);
    c.softmax_backward(dx.data(), y.data(), dy.data(), 0.3f, k.B * k.H * k.T, k.S);
    DevBuf<float> dX(g, x), dY(g, junk(n)), dDy(g, dy);
    DevBuf<uint8_t> dPad(g, pad);
    g.softmax_forward(dY.p, dX.p, 0.3f, k.pad ? dPad.p : nullptr, k.causal, k.B, k.H, k.T, k.S);
    require_close(dY.get(), y);
    // In place (y aliases x), as the attention layer calls it.
    g.softmax_forward(dX.p, dX.p, 0.3f, k.pad ? dPad.p : nullptr, k.causal, k.B, k.H, k.T, k.S);
    require_close(dX.get(), y);
    g.softmax_backward(dDy.p, dY.p, dDy.p, 0.3f, k.B * k.H * k.T, k.S);
    require_close(dDy.get(), dx);
  }
}

TEST_CASE("cuda: layernorm forward and backward match the CPU", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(4);
  for (int C : {1, 37, 512}) {
    const int R = 300;
    INFO("C " << C);
    const auto x = randv(size_t(R) * C, rng, 2.f), dy = randv(size_t(R) * C, rng);
    const auto gamma = randv(C, rng), beta = randv(C, rng), dg0 = randv(C, rng),
               db0 = randv(C, rng);
    std::vector<float> y(x.size()), mean(R), rstd(R), dx(x.size()), dg = dg0, db = db0;
    c.layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), gamma.data(), beta.data(),
                        1e-5f, R, C);
    c.layernorm_backward(dx.data(), dg.data(), db.data(), dy.data(), x.data(), mean.data(),
                         rstd.data(), gamma.data(), R, C);
    DevBuf<float> dX(g, x), dY(g, junk(y.size())), dMean(g, junk(R)), dRstd(g, junk(R)),
        dGamma(g, gamma), dBeta(g, beta), dDy(g, dy), dDx(g, junk(dx.size())), dDg(g, dg0),
        dDb(g, db0);
    g.layernorm_forward(dY.p, dMean.p, dRstd.p, dX.p, dGamma.p, dBeta.p, 1e-5f, R, C);
    require_close(dY.get(), y);
    require_close(dMean.get(), mean);
    require_close(dRstd.get(), rstd);
    g.layernorm_backward(dDx.p, dDg.p, dDb.p, dDy.p, dX.p, dMean.p, dRstd.p, dGamma.p, R, C);
    // C == 1 makes dx a difference of equal terms: compare it on an absolute scale only.
    require_close(dDx.get(), dx, kCudaRel, C == 1 ? 1e-3f : kCudaAbs);
    require_close(dDg.get(), dg, kCudaRel, 10 * kCudaAbs);  // sums over 300 rows
    require_close(dDb.get(), db, kCudaRel, 10 * kCudaAbs);
  }
}

TEST_CASE("cuda: bias + ReLU/GELU forward and backward match the CPU", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(5);
  const int R = 123, C = 77;
  const size_t n = size_t(R) * C;
  for (Act act : {Act::None, Act::ReLU, Act::GELU})
    for (bool with_bias : {false, true}) {
      INFO("act " << int(act) << " bias " << with_bias);
      const auto x = randv(n, rng, 2.f), dy = randv(n, rng), bias = randv(C, rng),
                 db0 = randv(C, rng);
      const float* bp = with_bias ? bias.data() : nullptr;
      std::vector<float> y(n), pre(n), dx(n), db = db0;
      c.bias_act_forward(y.data(), pre.data(), x.data(), bp, act, R, C);
      c.bias_act_backward(dx.data(), with_bias ? db.data() : nullptr, dy.data(), pre.data(), act, R,
                          C);
      DevBuf<float> dX(g, x), dPre(g, junk(n)), dBias(g, bias), dDy(g, dy), dDb(g, db0);
      g.bias_act_forward(dX.p, dPre.p, dX.p, with_bias ? dBias.p : nullptr, act, R, C);
      require_close(dX.get(), y);
      require_close(dPre.get(), pre);
      g.bias_act_backward(dDy.p, with_bias ? dDb.p : nullptr, dDy.p, dPre.p, act, R, C);
      require_close(dDy.get(), dx);
      require_close(dDb.get(), db, kCudaRel, 10 * kCudaAbs);
    }
}

TEST_CASE("cuda: cross-entropy with smoothing and ignored rows matches the CPU", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(6);
  for (int V : {2, 37, 5003}) {
    const int R = 41, ignore = -100;
    INFO("V " << V);
    const auto logits = randv(size_t(R) * V, rng, 4.f);
    std::vector<int32_t> tgt(R);
    for (int r = 0; r < R; ++r) tgt[r] = r % 7 == 3 ? ignore : int32_t(rng.below(V));
    for (float eps : {0.f, 0.1f}) {
      std::vector<float> loss(R), dl(logits.size());
      c.cross_entropy(loss.data(), dl.data(), logits.data(), tgt.data(), eps, ignore, 0.25f, R, V);
      DevBuf<float> dLogits(g, logits), dLoss(g, junk(R));
      DevBuf<int32_t> dT(g, tgt);
      g.cross_entropy(dLoss.p, dLogits.p, dLogits.p, dT.p, eps, ignore, 0.25f, R, V);
      require_close(dLoss.get(), loss);
      require_close(dLogits.get(), dl);
    }
  }
}

TEST_CASE("cuda: adam, axpy, scale and sumsq match the CPU", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(7);
  const long n = 100003;
  auto p = randv(n, rng), m = std::vector<float>(n, 0.f), v = m;
  DevBuf<float> dP(g, p), dM(g, m), dV(g, v);
  for (int t = 1; t <= 3; ++t) {
    const auto grad = randv(n, rng);
    DevBuf<float> dG(g, grad);
    c.adam(p.data(), m.data(), v.data(), grad.data(), n, 1e-2f, 0.9f, 0.98f, 1e-9f, 0.01f, t);
    g.adam(dP.p, dM.p, dV.p, dG.p, n, 1e-2f, 0.9f, 0.98f, 1e-9f, 0.01f, t);
  }
  require_close(dP.get(), p);
  require_close(dM.get(), m);
  require_close(dV.get(), v);

  const auto x = randv(n, rng);
  auto y = randv(n, rng);
  DevBuf<float> dX(g, x), dY(g, y);
  c.axpy(y.data(), -1.5f, x.data(), n);
  g.axpy(dY.p, -1.5f, dX.p, n);
  require_close(dY.get(), y);
  c.scale(y.data(), 0.25f, y.data(), n);
  g.scale(dY.p, 0.25f, dY.p, n);
  require_close(dY.get(), y);
  float want = 0, got = 0;
  c.sumsq(&want, x.data(), n);
  g.sumsq(&got, dX.p, n);
  CHECK(got == Approx(want).epsilon(1e-6));
  g.sumsq(&got, dX.p, 0);
  CHECK(got == 0.f);
}

TEST_CASE("cuda: embedding gather and scatter-add match the CPU, repeated ids included", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(12);
  const int V = 9, R = 517, C = 67;  // 517 ids over 9 rows: heavy repetition for the atomics
  const float scale = 2.75f;
  std::vector<int32_t> ids(R);
  for (auto& id : ids) id = int32_t(rng.below(V));
  const auto W = randv(size_t(V) * C, rng), dout = randv(size_t(R) * C, rng),
             dW0 = randv(size_t(V) * C, rng);
  std::vector<float> out(size_t(R) * C), dW = dW0;
  c.embedding_forward(out.data(), W.data(), ids.data(), R, C, scale);
  c.embedding_backward(dW.data(), dout.data(), ids.data(), R, C, scale);
  DevBuf<int32_t> dIds(g, ids);
  DevBuf<float> dWt(g, W), dOut(g, junk(out.size())), dDout(g, dout), dDW(g, dW0);
  g.embedding_forward(dOut.p, dWt.p, dIds.p, R, C, scale);
  require_close(dOut.get(), out, 1e-6f, 0.f);
  g.embedding_backward(dDW.p, dDout.p, dIds.p, R, C, scale);
  require_close(dDW.get(), dW);  // atomics add the ~57 rows per id in another order
}

TEST_CASE("cuda: dropout masks equal the CPU's bit for bit", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(13);
  const long n = 300007;
  const auto x = randv(size_t(n), rng), dy = randv(size_t(n), rng);
  for (const float p : {0.1f, 0.5f}) {
    for (const uint64_t offset : {uint64_t(0), uint64_t(1) << 40}) {
      const uint64_t seed = 0x0123456789ABCDEFull + offset;
      std::vector<float> y(static_cast<size_t>(n)), mask(static_cast<size_t>(n)),
          dx(static_cast<size_t>(n));
      c.dropout_forward(y.data(), mask.data(), x.data(), n, p, seed, offset);
      c.dropout_backward(dx.data(), mask.data(), dy.data(), n);
      DevBuf<float> dX(g, x), dMask(g, junk(size_t(n))), dDy(g, dy);
      g.dropout_forward(dX.p, dMask.p, dX.p, n, p, seed, offset);  // y aliases x
      CHECK(dMask.get() == mask);
      CHECK(dX.get() == y);
      g.dropout_backward(dDy.p, dMask.p, dDy.p, n);  // dx aliases dy
      CHECK(dDy.get() == dx);
    }
  }
}

// Attention's batch x heads grid (kernels/gemm_grid.hpp): heads side by side in a row, batch
// elements one below the other, so no single stride reaches every matrix. The CUDA table does
// the whole grid in one cuBLAS call; the CPU loops over the batch.
TEST_CASE("cuda: the batch x heads GEMM grid is one call and matches the CPU", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  REQUIRE(gemm_grid_entry(g) != nullptr);
  REQUIRE(gemm_grid_entry(c) == nullptr);
  Rng rng(12);
  const int M = 9, N = 7, K = 8, outer = 3, inner = 4;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      // each operand: `rows` rows of `inner` matrices side by side (plus padding), per outer
      const int rA = ta ? K : M, cA = ta ? M : K, rB = tb ? N : K, cB = tb ? K : N;
      const int lda = inner * cA + 3, ldb = inner * cB + 1, ldc = inner * N + 2;
      const long oA = long(rA) * lda, oB = long(rB) * ldb, oC = long(M) * ldc;
      const auto A = randv(oA * outer, rng), B = randv(oB * outer, rng);
      const auto C0 = randv(oC * outer, rng);
      std::vector<float> want = C0;
      gemm_batched_grid(c, ta, tb, M, N, K, 0.5f, A.data(), lda, oA, cA, B.data(), ldb, oB, cB,
                        0.3f, want.data(), ldc, oC, N, outer, inner);
      DevBuf<float> dA(g, A), dB(g, B), dC(g, C0);
      const long calls = cuda::gemm_calls();
      gemm_batched_grid(g, ta, tb, M, N, K, 0.5f, dA.p, lda, oA, cA, dB.p, ldb, oB, cB, 0.3f, dC.p,
                        ldc, oC, N, outer, inner);
      CHECK(cuda::gemm_calls() - calls == 1);
      const auto got = dC.get();
      INFO("transA " << ta << " transB " << tb);
      for (int o = 0; o < outer; ++o)
        for (int i = 0; i < inner; ++i)
          for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) {
              double mag = 0;
              for (int k = 0; k < K; ++k)
                mag += std::abs(double(at(A, ta, lda, m, k, o * oA + i * cA)) *
                                at(B, tb, ldb, k, n, o * oB + i * cB));
              const size_t at_c = o * oC + size_t(m) * ldc + size_t(i) * N + n;
              REQUIRE(std::abs(got[at_c] - want[at_c]) <=
                      kBf16Gemm * 0.5 * mag + 1e-5 + 1e-6 * std::abs(want[at_c]));
            }
      // the padding columns after the last matrix of a row are never written
      REQUIRE(got[size_t(inner) * N] == C0[size_t(inner) * N]);
    }
}
