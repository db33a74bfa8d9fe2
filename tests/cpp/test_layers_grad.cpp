// Finite-difference checks of each layer on its own: the loss is L = Σ out ⊙ W for a fixed
// random W, so dL/dout = W; every input gradient and every parameter gradient is compared
// with central differences. Masks, padding, dropout (fixed seed) and both norm placements.
#include <catch2/catch.hpp>
#include <functional>

#include "accumulate_check.hpp"
#include "core/tensor.hpp"
#include "gradcheck.hpp"
#include "layers/attention.hpp"
#include "layers/blocks.hpp"
#include "layers/embedding.hpp"
#include "layers/ffn.hpp"
#include "layers/loss.hpp"

using namespace attnlab;
using attnlab::test::check_accumulates;
using attnlab::test::check_grad;
using attnlab::test::GradBuffers;

namespace {

// A tiny harness: an arena, a workspace, random inputs and the projection weights W.
struct Harness {
  const KernelTable& kt = cpu_kernels();
  ParamArena P{kt};
  Workspace ws{kt};
  Rng rng{17};
  Rng drop{99};
  bool train = false;
  Ctx ctx() { return Ctx{kt, P, ws, train, &drop}; }
  void ready() {
    Rng init(3);
    P.allocate(init);
    // the usual init plus noise, so biases and LayerNorm gains are not trivially 0 and 1
    for (long i = 0; i < P.total(); ++i) P.values()[i] += rng.normal() * 0.2f;
  }
  Tensor input(Shape s) { return randn(s, rng); }
  // Checks every parameter and the listed inputs; `run` returns out (n floats) for the current
  // values, `back` runs backward with dout (accumulating into the zeroed input grads).
  void check(size_t n, const std::function<const float*()>& run,
             const std::function<void(const float*)>& back,
             std::vector<std::pair<Tensor*, Tensor*>> inputs) {
    const Tensor w = randn({n}, rng);
    auto loss = [&] {
      ws.reset();
      drop.reseed(99);
      const float* out = run();
      double s = 0;
      for (size_t i = 0; i < n; ++i) s += double(out[i]) * w[i];
      return s;
    };
    P.zero_grad();
    for (auto& io : inputs) io.second->fill(0.f);
    ws.reset();
    drop.reseed(99);
    run();
    back(w.data());
    for (const ParamInfo& p : P.list()) {
      const int id = P.find(p.name);
      check_grad(p.name, P.val(id), P.grad(id), p.numel, loss, 6, test::kFdAbsLayer,
                 test::kFdStepLayer);
    }
    int k = 0;
    for (auto& io : inputs)
      check_grad("input " + std::to_string(k++), io.first->data(), io.second->data(),
                 long(io.first->size()), loss, 10, test::kFdAbsLayer, test::kFdStepLayer);
  }
};

}  // namespace

TEST_CASE("grad: linear", "[grad]") {
  Harness h;
  Linear lin;
  lin.declare(h.P, "lin", 5, 3);
  h.ready();
  Tensor x = h.input({4, 5}), dx = Tensor::from_shape({4, 5});
  Tensor y = Tensor::from_shape({4, 3});
  h.check(
      12,
      [&] {
        lin.forward(h.ctx(), y.data(), x.data(), 4);
        return y.data();
      },
      [&](const float* dy) { lin.backward(h.ctx(), dx.data(), dy, x.data(), 4); }, {{&x, &dx}});
}

TEST_CASE("grad: embedding scaled by sqrt(C) with learned positions", "[grad]") {
  Harness h;
  Embedding e;
  PositionalEncoding pe;
  e.declare(h.P, "emb", 6, 4, true);
  pe.declare(h.P, "pos", true, 5, 4);
  h.ready();
  const std::vector<int32_t> ids = {1, 5, 1, 0, 2, 3};  // B=2, T=3, a repeated id
  Tensor y = Tensor::from_shape({6, 4});
  h.check(
      24,
      [&] {
        e.forward(h.ctx(), y.data(), ids.data(), 6);
        pe.forward(h.ctx(), y.data(), 2, 3);
        return y.data();
      },
      [&](const float* dy) {
        pe.backward(h.ctx(), dy, 2, 3);
        e.backward(h.ctx(), dy, ids.data(), 6);
      },
      {});
}

