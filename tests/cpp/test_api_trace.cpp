// Tracing a forward pass (Session::inspect with InspectOptions::trace): the trace's logits are
// the inspection's own, bit for bit, and the same as a pass without the trace; and every step
// of the chain is recomputed here in double from the traced pieces and the model's parameters
// (embedding and positions, Q/K/V projections, scaled scores with the causal mask at -inf,
// softmax weights, the heads' weighted sums of V, the output projection, residual sums, layer
// norms, the FFN's two linears and ReLU, the final norm and the tied output layer), for post-LN
// and pre-LN (norm_first) language models and for an encoder-only tagger. A pass without the
// option keeps nothing to trace, and models without one stack of Transformer layers refuse.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "core/check.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

json tr_config(const std::string& kind, bool norm_first) {
  json m = {{"model", kind},   {"d_model", 16},   {"heads", 4},     {"d_ff", 24},
            {"enc_layers", 2}, {"dec_layers", 2}, {"dropout", 0.1}, {"norm_first", norm_first}};
  if (kind == "lm") m["tie_embeddings"] = true;
  if (kind == "rnnsearch") m = {{"model", kind}, {"emb", 8}, {"hidden", 16}, {"attn", 8}};
  return {{"model", m},
          {"task", "reverse"},
          {"task_options", {{"min_len", 2}, {"max_len", 5}, {"symbols", 6}}},
          {"seed", 3},
          {"train", {{"batch", 8}, {"warmup", 20}}}};
}

// Two rows of different lengths: the shorter one is padded.
const api::Rows kTraceSrc = {{3, 4, 5, 6}, {7, 3}};
const api::Rows kTraceTgt = {{6, 5, 4, 3}, {3, 7}};

api::InspectOptions tr_options() {
  api::InspectOptions o;
  o.trace = true;
  return o;
}

// A parameter's values (CPU sessions keep them on the host).
const float* tr_param(api::Session& s, const std::string& name) {
  const ParamArena& P = s.model().params();
  const int id = P.find(name);
  REQUIRE(id >= 0);
  return P.val(id);
}

// y [n,out] = x [n,in] Wᵀ + b in double
std::vector<double> tr_linear(const std::vector<float>& x, int n, int in, const float* W,
                              const float* b, int out) {
  std::vector<double> y(size_t(n) * out);
  for (int i = 0; i < n; ++i)
    for (int o = 0; o < out; ++o) {
      double a = b ? b[o] : 0.0;
      for (int k = 0; k < in; ++k) a += double(x[size_t(i) * in + k]) * W[size_t(o) * in + k];
      y[size_t(i) * out + o] = a;
    }
  return y;
}

// LayerNorm over rows [n,C] (eps 1e-5), in double
std::vector<double> tr_layer_norm(const std::vector<float>& x, int n, int C, const float* g,
                                  const float* b) {
  std::vector<double> y(size_t(n) * C);
  for (int i = 0; i < n; ++i) {
    double mean = 0, var = 0;
    for (int c = 0; c < C; ++c) mean += x[size_t(i) * C + c];
    mean /= C;
    for (int c = 0; c < C; ++c) var += std::pow(x[size_t(i) * C + c] - mean, 2);
    var /= C;
    for (int c = 0; c < C; ++c)
      y[size_t(i) * C + c] = (x[size_t(i) * C + c] - mean) / std::sqrt(var + 1e-5) * g[c] + b[c];
  }
  return y;
}

std::vector<double> tr_sum(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  std::vector<double> y(a.size());
  for (size_t i = 0; i < a.size(); ++i) y[i] = double(a[i]) + b[i];
  return y;
}

// The largest |want - got| (got: a traced tensor, whose size must match).
double tr_off(const std::vector<double>& want, const std::vector<float>& got) {
  REQUIRE(want.size() == got.size());
  double d = 0;
  for (size_t i = 0; i < want.size(); ++i) d = std::max(d, std::fabs(want[i] - got[i]));
  return d;
}

