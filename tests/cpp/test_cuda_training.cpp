// The CUDA table in training against the CPU table: a 20-step Transformer loss history (bf16
// tolerance) and the recurrent models' kernels (GRU/LSTM cells, the additive score, the
// pointer loss). Compiled only in the CUDA build; skipped without a device (cuda_check.hpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda/memory.cuh"
#include "cuda_check.hpp"
#include "data/task.hpp"
#include "models/model.hpp"
#include "train/trainer.hpp"

using namespace attnlab;
using namespace attnlab::test;

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

// Destructors free device memory (DevBuf, Buffer, ParamArena, Adam): a failed free is logged to
// stderr and cleared, never thrown, so one fault does not end the process at the next scope
// exit. Runs with or without a device (without one, cudaFree fails for the missing driver).
TEST_CASE("cuda: a failed free is logged, not thrown, and leaves no error behind", "[cuda]") {
  int host_int = 0;
  CHECK_NOTHROW(cuda::release(&host_int));  // a host address: cudaFree refuses it
  CHECK_NOTHROW(cuda::release(nullptr));
  if (!cuda_kernels()) return;  // what follows needs a device
  const KernelTable& g = *cuda_kernels();
  // The refused free's error was cleared: the next launch's check does not report it.
  DevBuf<float> x(g, std::vector<float>(300, 2.f));
  g.scale(x.p, 1.5f, x.p, 300);
  g.synchronize();
  CHECK(x.get() == std::vector<float>(300, 3.f));
}
