// Sessions of the pointer network (cpp/api/model_session.hpp, the one session for every model):
// training follows the Trainer, decoding gives one distribution over inputs + end per output
// step, a point task without a model gets the pointer network, "sort" follows task_for_model,
// evaluation has the point metrics, and checkpoints round-trip (old ones included).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "api/model_session.hpp"
#include "core/check.hpp"
#include "data/point_task.hpp"
#include "io/checkpoint.hpp"
#include "io/safetensors.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

json hull_config() {
  return {{"model", {{"model", "pointer"}, {"hidden", 16}}},
          {"task", "convex-hull"},
          {"task_options", {{"n_min", 5}, {"n_max", 6}}},
          {"seed", 4},
          {"train", {{"batch", 8}}}};
}

}  // namespace

TEST_CASE("pointer session: trains like the Trainer and decodes distributions", "[api]") {
  auto s = api::Session::create(hull_config());
  const api::TrainChunk c = s->train(3);

  auto task = make_task("convex-hull", {{"n_min", 5}, {"n_max", 6}});
  auto ref = make_model(pointer_config_for(*task, 16, false), cpu_kernels(), 4);
  TrainOptions o = pointer_train_options();
  o.batch = 8, o.seed = 4;
  Trainer tr(*ref, *task, o);
  for (int i = 0; i < 3; ++i) CHECK(c.losses[i] == float(tr.step().loss));

  const api::PointExamples e = s->point_examples(1, 7, Split::Test, 3);
  REQUIRE(e.x.size() == 14);
  const api::PointDecode d = s->decode_points(e.x, 7);
  REQUIRE(d.probs.size() == (d.order.size() + 1) * 8);
  for (size_t t = 0; t <= d.order.size(); ++t) {
    double sum = 0;
    for (int j = 0; j < 8; ++j) sum += d.probs[t * 8 + j];
    CHECK(sum == Approx(1).margin(1e-5));
  }
  const EvalResult ev = s->evaluate(10, 1);
  CHECK(ev.area_coverage >= 0);
  CHECK(ev.invalid_rate >= 0);
  CHECK(ev.samples == 20);  // 10 sets for each n in 5..6
  CHECK(ev.per_length.size() == 2);

  auto t = api::Session::load(s->save(), json::object());
  CHECK(t->info()["step"] == 3);
  CHECK(t->info()["task_options"]["n_max"] == 6);
  CHECK(t->info()["dim"] == 2);
  CHECK(t->decode_points(e.x, 7).probs == d.probs);
}

TEST_CASE("pointer session: the task decides the model, and sort follows the model", "[api]") {
  auto hull = api::Session::create({{"task", "convex-hull"}, {"train", {{"batch", 4}}}});
  CHECK(hull->info()["model"] == "pointer");
  CHECK(hull->info()["config"]["min_outputs"] == 3);
  auto sort = api::Session::create({{"task", "sort"}});
  CHECK(sort->info()["model"] == "transformer");
  CHECK(sort->info()["dim"] == 0);
  auto psort = api::Session::create({{"model", "pointer"}, {"task", "sort"}});
  CHECK(psort->info()["dim"] == 1);
  CHECK(psort->info()["task"] == "sort");
  CHECK(psort->info()["config"]["permutation"] == true);
  auto again = api::Session::load(psort->save(), json::object());
  CHECK(again->info()["config"]["dim"] == 1);
  CHECK(again->info()["task"] == "sort");
}

// A checkpoint as `attn train --model pointer` writes it: empty task_options, the n range at the
// top level of the state.
TEST_CASE("pointer session: loads checkpoints that keep n_min/n_max at the top level", "[api]") {
  auto model = make_model(pointer_config_for(*make_task("tsp"), 8, false), cpu_kernels(), 2);
  const json state = {{"step", 7},  {"task", "tsp"}, {"task_options", json::object()},
                      {"n_min", 6}, {"n_max", 8},    {"seed", 3}};
  auto s = api::Session::load(serialize_safetensors(model_tensors(*model, false, state)),
                              json::object());
  CHECK(s->info()["task_options"]["n_min"] == 6);
  CHECK(s->info()["task_options"]["n_max"] == 8);
  CHECK(s->info()["step"] == 7);
  const EvalResult ev = s->evaluate(4, 1);
  CHECK(ev.tour_length >= ev.optimal_tour_length - 1e-9);
  CHECK(ev.per_length.size() == 3);
}

TEST_CASE("pointer session: errors", "[api]") {
  json c = hull_config();
  c["task"] = "reverse";
  CHECK_THROWS_WITH(api::Session::create(c), Catch::Contains("does not train on task reverse"));
  c = hull_config();
  c["task"] = "tsp";
  c["task_options"] = {{"n_min", 5}, {"n_max", 12}};
  CHECK_THROWS_WITH(api::Session::create(c), Catch::Contains("at most 10"));
  c = hull_config();
  c["model"] = "transformer";
  CHECK_THROWS_WITH(api::Session::create(c), Catch::Contains("point sets"));
  auto s = api::Session::create(hull_config());
  CHECK_THROWS_WITH(s->decode_points({1, 2, 3}, 2), Catch::Contains("expected n*dim = 4"));
  CHECK_THROWS_WITH(s->train_batch({{3}}, {{3}}), Catch::Contains("trains on its task only"));
  CHECK_THROWS_WITH(s->decode({{3}}, 1, 0, 0.6f), Catch::Contains("point sets"));
  CHECK_THROWS_WITH(s->examples(1, Split::Test, 1), Catch::Contains("point sets"));
  CHECK_THROWS_AS(api::Session::load(std::vector<uint8_t>(20, 1), json::object()), Error);
  CHECK(s->train(1).losses.size() == 1);
  auto tokens = api::Session::create({{"task", "reverse"}});
  CHECK_THROWS_WITH(tokens->decode_points({0.5f, 0.5f}, 1), Catch::Contains("token ids"));
}