bool tr_same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Recomputes one row's chain from its trace and the parameters; returns how many tensors it
// checked. V: the vocabulary, causal: the self-attention's mask.
int tr_check_chain(api::Session& s, const ForwardTrace& tr, const std::string& stack, int layers,
                   bool pre, bool causal, int C, int H, int F, int V, const std::string& embed) {
  const int n = int(tr.tokens.size()), hs = C / H;
  const auto T = [&](const std::string& name) -> const std::vector<float>& {
    return tr.at(name).values;
  };
  int checked = 0;
  // the embedding: E[id]·√C, the sinusoidal positions, their sum
  const float* E = tr_param(s, embed);
  std::vector<double> want(size_t(n) * C);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < C; ++c)
      want[size_t(i) * C + c] = double(E[size_t(tr.tokens[size_t(i)]) * C + c]) * std::sqrt(C);
  CHECK(tr_off(want, T("embed.token")) < 1e-5);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < C; ++c)
      want[size_t(i) * C + c] = c % 2 == 0 ? std::sin(i * std::pow(10000.0, -double(c) / C))
                                           : std::cos(i * std::pow(10000.0, -double(c - 1) / C));
  CHECK(tr_off(want, T("embed.position")) < 1e-6);
  CHECK(tr_off(tr_sum(T("embed.token"), T("embed.position")), T("embed")) < 1e-6);
  checked += 3;
  const std::vector<float>* x = &T("embed");
  for (int l = 0; l < layers; ++l) {
    const std::string p = stack + ".layers." + std::to_string(l) + ".";
    INFO(p);
    CHECK(tr_same_bits(T(p + "input"), *x));  // the previous layer's output, as is
    const std::vector<float>& in = pre ? T(p + "norm1") : *x;
    if (pre)
      CHECK(tr_off(tr_layer_norm(*x, n, C, tr_param(s, p + "norm1.weight"),
                                 tr_param(s, p + "norm1.bias")),
                   in) < 1e-5);
    // Q, K, V: the input projection, split per head [H,n,hs]
    const std::vector<double> qkv = tr_linear(in, n, C, tr_param(s, p + "self_attn.in_proj_weight"),
                                              tr_param(s, p + "self_attn.in_proj_bias"), 3 * C);
    for (int part = 0; part < 3; ++part) {
      const std::vector<float>& got = T(p + "self_attn." + "qkv"[part]);
      REQUIRE(tr.at(p + "self_attn." + "qkv"[part]).dims == std::vector<int>{H, n, hs});
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i)
          for (int d = 0; d < hs; ++d)
            CHECK(std::fabs(qkv[size_t(i) * 3 * C + size_t(part) * C + size_t(h) * hs + d] -
                            got[(size_t(h) * n + i) * hs + d]) < 1e-5);
    }
    // scores q·kⱼ/√hs (-inf where the mask hides key j), weights = their softmax, heads = Σ w v
    const std::vector<float>&q = T(p + "self_attn.q"), &k = T(p + "self_attn.k"),
          &v = T(p + "self_attn.v"), &sc = T(p + "self_attn.scores"),
          &w = T(p + "self_attn.weights"), &heads = T(p + "self_attn.heads");
    REQUIRE(tr.at(p + "self_attn.scores").dims == std::vector<int>{H, n, n});
    int masked = 0;
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < n; ++i) {
        const size_t row = (size_t(h) * n + i) * n;
        double mx = -1e300, z = 0;
        for (int j = 0; j < n; ++j) {
          if (causal && j > i) {
            CHECK(std::isinf(sc[row + j]));
            CHECK(sc[row + j] < 0);
            CHECK(w[row + j] == 0.f);
            ++masked;
            continue;
          }
          double dot = 0;
          for (int d = 0; d < hs; ++d)
            dot += double(q[(size_t(h) * n + i) * hs + d]) * k[(size_t(h) * n + j) * hs + d];
          CHECK(std::fabs(dot / std::sqrt(hs) - sc[row + j]) < 1e-5);
          mx = std::max(mx, double(sc[row + j]));
        }
        for (int j = 0; j < n; ++j)
          if (!(causal && j > i)) z += std::exp(sc[row + j] - mx);
        for (int j = 0; j < n; ++j)
          if (!(causal && j > i))
            CHECK(std::fabs(std::exp(sc[row + j] - mx) / z - w[row + j]) < 1e-6);
        for (int d = 0; d < hs; ++d) {
          double a = 0;
          for (int j = 0; j < n; ++j) a += double(w[row + j]) * v[(size_t(h) * n + j) * hs + d];
          CHECK(std::fabs(a - heads[size_t(i) * C + size_t(h) * hs + d]) < 1e-5);
        }
      }
    CHECK(masked == (causal ? H * n * (n - 1) / 2 : 0));
    CHECK(tr_off(tr_linear(heads, n, C, tr_param(s, p + "self_attn.out_proj.weight"),
                           tr_param(s, p + "self_attn.out_proj.bias"), C),
                 T(p + "self_attn.out_proj")) < 1e-5);
    CHECK(tr_off(tr_sum(*x, T(p + "self_attn.out_proj")), T(p + "add1")) < 1e-6);
    // the FFN's input: LN(x + attention) post-LN, LN of the residual sum pre-LN
    const std::vector<float>& h1 = pre ? T(p + "add1") : T(p + "norm1");
    const std::string ln2 = pre ? "norm2" : "norm1";
    CHECK(tr_off(tr_layer_norm(T(p + "add1"), n, C, tr_param(s, p + ln2 + ".weight"),
                               tr_param(s, p + ln2 + ".bias")),
                 T(p + ln2)) < 1e-5);
    const std::vector<float>& ffn_in = T(p + ln2);
    CHECK(tr_off(tr_linear(ffn_in, n, C, tr_param(s, p + "linear1.weight"),
                           tr_param(s, p + "linear1.bias"), F),
                 T(p + "linear1")) < 1e-5);
    const std::vector<float>&pre_act = T(p + "linear1"), &act = T(p + "activation");
    REQUIRE(act.size() == size_t(n) * F);
    for (size_t i = 0; i < act.size(); ++i) CHECK(act[i] == std::max(pre_act[i], 0.f));  // ReLU
    CHECK(tr_off(tr_linear(act, n, F, tr_param(s, p + "linear2.weight"),
                           tr_param(s, p + "linear2.bias"), C),
                 T(p + "linear2")) < 1e-5);
    CHECK(tr_off(tr_sum(h1, T(p + "linear2")), T(p + "add2")) < 1e-6);
    if (!pre)
      CHECK(tr_off(tr_layer_norm(T(p + "add2"), n, C, tr_param(s, p + "norm2.weight"),
                                 tr_param(s, p + "norm2.bias")),
                   T(p + "norm2")) < 1e-5);
    x = &T(p + (pre ? "add2" : "norm2"));
    checked += 14;
  }
  const std::vector<float>& hidden = T(stack + ".norm");
  CHECK(tr_off(tr_layer_norm(*x, n, C, tr_param(s, stack + ".norm.weight"),
                             tr_param(s, stack + ".norm.bias")),
               hidden) < 1e-5);
  const std::string gen = stack == "decoder" ? embed : "generator.weight";
  CHECK(tr_off(tr_linear(hidden, n, C, tr_param(s, gen), tr_param(s, "generator.bias"), V),
               T("logits")) < 1e-4);
  return checked + 2;
}

}  // namespace

