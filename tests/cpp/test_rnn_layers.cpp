// Recurrent layers against central finite differences: GRU, LSTM, bidirectional GRU with ragged
// lengths, additive and dot-product attention with padding, and the pointer loss.
#include <catch2/catch.hpp>
#include <vector>

#include "accumulate_check.hpp"
#include "layers/bigru.hpp"
#include "layers/lstm.hpp"
#include "layers/recurrent_attention.hpp"
#include "rnn_fd.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {
const KernelTable& K = cpu_kernels();
std::vector<float> normal_vec(size_t n, Rng& rng, float std = 1.f) {
  std::vector<float> v(n);
  fill_normal(v.data(), n, rng, std);
  return v;
}
}  // namespace

TEST_CASE("GRU: backprop through time matches finite differences", "[grad]") {
  Rng rng(11);
  const int T = 4, B = 3, Ci = 5, C = 6;
  Carver count;
  GruParams::carve(count, Ci, C);
  std::vector<float> p = normal_vec(count.used(), rng, 0.5f), dp(count.used());
  Carver cp(p.data()), cd(dp.data());
  GruParams P = GruParams::carve(cp, Ci, C), dP = GruParams::carve(cd, Ci, C);
  auto x = normal_vec(size_t(T) * B * Ci, rng), h0 = normal_vec(size_t(B) * C, rng, 0.5f);
  auto w = normal_vec(size_t(T) * B * C, rng);
  std::vector<float> h(w.size()), dh(w.size()), dx(x.size()), dh0(h0.size());
  GruSeq g;
  auto loss = [&] {
    g.forward(K, P, h.data(), x.data(), h0.data(), T, B, Ci, C);
    return dot(w.data(), h.data(), h.size());
  };
  loss();
  dh = w;
  g.backward(K, P, dP, dx.data(), dh0.data(), dh.data(), h.data(), x.data(), T, B, Ci, C);
  fd_check(loss,
           {{"W", P.W, dP.W, size_t(Ci) * 3 * C},
            {"Uzr", P.Uzr, dP.Uzr, size_t(C) * 2 * C},
            {"U", P.U, dP.U, size_t(C) * C},
            {"b", P.b, dP.b, size_t(3) * C},
            {"x", x.data(), dx.data(), x.size()},
            {"h0", h0.data(), dh0.data(), h0.size()}},
           rng);
}

TEST_CASE("LSTM: backprop through time matches finite differences", "[grad]") {
  Rng rng(12);
  const int T = 4, B = 2, Ci = 3, C = 5;
  Carver count;
  LstmParams::carve(count, Ci, C);
  std::vector<float> p = normal_vec(count.used(), rng, 0.5f), dp(count.used());
  Carver cp(p.data()), cd(dp.data());
  LstmParams P = LstmParams::carve(cp, Ci, C), dP = LstmParams::carve(cd, Ci, C);
  auto x = normal_vec(size_t(T) * B * Ci, rng);
  auto h0 = normal_vec(size_t(B) * C, rng, 0.5f), c0 = normal_vec(size_t(B) * C, rng, 0.5f);
  auto w = normal_vec(size_t(T) * B * C, rng), wc = normal_vec(size_t(B) * C, rng);
  std::vector<float> h(w.size()), dh(w.size()), dx(x.size()), dh0(h0.size()), dc0(c0.size());
  LstmSeq l;
  auto loss = [&] {
    l.forward(K, P, h.data(), x.data(), h0.data(), c0.data(), T, B, Ci, C);
    return dot(w.data(), h.data(), h.size()) + dot(wc.data(), l.cell(T - 1), wc.size());
  };
  loss();
  dh = w;
  l.backward(K, P, dP, dx.data(), dh0.data(), dc0.data(), dh.data(), wc.data(), h.data(), x.data(),
             T, B, Ci, C);
  fd_check(loss,
           {{"W", P.W, dP.W, size_t(Ci) * 4 * C},
            {"U", P.U, dP.U, size_t(C) * 4 * C},
            {"b", P.b, dP.b, size_t(4) * C},
            {"x", x.data(), dx.data(), x.size()},
            {"h0", h0.data(), dh0.data(), h0.size()},
            {"c0", c0.data(), dc0.data(), c0.size()}},
           rng);
}

