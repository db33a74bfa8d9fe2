// The CUDA kernel table against the CPU table on the same inputs, one test per table entry
// (ggml's test-backend-ops idea). GEMMs are held to the bf16 bound of tolerances.hpp, the fused
// kernels to fp32 agreement. Compiled only in the CUDA build (tests/cpp/tests.cmake); without a
// CUDA device cuda_kernels() is null and every case is reported as skipped (skip.hpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/rng.hpp"
#include "data/task.hpp"
#include "kernels/kernels.hpp"
#include "models/model.hpp"
#include "skip.hpp"
#include "tolerances.hpp"
#include "train/trainer.hpp"

using namespace attnlab;
using attnlab::test::kBf16Gemm;
using attnlab::test::kBf16LossRel;
using attnlab::test::kCudaAbs;
using attnlab::test::kCudaRel;

#define REQUIRE_GPU_OR_SKIP() \
  if (!cuda_kernels()) ATTNLAB_SKIP("no CUDA device")

namespace {

// A device copy of a host vector, released on scope exit.
template <class T>
struct DevBuf {
  const KernelTable& k;
  size_t n;
  T* p;
  DevBuf(const KernelTable& table, const std::vector<T>& host)
      : k(table), n(host.size()), p(static_cast<T*>(table.alloc(n * sizeof(T)))) {
    if (n) k.upload(p, host.data(), n * sizeof(T));
  }
  ~DevBuf() { k.release(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  std::vector<T> get() const {
    std::vector<T> h(n);
    if (n) k.download(h.data(), p, n * sizeof(T));
    return h;
  }
};

// Device outputs start as this value, so an entry that writes nothing cannot pass.
std::vector<float> junk(size_t n) { return std::vector<float>(n, -7.f); }

std::vector<float> randv(size_t n, Rng& rng, float std = 1.f) {
  std::vector<float> v(n);
  for (auto& x : v) x = rng.normal() * std;
  return v;
}

// Every element within abs + rel * |want|; reports the first one that is not.
void require_close(const std::vector<float>& got, const std::vector<float>& want,
                   float rel = kCudaRel, float abs = kCudaAbs) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) <= abs + rel * std::abs(want[i])) continue;
    INFO("index " << i << ": cuda " << got[i] << " vs cpu " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= abs + rel * std::abs(want[i]));
  }
}

// Row-major element of op(X) at (r, c), X stored with leading dimension ld.
float at(const std::vector<float>& X, bool trans, int ld, int r, int c, long offset = 0) {
  return trans ? X[offset + size_t(c) * ld + r] : X[offset + size_t(r) * ld + c];
}

}  // namespace

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

TEST_CASE("cuda: a 20-step Transformer loss history matches the CPU within bf16 tolerance",
          "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  // Same config, seed, batches and dropout masks (the counter hash draws the same bits on
  // both tables): only the arithmetic differs.
  const auto task = make_task("reverse", {{"min_len", 2}, {"max_len", 8}, {"symbols", 12}});
  const nlohmann::json cfg = {{"model", "transformer"},
                              {"src_vocab", task->src_vocab()},
                              {"tgt_vocab", task->tgt_vocab()},
                              {"d_model", 64},
                              {"heads", 4},
                              {"d_ff", 128},
                              {"enc_layers", 2},
                              {"dec_layers", 2},
                              {"dropout", 0.1},
                              {"max_len", 16}};
  TrainOptions o;
  o.batch = 32;
  o.schedule.kind = "constant";
  o.schedule.lr = 1e-3f;
  o.label_smoothing = 0.1f;
  o.seed = 21;
  auto cpu_model = make_model(cfg, cpu_kernels(), 4);
  auto gpu_model = make_model(cfg, *cuda_kernels(), 4);
  Trainer cpu(*cpu_model, *task, o), gpu(*gpu_model, *task, o);
  for (int step = 1; step <= 20; ++step) {
    const double want = cpu.step().loss, got = gpu.step().loss;
    INFO("step " << step << ": cpu loss " << want << ", cuda loss " << got);
    REQUIRE(std::isfinite(got));
    REQUIRE(std::abs(got - want) <= kBf16LossRel * std::abs(want));
  }
}

