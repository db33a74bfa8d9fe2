// Limits on input from outside: JSON size and depth (core/json), sizes whose 32-bit products
// wrap (api functions), learning-rate validation, and the training step that stops on a
// non-finite loss with the weights of the last finite step.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "api/functions.hpp"
#include "api/standalone.hpp"
#include "core/check.hpp"
#include "core/json.hpp"
#include "models/memory.hpp"
#include "models/model.hpp"
#include "train/trainer.hpp"

using namespace attnlab;

namespace {

std::string nested(int levels) {
  return std::string(size_t(levels), '[') + std::string(size_t(levels), ']');
}

}  // namespace

TEST_CASE("json: depth counts brackets outside strings and stops past the limit", "[limits]") {
  CHECK(json_depth("{}") == 1);
  CHECK(json_depth(R"({"a":[1,{"b":[]}]})") == 4);
  CHECK(json_depth(R"({"a":"[[[[[[\"[[["})") == 1);
  CHECK(json_depth(nested(1000000), 64) == 65);
}

TEST_CASE("json: documents too deep, too large or malformed are refused with the limit named",
          "[limits]") {
  CHECK(parse_json(nested(64), "x").is_array());
  CHECK_THROWS_WITH(parse_json(nested(65), "cfg"),
                    Catch::Contains("cfg: JSON nested deeper than the limit of 64"));
  CHECK_THROWS_WITH(parse_json(nested(1000000), "cfg"), Catch::Contains("limit of 64"));
  const std::string big(kMaxJsonBytes + 1, ' ');
  CHECK_THROWS_WITH(parse_json(big, "cfg"),
                    Catch::Contains("larger than the limit of 16777216 bytes"));
  CHECK_THROWS_WITH(parse_json("{\"a\":", "cfg"), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse_json_object("[1]", "cfg"), Catch::Contains("expected a JSON object"));
  CHECK(parse_json_object("", "cfg", true).empty());
}

TEST_CASE("api: sizes whose 32-bit product wraps are refused before allocation", "[limits]") {
  CHECK_THROWS_AS(api::softmax({}, 65536, 65536, 1.f), Error);
  CHECK_THROWS_AS(api::positional_encoding(65536, 65536), Error);
  api::AttentionDims d;
  d.T = d.S = 1 << 20;  // weights [T,S]: 2^40 floats, beyond any memory budget
  d.Dk = d.Dv = 1;
  const std::vector<float> big(size_t(1) << 20, 0.f);
  CHECK_THROWS_WITH(api::attention(big, big, big, {}, d), Catch::Contains("MB"));
  d.T = d.S = 65536;
  const std::vector<float> q(65536, 0.f);
  d.Dk = d.Dv = 65536;
  CHECK_THROWS_WITH(api::attention(q, q, q, {}, d),
                    Catch::Contains("expected B*H*T*Dk = 4294967296"));
  CHECK(api::softmax({1.f, 1.f}, 1, 2, 1.f) == std::vector<float>{0.5f, 0.5f});
}

TEST_CASE("memory: sizes in messages are never negative", "[limits]") {
  CHECK(attnlab::megabytes(3.0 * (1ull << 40)) == "3145728 MB");
  CHECK(attnlab::megabytes(-5) == "0 MB");
  CHECK_THROWS_WITH(attnlab::check_alloc(1e30, "these buffers"),
                    Catch::Contains("these buffers need ") && !Catch::Contains("-"));
}

TEST_CASE("optim: learning rates and factors must be positive numbers", "[limits]") {
  Schedule s;
  s.kind = "constant";
  for (float lr : {-1.f, 0.f, std::nanf(""), INFINITY}) {
    s.lr = lr;
    CHECK_THROWS_WITH(s.at(1), Catch::Contains("learning rate must be a positive number"));
  }
  s.kind = "noam";
  s.factor = -2.f;
  CHECK_THROWS_WITH(s.at(1), Catch::Contains("factor must be a positive number"));
  s.factor = 1.f;
  s.warmup = 0;
  CHECK_THROWS_WITH(s.at(1), Catch::Contains("warmup"));
}

TEST_CASE("train: a step whose loss is not finite stops before the optimizer moves the weights",
          "[limits]") {
  auto task = make_task("reverse", {{"min_len", 2}, {"max_len", 4}, {"symbols", 5}});
  const int V = std::max(task->src_vocab(), task->tgt_vocab());
  const nlohmann::json cfg = {
      {"model", "transformer"}, {"d_model", 8},    {"heads", 2},     {"d_ff", 16},
      {"enc_layers", 1},        {"dec_layers", 1}, {"dropout", 0.0}, {"src_vocab", V},
      {"tgt_vocab", V},         {"max_len", 16}};
  auto m = make_model(cfg, cpu_kernels(), 1);
  TrainOptions o;
  o.batch = 4;
  o.schedule.kind = "constant";
  o.schedule.lr = 1e30f;
  Trainer tr(*m, *task, o);
  std::vector<float> before;
  int finite_steps = 0;
  bool stopped = false;
  for (int i = 0; i < 20 && !stopped; ++i) {
    before.assign(m->params().values(), m->params().values() + m->params().total());
    try {
      tr.step();
      ++finite_steps;
    } catch (const Error& e) {
      stopped = true;
      CHECK_THAT(e.what(), Catch::Contains("is not finite") && Catch::Contains("training step"));
    }
  }
  REQUIRE(stopped);
  CHECK(finite_steps >= 1);
  const float* after = m->params().values();
  for (size_t i = 0; i < before.size(); ++i) {
    REQUIRE(after[i] == before[i]);
    REQUIRE(std::isfinite(after[i]));
  }
  CHECK_THROWS_WITH(check_step_finite(7, std::nan(""), 1.f, 0.1f),
                    Catch::Contains("training step 7: the loss is not finite"));
  CHECK_THROWS_WITH(check_step_finite(7, 1.0, INFINITY, 0.1f),
                    Catch::Contains("gradient norm is not finite"));
  CHECK_NOTHROW(check_step_finite(7, 1.0, 2.f, 0.1f));
}