TEST_CASE("bidirectional GRU with ragged lengths matches finite differences", "[grad]") {
  Rng rng(13);
  const int S = 5, B = 3, Ci = 4, C = 3;
  const std::vector<int> len = {3, 5, 1};
  Carver count;
  BiGruParams::carve(count, Ci, C);
  std::vector<float> p = normal_vec(count.used(), rng, 0.5f), dp(count.used());
  Carver cp(p.data()), cd(dp.data());
  BiGruParams P = BiGruParams::carve(cp, Ci, C), dP = BiGruParams::carve(cd, Ci, C);
  auto x = normal_vec(size_t(S) * B * Ci, rng);
  auto w = normal_vec(size_t(S) * B * 2 * C, rng), ws = normal_vec(size_t(B) * 2 * C, rng);
  for (int s = 0; s < S; ++s)  // padded positions do not reach the loss
    for (int b = 0; b < B; ++b)
      if (s >= len[b])
        for (int j = 0; j < 2 * C; ++j) w[(size_t(s) * B + b) * 2 * C + j] = 0.f;
  std::vector<float> h(w.size()), dh(w.size()), dx(x.size()), sum(ws.size());
  BiGru enc;
  auto loss = [&] {
    enc.forward(K, P, h.data(), x.data(), len, S, B, Ci, C);
    enc.summary(K, sum.data(), h.data());
    return dot(w.data(), h.data(), h.size()) + dot(ws.data(), sum.data(), sum.size());
  };
  loss();
  dh = w;
  enc.summary_backward(K, dh.data(), ws.data());
  enc.backward(K, P, dP, dx.data(), dh.data(), x.data());
  fd_check(loss,
           {{"fwd.W", P.fwd.W, dP.fwd.W, size_t(Ci) * 3 * C},
            {"bwd.W", P.bwd.W, dP.bwd.W, size_t(Ci) * 3 * C},
            {"bwd.U", P.bwd.U, dP.bwd.U, size_t(C) * C},
            {"x", x.data(), dx.data(), x.size()}},
           rng, 20);
}

// The convention of layers/context.hpp: a sequence's backward adds its input gradients to the
// caller's buffers. Each run repeats the forward, since backward consumes the cache and dh.
TEST_CASE("accumulate: GRU backward adds into dx and dh0", "[grad]") {
  Rng rng(21);
  const int T = 3, B = 2, Ci = 4, C = 5;
  Carver count;
  GruParams::carve(count, Ci, C);
  std::vector<float> p = normal_vec(count.used(), rng, 0.5f), dp(count.used());
  Carver cp(p.data()), cd(dp.data());
  GruParams P = GruParams::carve(cp, Ci, C), dP = GruParams::carve(cd, Ci, C);
  auto x = normal_vec(size_t(T) * B * Ci, rng), h0 = normal_vec(size_t(B) * C, rng, 0.5f);
  auto w = normal_vec(size_t(T) * B * C, rng);
  std::vector<float> h(w.size());
  GruSeq g;
  check_accumulates({"dx", "dh0"}, {x.size(), h0.size()}, [&](GradBuffers& d) {
    g.forward(K, P, h.data(), x.data(), h0.data(), T, B, Ci, C);
    std::vector<float> dh = w;
    g.backward(K, P, dP, d[0].data(), d[1].data(), dh.data(), h.data(), x.data(), T, B, Ci, C);
  });
}

TEST_CASE("accumulate: LSTM backward adds into dx, dh0 and dc0", "[grad]") {
  Rng rng(22);
  const int T = 3, B = 2, Ci = 4, C = 5;
  Carver count;
  LstmParams::carve(count, Ci, C);
  std::vector<float> p = normal_vec(count.used(), rng, 0.5f), dp(count.used());
  Carver cp(p.data()), cd(dp.data());
  LstmParams P = LstmParams::carve(cp, Ci, C), dP = LstmParams::carve(cd, Ci, C);
  auto x = normal_vec(size_t(T) * B * Ci, rng);
  auto h0 = normal_vec(size_t(B) * C, rng, 0.5f), c0 = normal_vec(size_t(B) * C, rng, 0.5f);
  auto w = normal_vec(size_t(T) * B * C, rng), wc = normal_vec(size_t(B) * C, rng);
  std::vector<float> h(w.size());
  LstmSeq l;
  check_accumulates({"dx", "dh0", "dc0"}, {x.size(), h0.size(), c0.size()}, [&](GradBuffers& d) {
    l.forward(K, P, h.data(), x.data(), h0.data(), c0.data(), T, B, Ci, C);
    std::vector<float> dh = w;
    l.backward(K, P, dP, d[0].data(), d[1].data(), d[2].data(), dh.data(), wc.data(), h.data(),
               x.data(), T, B, Ci, C);
  });
}

TEST_CASE("accumulate: bidirectional GRU backward adds into dx", "[grad]") {
  Rng rng(23);
  const int S = 4, B = 2, Ci = 3, C = 4;
  const std::vector<int> len = {4, 2};
  Carver count;
  BiGruParams::carve(count, Ci, C);
  std::vector<float> p = normal_vec(count.used(), rng, 0.5f), dp(count.used());
  Carver cp(p.data()), cd(dp.data());
  BiGruParams P = BiGruParams::carve(cp, Ci, C), dP = BiGruParams::carve(cd, Ci, C);
  auto x = normal_vec(size_t(S) * B * Ci, rng), w = normal_vec(size_t(S) * B * 2 * C, rng);
  std::vector<float> h(w.size());
  for (bool both : {true, false}) {
    BiGru enc;
    enc.set_bidirectional(both);
    check_accumulates({both ? "dx (two-way)" : "dx (one-way)"}, {x.size()}, [&](GradBuffers& d) {
      enc.forward(K, P, h.data(), x.data(), len, S, B, Ci, C);
      enc.backward(K, P, dP, d[0].data(), w.data(), x.data());
    });
  }
}