TEST_CASE("cuda: recurrent-cell, additive-score and pointer-loss kernels match the CPU", "[cuda]") {
  REQUIRE_GPU_OR_SKIP();
  const KernelTable& g = *cuda_kernels();
  const KernelTable& c = cpu_kernels();
  Rng rng(8);
  const int B = 5, C = 37;
  const size_t n = size_t(B) * C;
  {  // tanh + bias, in place, with the bias gradient accumulated
    const auto x = randv(n, rng), bias = randv(C, rng), dy = randv(n, rng), db0 = randv(C, rng);
    std::vector<float> y(n), dx(n), db = db0;
    c.tanh_bias_forward(y.data(), x.data(), bias.data(), B, C);
    c.tanh_bias_backward(dx.data(), db.data(), dy.data(), y.data(), B, C);
    DevBuf<float> dX(g, x), dBias(g, bias), dDy(g, dy), dDb(g, db0);
    g.tanh_bias_forward(dX.p, dX.p, dBias.p, B, C);
    require_close(dX.get(), y);
    g.tanh_bias_backward(dDy.p, dDb.p, dDy.p, dX.p, B, C);
    require_close(dDy.get(), dx);
    require_close(dDb.get(), db);
  }
  {  // GRU gates and cell, forward and backward
    const auto xg = randv(3 * n, rng), hg = randv(2 * n, rng), hp = randv(n, rng),
               hc = randv(n, rng), drh = randv(n, rng), dh = randv(n, rng), dhp0 = randv(n, rng);
    std::vector<float> zr(2 * n), rh(n), h(n), cand(n), dxg(3 * n, 0.f), dhp = dhp0, dhp2(n);
    c.gru_gates_forward(zr.data(), rh.data(), xg.data(), hg.data(), hp.data(), B, C);
    c.gru_cell_forward(h.data(), cand.data(), xg.data(), hc.data(), zr.data(), hp.data(), B, C);
    c.gru_gates_backward(dxg.data(), dhp.data(), drh.data(), zr.data(), hp.data(), B, C);
    c.gru_cell_backward(dxg.data(), dhp2.data(), dh.data(), zr.data(), cand.data(), hp.data(), B,
                        C);
    DevBuf<float> dXg(g, xg), dHg(g, hg), dHp(g, hp), dHc(g, hc), dDrh(g, drh), dDh(g, dh),
        dZr(g, junk(2 * n)), dRh(g, junk(n)), dH(g, junk(n)), dCand(g, junk(n)),
        dDxg(g, std::vector<float>(3 * n, 0.f)), dDhp(g, dhp0), dDhp2(g, junk(n));
    g.gru_gates_forward(dZr.p, dRh.p, dXg.p, dHg.p, dHp.p, B, C);
    g.gru_cell_forward(dH.p, dCand.p, dXg.p, dHc.p, dZr.p, dHp.p, B, C);
    g.gru_gates_backward(dDxg.p, dDhp.p, dDrh.p, dZr.p, dHp.p, B, C);
    g.gru_cell_backward(dDxg.p, dDhp2.p, dDh.p, dZr.p, dCand.p, dHp.p, B, C);
    require_close(dZr.get(), zr);
    require_close(dRh.get(), rh);
    require_close(dH.get(), h);
    require_close(dCand.get(), cand);
    require_close(dDxg.get(), dxg);
    require_close(dDhp.get(), dhp);
    require_close(dDhp2.get(), dhp2);
  }
  {  // LSTM cell, with and without an incoming cell gradient
    const auto pre = randv(4 * n, rng), cp = randv(n, rng), dh = randv(n, rng), dc = randv(n, rng);
    std::vector<float> h(n), cc(n), act(4 * n), tc(n), dpre(4 * n), dcp(n);
    c.lstm_cell_forward(h.data(), cc.data(), act.data(), tc.data(), pre.data(), cp.data(), B, C);
    DevBuf<float> dPre(g, pre), dCp(g, cp), dDh(g, dh), dDc(g, dc), dH(g, junk(n)), dC(g, junk(n)),
        dAct(g, junk(4 * n)), dTc(g, junk(n)), dDpre(g, junk(4 * n)), dDcp(g, junk(n));
    g.lstm_cell_forward(dH.p, dC.p, dAct.p, dTc.p, dPre.p, dCp.p, B, C);
    require_close(dH.get(), h);
    require_close(dC.get(), cc);
    require_close(dAct.get(), act);
    require_close(dTc.get(), tc);
    for (bool with_dc : {false, true}) {
      c.lstm_cell_backward(dpre.data(), dcp.data(), dh.data(), with_dc ? dc.data() : nullptr,
                           act.data(), cp.data(), tc.data(), B, C);
      g.lstm_cell_backward(dDpre.p, dDcp.p, dDh.p, with_dc ? dDc.p : nullptr, dAct.p, dCp.p, dTc.p,
                           B, C);
      require_close(dDpre.get(), dpre);
      require_close(dDcp.get(), dcp);
    }
  }
  {  // additive attention scores (Bahdanau eq. 6), forward and backward with dk aliasing t
    const int S = 7, A = 45;
    const auto k = randv(size_t(S) * B * A, rng), q = randv(size_t(B) * A, rng), v = randv(A, rng),
               de = randv(size_t(B) * S, rng), dq0 = randv(size_t(B) * A, rng), dv0 = randv(A, rng);
    std::vector<float> e(size_t(B) * S), t(k.size()), dk(k.size()), dq = dq0, dv = dv0;
    c.additive_score_forward(e.data(), t.data(), k.data(), q.data(), v.data(), S, B, A);
    c.additive_score_backward(dk.data(), dq.data(), dv.data(), de.data(), t.data(), v.data(), S, B,
                              A);
    DevBuf<float> dK(g, k), dQ(g, q), dV(g, v), dDe(g, de), dE(g, junk(e.size())),
        dT(g, junk(t.size())), dDq(g, dq0), dDv(g, dv0);
    g.additive_score_forward(dE.p, dT.p, dK.p, dQ.p, dV.p, S, B, A);
    require_close(dE.get(), e);
    require_close(dT.get(), t);
    g.additive_score_backward(dT.p, dDq.p, dDv.p, dDe.p, dT.p, dV.p, S, B, A);
    require_close(dT.get(), dk);
    require_close(dDq.get(), dq);
    require_close(dDv.get(), dv);
  }
  {  // pointer loss from probabilities, in place, with an ignored row
    const int R = 6, S = 9;
    std::vector<float> p(size_t(R) * S);
    for (int r = 0; r < R; ++r) {
      double sum = 0;
      for (int j = 0; j < S; ++j) sum += p[size_t(r) * S + j] = 0.05f + rng.uniform();
      for (int j = 0; j < S; ++j) p[size_t(r) * S + j] = float(p[size_t(r) * S + j] / sum);
    }
    std::vector<int32_t> t = {0, 3, -1, 8, 4, 2};
    std::vector<float> loss(R), d(p.size());
    c.probs_xent(loss.data(), d.data(), p.data(), t.data(), 0.5f, R, S);
    DevBuf<float> dP(g, p), dLoss(g, junk(R));
    DevBuf<int32_t> dT(g, t);
    g.probs_xent(dLoss.p, dP.p, dP.p, dT.p, 0.5f, R, S);
    require_close(dLoss.get(), loss);
    require_close(dP.get(), d);
  }
}
