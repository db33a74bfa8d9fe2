// Row kernels of the CPU table vs. the reference loops on random odd shapes and seeds:
// masked softmax, LayerNorm, bias + activation, cross-entropy, Adam/AdamW, axpy/scale/sumsq,
// including the aliasing each contract allows and bitwise determinism across thread counts.
#include <string>

#include "kernel_check.hpp"
#include "kernels/kernels.hpp"
#include "kernels/reference.hpp"

using namespace attnlab;
using namespace attnlab::test;
namespace ref = attnlab::kernels::ref;

namespace {
int odd(Rng& rng, int n) { return 1 + int(rng.below(uint32_t(n))); }
}  // namespace

TEST_CASE("softmax forward/backward with padding and causal masks", "[kernels][softmax]") {
  Rng rng(21);
  for (int it = 0; it < 24; ++it) {
    const int B = odd(rng, 3), H = odd(rng, 3), S = odd(rng, 70), T = odd(rng, S);
    const bool causal = it & 1, padded = it & 2;
    std::vector<uint8_t> pad(size_t(B) * S, 0);
    if (padded)
      for (auto& p : pad) p = rng.below(3) == 0;
    if (padded && it % 8 == 2) std::fill(pad.begin(), pad.begin() + S, 1);  // a fully masked batch
    const size_t n = size_t(B) * H * T * S;
    const float scale = rng.uniform(0.1f, 2.f);
    const auto x = randv(n, rng, 3.f);
    std::vector<float> got(n), want(n);
    const uint8_t* kp = padded ? pad.data() : nullptr;
    K().softmax_forward(got.data(), x.data(), scale, kp, causal, B, H, T, S);
    ref::softmax_forward(want.data(), x.data(), scale, kp, causal, B, H, T, S);
    check_close(got, want, "softmax_forward");
    auto inplace = x;  // y may alias x
    K().softmax_forward(inplace.data(), inplace.data(), scale, kp, causal, B, H, T, S);
    CHECK(inplace == got);

    const int R = B * H * T;
    const auto dy = randv(n, rng);
    std::vector<float> dx(n), dx_ref(n);
    K().softmax_backward(dx.data(), want.data(), dy.data(), scale, R, S);
    ref::softmax_backward(dx_ref.data(), want.data(), dy.data(), scale, R, S);
    check_close(dx, dx_ref, "softmax_backward", kKernelRel, 10 * kKernelAbs);
    auto dy_alias = dy;  // dx may alias dy
    K().softmax_backward(dy_alias.data(), want.data(), dy_alias.data(), scale, R, S);
    CHECK(dy_alias == dx);
  }
}

TEST_CASE("layernorm forward/backward", "[kernels][layernorm]") {
  Rng rng(22);
  for (int it = 0; it < 16; ++it) {
    const int R = odd(rng, 40), C = odd(rng, 200);
    const auto x = randv(size_t(R) * C, rng, 2.f), gamma = randv(C, rng), beta = randv(C, rng);
    std::vector<float> y(x.size()), yr(x.size()), m(R), mr(R), rs(R), rsr(R);
    K().layernorm_forward(y.data(), m.data(), rs.data(), x.data(), gamma.data(), beta.data(), 1e-5f,
                          R, C);
    ref::layernorm_forward(yr.data(), mr.data(), rsr.data(), x.data(), gamma.data(), beta.data(),
                           1e-5f, R, C);
    // y entries that cancel to ~0 carry the rounding of |xhat*gamma| + |beta| ~ a few units.
    check_close(y, yr, "layernorm y", kKernelRel, 10 * kKernelAbs);
    check_close(m, mr, "layernorm mean", kKernelRel, 10 * kKernelAbs);
    check_close(rs, rsr, "layernorm rstd");

    const auto dy = randv(x.size(), rng);
    std::vector<float> dx(x.size()), dxr(x.size());
    auto dg = randv(C, rng), db = randv(C, rng);
    auto dgr = dg, dbr = db;
    K().layernorm_backward(dx.data(), dg.data(), db.data(), dy.data(), x.data(), mr.data(),
                           rsr.data(), gamma.data(), R, C);
    ref::layernorm_backward(dxr.data(), dgr.data(), dbr.data(), dy.data(), x.data(), mr.data(),
                            rsr.data(), gamma.data(), R, C);
    // Sums over up to 200 terms of size ~ |dy gamma| cancel: absolute bound scaled by C.
    check_close(dx, dxr, "layernorm dx", kKernelRel, C * kKernelAbs);
    check_close(dg, dgr, "layernorm dgamma", kKernelRel, R * kKernelAbs);
    check_close(db, dbr, "layernorm dbeta", kKernelRel, R * kKernelAbs);
  }
}

TEST_CASE("layernorm backward: same bits for every thread count", "[kernels][layernorm]") {
  Rng rng(23);
  const int R = 300, C = 257;
  const auto x = randv(size_t(R) * C, rng), dy = randv(size_t(R) * C, rng), g = randv(C, rng);
  std::vector<float> mean(R), rstd(R), y(x.size());
  K().layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), g.data(), g.data(), 1e-5f, R,
                        C);
  std::vector<float> out[2];
  for (int t = 1; t <= 2; ++t)
    with_threads(t, [&] {
      std::vector<float> dx(x.size()), dg(C, 0.f), db(C, 0.f);
      K().layernorm_backward(dx.data(), dg.data(), db.data(), dy.data(), x.data(), mean.data(),
                             rstd.data(), g.data(), R, C);
      out[t - 1] = dx;
      out[t - 1].insert(out[t - 1].end(), dg.begin(), dg.end());
      out[t - 1].insert(out[t - 1].end(), db.begin(), db.end());
    });
  CHECK(out[0] == out[1]);
}