static void attention_grad(Score score) {
  Rng rng(14 + int(score));
  const int S = 4, B = 2, D = 6, C = 3, A = 5, T = 2;
  Carver count;
  AttnParams::carve(count, C, D, A);
  std::vector<float> p = normal_vec(count.used(), rng, 0.7f), dp(count.used());
  Carver cp(p.data()), cd(dp.data());
  AttnParams P = AttnParams::carve(cp, C, D, A), dP = AttnParams::carve(cd, C, D, A);
  auto Hs = normal_vec(size_t(S) * B * D, rng), q = normal_vec(size_t(T) * B * C, rng);
  std::vector<uint8_t> pad = {0, 0, 0, 1, 0, 0, 0, 0};  // batch 0 has length 3
  auto wc = normal_vec(size_t(T) * B * D, rng), wa = normal_vec(size_t(T) * B * S, rng);
  RecurrentAttention att;
  std::vector<float> alpha(size_t(T) * B * S), e(alpha.size()), ctx(wc.size());
  std::vector<float> cache;
  auto loss = [&] {
    att.prepare(K, P, Hs.data(), pad.data(), score, S, B, D, C, A);
    cache.resize(T * att.step_cache_floats());
    for (int t = 0; t < T; ++t) {
      float* al = alpha.data() + size_t(t) * B * S;
      att.forward(K, P, al, e.data() + size_t(t) * B * S,
                  cache.data() + t * att.step_cache_floats(), q.data() + size_t(t) * B * C,
                  nullptr);
      context_forward(K, ctx.data() + size_t(t) * B * D, al, Hs.data(), S, B, D);
    }
    return dot(wc.data(), ctx.data(), ctx.size()) + dot(wa.data(), alpha.data(), alpha.size());
  };
  loss();
  for (float a : {alpha[3], alpha[B * S + 3]}) CHECK(a == 0.f);
  std::vector<float> dHs(Hs.size()), dq(q.size()), dalpha(size_t(B) * S);
  for (int t = T - 1; t >= 0; --t) {
    const float* al = alpha.data() + size_t(t) * B * S;
    context_backward(K, dalpha.data(), dHs.data(), wc.data() + size_t(t) * B * D, al, Hs.data(), S,
                     B, D);
    K.axpy(dalpha.data(), 1.f, wa.data() + size_t(t) * B * S, long(B) * S);
    K.softmax_backward(dalpha.data(), al, dalpha.data(), 1.f, B, S);
    att.backward(K, P, dP, dq.data() + size_t(t) * B * C, dalpha.data(),
                 cache.data() + t * att.step_cache_floats(), q.data() + size_t(t) * B * C);
  }
  att.finish_backward(K, P, dP, dHs.data());
  std::vector<FdTarget> targets = {{"W", P.W, dP.W, size_t(C) * A},
                                   {"U", P.U, dP.U, size_t(D) * A},
                                   {"Hs", Hs.data(), dHs.data(), Hs.size()},
                                   {"q", q.data(), dq.data(), q.size()}};
  if (score == Score::Additive) targets.push_back({"v", P.v, dP.v, size_t(A)});
  fd_check(loss, targets, rng, 20);
}

TEST_CASE("additive attention (Bahdanau eq. 6) matches finite differences", "[grad]") {
  attention_grad(Score::Additive);
}

TEST_CASE("dot-product attention matches finite differences", "[grad]") {
  attention_grad(Score::Dot);
}

TEST_CASE("pointer loss: probs_xent gives softmax minus one-hot, ignores negative targets",
          "[grad]") {
  Rng rng(15);
  const int R = 3, S = 5;
  auto u = normal_vec(size_t(R) * S, rng);
  std::vector<uint8_t> pad = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  std::vector<int32_t> tgt = {4, 2, -1};
  std::vector<float> p(u.size()), d(u.size()), l(R);
  auto loss = [&] {
    K.softmax_forward(p.data(), u.data(), 1.f, pad.data(), false, R, 1, 1, S);
    K.probs_xent(l.data(), d.data(), p.data(), tgt.data(), 1.f, R, S);
    return double(l[0]) + l[1] + l[2];
  };
  loss();
  CHECK(l[2] == 0.f);
  CHECK(p[6] == 0.f);
  std::vector<float> g = d;
  fd_check(loss, {{"u", u.data(), g.data(), u.size()}}, rng, 15);
}