TEST_CASE("inspect trace: a language model's forward pass, step by step", "[api][trace]") {
  for (const bool pre : {false, true}) {
    INFO("norm_first " << pre);
    auto s = api::Session::create(tr_config("lm", pre));
    s->train(3);
    const api::Inspection plain = s->inspect(kTraceSrc, kTraceTgt);
    const api::Inspection in = s->inspect(kTraceSrc, kTraceTgt, tr_options());
    CHECK(plain.traces.empty());
    REQUIRE(in.traces.size() == 2);
    // tracing changes nothing the pass computes
    CHECK(tr_same_bits(plain.logits, in.logits));
    const int V = in.V;
    for (size_t r = 0; r < 2; ++r) {
      INFO("row " << r);
      const ForwardTrace& tr = in.traces[r];
      // the packed row: the source, then <s> and the target
      std::vector<int32_t> want = kTraceSrc[r];
      want.push_back(kBos);
      want.insert(want.end(), kTraceTgt[r].begin(), kTraceTgt[r].end());
      CHECK(tr.tokens == want);
      CHECK(tr.first == int(kTraceSrc[r].size()));
      const int n = int(want.size());
      // in computation order: 3 embedding tensors, 15 per layer, the final norm, the logits
      REQUIRE(tr.tensors.size() == 3 + 2 * 15 + 2);
      CHECK(tr.tensors.front().name == "embed.token");
      CHECK(tr.tensors.back().name == "logits");
      CHECK(tr.at("logits").dims == std::vector<int>{n, V});
      // the logits of the target positions are the inspection's, bit for bit
      const std::vector<float>& logits = tr.at("logits").values;
      for (int t = 0; tr.first + t < n; ++t)
        CHECK(std::memcmp(logits.data() + size_t(tr.first + t) * V,
                          in.logits.data() + (r * in.T + size_t(t)) * V, V * sizeof(float)) == 0);
      CHECK(tr_check_chain(*s, tr, "decoder", 2, pre, true, 16, 4, 24, V, "tgt_embed.weight") ==
            33);
    }
  }
}