TEST_CASE("bias + ReLU/GELU forward/backward", "[kernels][activation]") {
  Rng rng(24);
  for (int it = 0; it < 18; ++it) {
    const Act act = Act(it % 3);
    const bool has_bias = it % 2 == 0;
    const int R = odd(rng, 30), C = odd(rng, 150);
    const size_t n = size_t(R) * C;
    const auto x = randv(n, rng, 3.f), bias = randv(C, rng);
    const float* b = has_bias ? bias.data() : nullptr;
    std::vector<float> y(n), yr(n), pre(n), prer(n);
    K().bias_act_forward(y.data(), pre.data(), x.data(), b, act, R, C);
    ref::bias_act_forward(yr.data(), prer.data(), x.data(), b, act, R, C);
    check_close(y, yr, "bias_act_forward y", kKernelRel, 10 * kKernelAbs);
    CHECK(pre == prer);
    auto inplace = x;  // y may alias x, pre may be null
    K().bias_act_forward(inplace.data(), nullptr, inplace.data(), b, act, R, C);
    CHECK(inplace == y);

    const auto dy = randv(n, rng);
    std::vector<float> dx(n), dxr(n);
    auto dbias = randv(C, rng);
    auto dbiasr = dbias;
    K().bias_act_backward(dx.data(), dbias.data(), dy.data(), prer.data(), act, R, C);
    ref::bias_act_backward(dxr.data(), dbiasr.data(), dy.data(), prer.data(), act, R, C);
    check_close(dx, dxr, "bias_act_backward dx", kKernelRel, 10 * kKernelAbs);
    check_close(dbias, dbiasr, "bias_act_backward dbias", kKernelRel, R * kKernelAbs);
    auto dy_alias = dy;  // dx may alias dy, dbias may be null
    K().bias_act_backward(dy_alias.data(), nullptr, dy_alias.data(), prer.data(), act, R, C);
    CHECK(dy_alias == dx);
  }
}

TEST_CASE("cross-entropy with label smoothing and ignore index", "[kernels][loss]") {
  Rng rng(25);
  for (int it = 0; it < 16; ++it) {
    const int R = odd(rng, 20), V = odd(rng, 300);
    const float eps = it % 2 ? 0.1f : 0.f, gs = 1.f / R;
    const auto logits = randv(size_t(R) * V, rng, 4.f);
    std::vector<int32_t> tgt(R);
    for (auto& t : tgt) t = rng.below(5) == 0 ? -100 : int32_t(rng.below(V));
    std::vector<float> loss(R), lossr(R), d(logits.size()), dr(logits.size());
    K().cross_entropy(loss.data(), d.data(), logits.data(), tgt.data(), eps, -100, gs, R, V);
    ref::cross_entropy(lossr.data(), dr.data(), logits.data(), tgt.data(), eps, -100, gs, R, V);
    check_close(loss, lossr, "cross_entropy loss", kKernelRel, 10 * kKernelAbs);
    check_close(d, dr, "cross_entropy dlogits");
    auto alias = logits;  // dlogits may alias logits
    K().cross_entropy(loss.data(), alias.data(), alias.data(), tgt.data(), eps, -100, gs, R, V);
    CHECK(alias == d);
  }
  std::vector<float> l(3, 0.f), lo(1);
  std::vector<int32_t> bad = {3};
  CHECK_THROWS(K().cross_entropy(lo.data(), l.data(), l.data(), bad.data(), 0.f, -100, 1.f, 1, 3));
}

TEST_CASE("adam / adamw step", "[kernels][adam]") {
  Rng rng(26);
  for (int it = 0; it < 6; ++it) {
    const long n = 1 + long(rng.below(1000));
    const float wd = it % 2 ? 0.01f : 0.f;
    const int t = 1 + it * 3;
    auto p = randv(n, rng), m = randv(n, rng, 0.1f), v = randv(n, rng, 0.1f);
    for (auto& x : v) x = x * x;
    const auto g = randv(n, rng);
    auto pr = p, mr = m, vr = v;
    K().adam(p.data(), m.data(), v.data(), g.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, wd, t);
    ref::adam(pr.data(), mr.data(), vr.data(), g.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, wd, t);
    check_close(p, pr, "adam p");
    check_close(m, mr, "adam m");
    check_close(v, vr, "adam v");
  }
}

TEST_CASE("axpy, scale, sumsq", "[kernels][blas1]") {
  Rng rng(27);
  for (long n : {1L, 7L, 33L, 1000L, 100003L}) {
    const auto x = randv(n, rng);
    auto y = randv(n, rng);
    auto yr = y;
    K().axpy(y.data(), 0.3f, x.data(), n);
    ref::axpy(yr.data(), 0.3f, x.data(), n);
    check_close(y, yr, "axpy");
    std::vector<float> s(n), sr(n);
    K().scale(s.data(), -1.7f, x.data(), n);
    ref::scale(sr.data(), -1.7f, x.data(), n);
    check_close(s, sr, "scale");
    auto alias = x;
    K().scale(alias.data(), -1.7f, alias.data(), n);
    CHECK(alias == s);
    float q = 0, qr = 0, q2 = 0;
    K().sumsq(&q, x.data(), n);
    ref::sumsq(&qr, x.data(), n);
    CHECK(q == Approx(qr).epsilon(kKernelRel));
    with_threads(1, [&] { K().sumsq(&q2, x.data(), n); });
    CHECK(q2 == q);
  }
}