TEST_CASE("grad: layer norm", "[grad]") {
  Harness h;
  LayerNorm ln;
  ln.declare(h.P, "ln", 6);
  h.ready();
  Tensor x = h.input({3, 6}), dx = Tensor::from_shape({3, 6}), y = Tensor::from_shape({3, 6});
  LayerNormCache c;
  h.check(
      18,
      [&] {
        ln.forward(h.ctx(), c, y.data(), x.data(), 3);
        return y.data();
      },
      [&](const float* dy) { ln.backward(h.ctx(), c, dx.data(), dy, 3); }, {{&x, &dx}});
}

TEST_CASE("grad: multi-head self-attention, causal with key padding, dropout", "[grad]") {
  Harness h;
  h.train = true;
  MultiHeadAttention mha;
  mha.declare(h.P, "sa", 8, 2, 0.2f);
  h.ready();
  const int B = 2, T = 4, C = 8;
  Tensor x = h.input({size_t(B * T), size_t(C)}),
         dx = Tensor::from_shape({size_t(B * T), size_t(C)});
  Tensor y = Tensor::from_shape({size_t(B * T), size_t(C)});
  const std::vector<uint8_t> pad = {0, 0, 0, 0, 0, 0, 1, 1};
  MhaCache m;
  h.check(
      size_t(B * T * C),
      [&] {
        mha.forward(h.ctx(), m, y.data(), x.data(), nullptr, pad.data(), true, B, T, T);
        return y.data();
      },
      [&](const float* dy) { mha.backward(h.ctx(), m, dx.data(), nullptr, dy); }, {{&x, &dx}});
}

TEST_CASE("grad: multi-head cross-attention with memory padding", "[grad]") {
  Harness h;
  MultiHeadAttention mha;
  mha.declare(h.P, "ca", 8, 4, 0.f);
  h.ready();
  const int B = 2, T = 3, S = 5, C = 8;
  Tensor x = h.input({size_t(B * T), size_t(C)}),
         dx = Tensor::from_shape({size_t(B * T), size_t(C)});
  Tensor mem = h.input({size_t(B * S), size_t(C)}),
         dmem = Tensor::from_shape({size_t(B * S), size_t(C)});
  Tensor y = Tensor::from_shape({size_t(B * T), size_t(C)});
  const std::vector<uint8_t> pad = {0, 0, 0, 1, 1, 0, 0, 0, 0, 0};
  MhaCache m;
  h.check(
      size_t(B * T * C),
      [&] {
        mha.forward(h.ctx(), m, y.data(), x.data(), mem.data(), pad.data(), false, B, T, S);
        return y.data();
      },
      [&](const float* dy) { mha.backward(h.ctx(), m, dx.data(), dmem.data(), dy); },
      {{&x, &dx}, {&mem, &dmem}});
}

TEST_CASE("grad: feed-forward, ReLU and GELU", "[grad]") {
  for (Act act : {Act::ReLU, Act::GELU}) {
    Harness h;
    FeedForward ff;
    ff.declare(h.P, "ff", 4, 7, act, 0.f);
    h.ready();
    Tensor x = h.input({3, 4}), dx = Tensor::from_shape({3, 4}), y = Tensor::from_shape({3, 4});
    FfnCache m;
    h.check(
        12,
        [&] {
          ff.forward(h.ctx(), m, y.data(), x.data(), 3);
          return y.data();
        },
        [&](const float* dy) { ff.backward(h.ctx(), m, dx.data(), dy, 3); }, {{&x, &dx}});
  }
}

TEST_CASE("grad: encoder and decoder layers, post-LN and pre-LN residuals", "[grad]") {
  for (bool norm_first : {false, true}) {
    Harness h;
    h.train = true;
    const LayerOptions o{8, 2, 12, 0.1f, norm_first, Act::GELU};
    EncoderLayer enc;
    DecoderLayer dec;
    enc.declare(h.P, "enc", o);
    dec.declare(h.P, "dec", o);
    h.ready();
    const int B = 2, S = 3, T = 4, C = 8;
    Tensor x = h.input({size_t(B * S), size_t(C)}),
           dx = Tensor::from_shape({size_t(B * S), size_t(C)});
    Tensor y = h.input({size_t(B * T), size_t(C)}),
           dy_in = Tensor::from_shape({size_t(B * T), size_t(C)});
    const std::vector<uint8_t> spad = {0, 0, 0, 0, 0, 1}, tpad = {0, 0, 0, 0, 0, 0, 0, 1};
    EncoderLayerCache ec;
    DecoderLayerCache dc;
    h.check(
        size_t(B * T * C),
        [&] {
          const float* mem = enc.forward(h.ctx(), ec, x.data(), spad.data(), false, B, S);
          return dec.forward(h.ctx(), dc, y.data(), mem, tpad.data(), spad.data(), true, B, T, S);
        },
        [&](const float* dout) {
          float* dmem = h.ws.floats(size_t(B * S * C));
          h.kt.zero(dmem, size_t(B * S * C) * sizeof(float));
          dec.backward(h.ctx(), dc, dy_in.data(), dmem, dout);
          enc.backward(h.ctx(), ec, dx.data(), dmem);
        },
        {{&x, &dx}, {&y, &dy_in}});
  }
}

