// The cost bound on session calls (models/cost.hpp): the guide's own calls, on the shipped
// checkpoints and the playground's largest models, stay well under it; crafted calls far over it
// are refused by the session before any work, with a message naming the call, the cost, the
// bound and what to ask for instead. The hidden [.calibrate] case measures each kind's seconds
// per multiply-add against a large GEMM: the factors in models/registry.cpp come from it.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "kernels/kernels.hpp"
#include "models/cost.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

std::vector<uint8_t> shipped(const char* name) {
  const std::string path = std::string(ATTNLAB_FIXTURES "/../../web/public/models/") + name;
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// "Well under": at most a quarter of the bound.
constexpr double kWellUnder = 0.25;

// The playground's configs (web/demos/playground/index.js modelConfig), at their largest.
json playground_transformer() {
  return {{"model",
           {{"model", "transformer"},
            {"d_model", 128},
            {"heads", 8},
            {"d_ff", 256},
            {"enc_layers", 2},
            {"dec_layers", 2}}},
          {"task", "reverse"},
          {"task_options", {{"min_len", 3}, {"max_len", 20}, {"symbols", 10}}},
          {"train", {{"batch", 128}}}};
}

json playground_recurrent(const char* kind) {
  return {{"model", {{"model", kind}, {"emb", 32}, {"hidden", 64}}},
          {"task", "reverse"},
          {"task_options", {{"min_len", 3}, {"max_len", 20}, {"symbols", 10}}},
          {"train", {{"batch", 128}}}};
}

json pointer_sort(int hidden, int n_max) {
  return {
      {"model", {{"model", "pointer"}, {"hidden", hidden}, {"embed", hidden}, {"glimpse", true}}},
      {"task", "sort"},
      {"task_options", {{"n_min", 5}, {"n_max", n_max}}},
      {"train", {{"batch", 8}}}};
}

std::string refusal(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cost: units in messages have two significant digits", "[cost]") {
  CHECK(work_units(0) == "0.0e0");
  CHECK(work_units(2e10) == "2.0e10");
  CHECK(work_units(1.234e12) == "1.2e12");
  CHECK(work_units(9.96e9) == "1.0e10");
  CHECK(work_units(std::nan("")) == "0.0e0");
  CHECK_NOTHROW(check_cost(kMaxCallCost, "x", "y"));
  CHECK_THROWS_WITH(check_cost(3 * kMaxCallCost, "evaluate(5)", "evaluate fewer samples"),
                    Catch::Contains("evaluate(5): this call would take about ") &&
                        Catch::Contains(" 3.0 times the " + work_units(kMaxCallCost) +
                                        " one call may do; evaluate fewer samples"));
  CHECK_THROWS_AS(check_cost(std::nan(""), "x", "y"), Error);
}

TEST_CASE("cost: a step costs a quadratic in its index at most, and decoding sums them", "[cost]") {
  // the decoder-only LM re-reads its prefix at each step: the sum over steps is exact
  const json lm = {{"model", "lm"},   {"d_model", 32},   {"d_ff", 64},   {"dec_layers", 2},
                   {"tgt_vocab", 50}, {"src_vocab", 50}, {"max_len", 64}};
  const KindWork& w = kind_work(lm);
  double sum = 0;
  for (int t = 0; t < 40; ++t) sum += w.step(lm, 3, 5, t);
  CHECK(decode_cost(lm, 3, 5, 1, 40) == Approx((w.encode(lm, 3, 5) + sum) * w.factor));
  // beam search: one search of `beam` rows per source
  CHECK(decode_cost(lm, 2, 5, 4, 40) == Approx(2 * decode_cost(lm, 1, 5, 4, 40)));
  CHECK(decode_cost(lm, 1, 5, 4, 40) == Approx(4 * decode_cost(lm, 1, 5, 1, 40)));
  // no kind runs faster than a large GEMM; the pointer network's small products run slowest, and
  // RNNsearch pays for its additive attention over RNNencdec
  const double pointer = kind_work({{"model", "pointer"}}).factor;
  for (const char* kind : {"transformer", "lm", "encoder", "rnnsearch", "rnnencdec", "luong"}) {
    CHECK(kind_work({{"model", kind}}).factor >= 1);
    CHECK(kind_work({{"model", kind}}).factor < pointer);
  }
  CHECK(kind_work({{"model", "rnnsearch"}}).factor > kind_work({{"model", "rnnencdec"}}).factor);
}

TEST_CASE("cost: the guide's calls on the shipped checkpoints stay well under the bound",
          "[cost]") {
  const double under = kWellUnder * kMaxCallCost;
  {  // §7's translator: greedy and beam 8, on the longest text it takes (model max_len)
    auto s = api::Session::load(shipped("translate-de-en.safetensors"), json::object());
    const json& cfg = s->model().config();
    const int S = s->model().max_len(), limit = s->model().max_len() - 1;
    CHECK(decode_cost(cfg, 1, S, 8, limit) < under);
    CHECK(forward_cost(cfg, 1, S, limit + 1) < under);
    const std::vector<int32_t> src =
        s->encode_text("Wir haben heute morgen einen langen Brief an unsere Freunde geschrieben.");
    const int max_len = 2 * int(src.size()) + 10;  // the translator's (web/core/api.js)
    const api::Rows out = s->decode({src}, 8, max_len, 0.6f);
    CHECK_NOTHROW(s->decode({src}, 1, max_len, 0.6f));
    CHECK_NOTHROW(s->inspect({src}, out));
  }
  {  // the pointer demo: the shipped hull network, on its point sets and on the file's own range
    auto s = api::Session::load(shipped("pointer-hull.safetensors"), json::object());
    const json& cfg = s->model().config();
    CHECK(evaluate_points_cost(cfg, 200, 5, 10) < under);
    CHECK(evaluate_points_cost(cfg, 200, 5, 20) < under);  // the playground's import of it
    CHECK(decode_cost(cfg, 1, 100, 1, 101) < under);       // a hundred points clicked
    const api::PointExamples e = s->point_examples(1, 20, Split::Test, 1);
    CHECK(s->decode_points(e.x, 20).n == 20);
    CHECK(train_step_cost(cfg, 32, 10, 11) * 25 < under);  // the fine-tune's chunks
  }
  {  // §5's generation: the LM inspected on a row of its whole length
    const json load_as = {{"task", "copy"},
                          {"task_options", {{"min_len", 1}, {"max_len", 8}, {"symbols", 10}}}};
    auto s = api::Session::load(shipped("lm-moby-dick.safetensors"), load_as);
    const json& cfg = s->model().config();
    CHECK(forward_cost(cfg, 1, 0, s->model().max_len()) < under);
    CHECK(decode_cost(cfg, 1, 1, 1, s->model().max_len() - 2) < under);
    CHECK_NOTHROW(s->inspect({{}}, {std::vector<int32_t>(30, 7)}));
  }
  {  // the multi-head demo: the phrase Transformer, measured on 200 held-out phrases
    auto s = api::Session::load(shipped("transformer-phrases.safetensors"), json::object());
    CHECK(s->evaluate(200, 77).samples == 200);
  }
}

TEST_CASE("cost: the playground's largest models train and are measured under the bound",
          "[cost]") {
  const double under = kWellUnder * kMaxCallCost;
  for (const json& c : {playground_transformer(), playground_recurrent("rnnsearch"),
                        playground_recurrent("rnnencdec"), playground_recurrent("luong")}) {
    INFO(c.dump());
    auto s = api::Session::create(c);
    const json& cfg = s->model().config();
    CHECK(evaluate_cost(cfg, 200, 20, 21) < under);
    // the Worker trains in chunks of about 40 ms, a step at a time at first
    CHECK(train_step_cost(cfg, 128, 20, 21) * 10 < under);
    CHECK(s->train(1).step == 1);
    CHECK(s->evaluate(200, 5).samples == 200);
  }
  // the pointer network, medium, measured on its longest point sets ("longer inputs")
  auto p = api::Session::create(pointer_sort(64, 10));
  CHECK(evaluate_points_cost(p->model().config(), 200, 11, 15) < under);
  CHECK(train_step_cost(p->model().config(), 128, 10, 11) * 10 < under);
}

TEST_CASE("cost: crafted calls far over the bound are refused before any work", "[cost]") {
  {  // a pointer checkpoint whose point sets reach 1,000 points, measured on 200 sets per size
    auto small = api::Session::create(pointer_sort(32, 10));
    small->train(1);
    auto s = api::Session::load(small->save(), {{"task_options", {{"n_min", 5}, {"n_max", 1000}}}});
    const std::string m = refusal([&] { s->evaluate(200, 1); });
    CHECK_THAT(m,
               Catch::StartsWith("evaluate(200): this call would take about ") &&
                   Catch::Contains("times the " + work_units(kMaxCallCost) + " one call may do") &&
                   Catch::Contains("evaluate fewer samples") &&
                   Catch::Contains("from 5 to 1000 points"));
    CHECK(s->info()["step"] == 1);  // nothing ran
  }
  auto s = api::Session::load(shipped("translate-de-en.safetensors"), json::object());
  const api::Rows rows(6000, std::vector<int32_t>(120, 5));
  CHECK_THAT(refusal([&] { s->decode(rows, 64, 0, 0.6f); }),
             Catch::StartsWith("decode: this call would take about ") &&
                 Catch::Contains("with a smaller beam"));
  CHECK_THAT(refusal([&] { s->inspect(rows, rows); }), Catch::StartsWith("inspect: "));
  CHECK_THAT(refusal([&] { s->train_batch(rows, rows); }),
             Catch::StartsWith("trainBatch: this call would take"));
  CHECK(s->info()["step"] == 20488);
  auto p = api::Session::create(playground_transformer());
  CHECK_THAT(refusal([&] { p->train(100000); }),
             Catch::StartsWith("train(100000): this call would take") &&
                 Catch::Contains("train fewer steps per call"));
  CHECK(p->info()["step"] == 0);
}

// Times each kind's evaluate (one thread) and a 256x256x256 GEMM; prints seconds per estimated
// multiply-add and its ratio to the GEMM's, the factor registry.cpp takes (rounded up).
TEST_CASE("cost: calibration of the kinds' factors", "[.calibrate]") {
  set_num_threads(1);
  using clock = std::chrono::steady_clock;
  const auto seconds = [](auto&& f, int reps) {
    f();  // warm
    const auto t0 = clock::now();
    for (int i = 0; i < reps; ++i) f();
    return std::chrono::duration<double>(clock::now() - t0).count() / reps;
  };
  const int N = 256;
  std::vector<float> A(size_t(N) * N, 0.5f), B(A), C(A);
  const double gemm = seconds(
                          [&] {
                            cpu_kernels().gemm(false, false, N, N, N, 1.f, A.data(), N, B.data(), N,
                                               0.f, C.data(), N);
                          },
                          20) /
                      (double(N) * N * N);
  std::printf("gemm %.3g s per multiply-add\n", gemm);
  const json configs[] = {
      {{"model", {{"model", "transformer"}, {"d_model", 64}, {"heads", 4}, {"d_ff", 128}}},
       {"task", "reverse"}},
      {{"model", {{"model", "lm"}, {"d_model", 64}, {"heads", 4}, {"d_ff", 128}}},
       {"task", "reverse"}},
      {{"model", {{"model", "encoder"}, {"d_model", 64}, {"heads", 4}, {"d_ff", 128}}},
       {"task", "copy"}},
      playground_recurrent("rnnsearch"),
      playground_recurrent("rnnencdec"),
      playground_recurrent("luong"),
      pointer_sort(64, 10),
      pointer_sort(128, 10),
  };
  for (const json& c : configs) {
    auto s = api::Session::create(c);
    const json cfg = s->model().config();
    const int samples = 200;
    const auto task =
        make_task(c["task"].get<std::string>(), c.value("task_options", json::object()));
    const double est =
        task->input_dim() > 0
            ? evaluate_points_cost(cfg, samples, task->min_src_len(), task->max_src_len())
            : evaluate_cost(cfg, samples, task->max_src_len(), task->max_tgt_len() + 1);
    const double macs = est / kind_work(cfg).factor;
    const double t = seconds([&] { s->evaluate(samples, 3); }, 3);
    std::printf("%-12s hidden/width %-4d %.3g multiply-adds, %.3g s: factor %.2f\n",
                cfg["model"].get<std::string>().c_str(),
                cfg.value("hidden", cfg.value("d_model", 0)), macs, t, t / macs / gemm);
  }
}