TEST_CASE("inspect trace: with the causal mask lifted, no score is masked", "[api][trace]") {
  auto s = api::Session::create(tr_config("lm", false));
  s->train(2);
  api::InspectOptions o = tr_options();
  o.causal = false;
  const api::Inspection in = s->inspect(kTraceSrc, kTraceTgt, o);
  REQUIRE(in.traces.size() == 2);
  CHECK(tr_check_chain(*s, in.traces[0], "decoder", 2, false, false, 16, 4, 24, in.V,
                       "tgt_embed.weight") == 33);
}

TEST_CASE("inspect trace: an encoder-only tagger", "[api][trace]") {
  auto s = api::Session::create(tr_config("encoder", false));
  s->train(2);
  const api::Inspection in = s->inspect(kTraceSrc, kTraceTgt, tr_options());
  REQUIRE(in.traces.size() == 2);
  const ForwardTrace& tr = in.traces[1];
  CHECK(tr.tokens == std::vector<int32_t>{7, 3});
  CHECK(tr.first == 0);
  CHECK(tr_check_chain(*s, tr, "encoder", 2, false, false, 16, 4, 24, in.V, "src_embed.weight") ==
        33);
}

TEST_CASE("inspect trace: refused where there is no single stack to trace", "[api][trace]") {
  auto t = api::Session::create(tr_config("transformer", false));
  CHECK_THROWS_WITH(t->inspect(kTraceSrc, kTraceTgt, tr_options()),
                    Catch::Contains("trace") && Catch::Contains("encoder-decoder"));
  auto r = api::Session::create(tr_config("rnnsearch", false));
  CHECK_THROWS_WITH(r->inspect(kTraceSrc, kTraceTgt, tr_options()),
                    Catch::Contains("\"rnnsearch\""));
  // a pass without the option keeps no scores to trace
  auto s = api::Session::create(tr_config("lm", false));
  s->inspect(kTraceSrc, kTraceTgt);
  ForwardTracing* f = capability<ForwardTracing>(s->model());
  REQUIRE(f);
  CHECK_THROWS_WITH(f->trace(0), Catch::Contains("did not run with tracing on"));
  s->inspect(kTraceSrc, kTraceTgt, tr_options());
  CHECK_THROWS_WITH(f->trace(2), Catch::Contains("out of range"));
  CHECK(f->trace(1).tokens.size() == 5);  // 7 3 <s> 3 7
}