// The convention of layers/context.hpp: backward adds the input gradient to the caller's dx.
TEST_CASE("accumulate: a residual block's backward adds dx into the caller's buffer", "[grad]") {
  for (bool norm_first : {false, true}) {
    Harness h;
    Residual r;
    r.declare(h.P, "norm", 4, norm_first, 0.f);
    h.ready();
    const int R = 3, n = R * 4;
    Tensor x = h.input({3, 4}), w = h.input({3, 4});
    ResidualCache m;
    check_accumulates({"dx"}, {size_t(n)}, [&](GradBuffers& g) {
      h.ws.reset();
      const float* in = r.enter(h.ctx(), m, x.data(), R);
      for (int i = 0; i < n; ++i) m.sub[i] = 2.f * in[i];  // the sublayer: sub = 2 in
      r.leave(h.ctx(), m, R);
      const float* dsub = r.back_enter(h.ctx(), m, w.data(), R);
      h.kt.axpy(m.din, 2.f, dsub, n);  // its input gradient, added to din
      r.back_leave(h.ctx(), m, g[0].data(), R);
    });
  }
}

TEST_CASE("accumulate: encoder and decoder layers add into dx and dmemory", "[grad]") {
  for (bool norm_first : {false, true}) {
    Harness h;
    const LayerOptions o{8, 2, 12, 0.f, norm_first, Act::ReLU};
    EncoderLayer enc;
    DecoderLayer dec;
    enc.declare(h.P, "enc", o);
    dec.declare(h.P, "dec", o);
    h.ready();
    const int B = 2, S = 3, T = 4, C = 8;
    const size_t ns = size_t(B * S * C), nt = size_t(B * T * C);
    Tensor x = h.input({size_t(B * S), size_t(C)}), mem = h.input({size_t(B * S), size_t(C)});
    Tensor y = h.input({size_t(B * T), size_t(C)});
    Tensor wx = h.input({size_t(B * S), size_t(C)}), wy = h.input({size_t(B * T), size_t(C)});
    EncoderLayerCache ec;
    DecoderLayerCache dc;
    h.ws.reset();
    enc.forward(h.ctx(), ec, x.data(), nullptr, false, B, S);
    dec.forward(h.ctx(), dc, y.data(), mem.data(), nullptr, nullptr, true, B, T, S);
    check_accumulates({"encoder dx"}, {ns}, [&](GradBuffers& g) {
      CHECK(enc.backward(h.ctx(), ec, g[0].data(), wx.data()) == g[0].data());
    });
    check_accumulates({"decoder dx", "decoder dmemory"}, {nt, ns}, [&](GradBuffers& g) {
      CHECK(dec.backward(h.ctx(), dc, g[0].data(), g[1].data(), wy.data()) == g[0].data());
    });
  }
}

TEST_CASE("grad: cross-entropy with label smoothing and an ignored pad", "[grad]") {
  Harness h;
  h.ready();
  const int R = 4, V = 5;
  Tensor z = h.input({size_t(R), size_t(V)});
  const std::vector<int32_t> t = {3, 0, 1, 4};  // row 1 is padding
  auto loss = [&] {
    h.ws.reset();
    return cross_entropy_loss(h.ctx(), z.data(), t.data(), 0.1f, 0, R, V).loss;
  };
  h.ws.reset();
  const LossResult r = cross_entropy_loss(h.ctx(), z.data(), t.data(), 0.1f, 0, R, V);
  CHECK(r.count == 3);
  const std::vector<float> g(r.dlogits, r.dlogits + R * V);
  for (int v = 0; v < V; ++v) CHECK(g[size_t(V + v)] == 0.f);
  test::check_grad("logits", z.data(), g.data(), R * V, loss, 20);
}
