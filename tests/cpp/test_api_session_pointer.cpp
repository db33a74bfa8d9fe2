// Pointer-network sessions (cpp/api/session_pointer.hpp): training follows the Trainer,
// decoding gives one distribution over inputs + end per output step, checkpoints round-trip.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "api/session_pointer.hpp"
#include "core/check.hpp"
#include "data/point_task.hpp"

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
  auto s = api::PointerSession::create(hull_config());
  const api::PointerChunk c = s->train(3);

  auto task = make_task("convex-hull", {{"n_min", 5}, {"n_max", 6}});
  auto ref = make_model(pointer_config_for(*task, 16, false), cpu_kernels(), 4);
  TrainOptions o = pointer_train_options();
  o.batch = 8, o.seed = 4;
  Trainer tr(*ref, *task, o);
  for (int i = 0; i < 3; ++i) CHECK(c.losses[i] == float(tr.step().loss));

  const api::PointerExamples e = s->examples(1, 7, Split::Test, 3);
  REQUIRE(e.x.size() == 14);
  const api::PointerDecode d = s->decode(e.x, 7);
  REQUIRE(d.probs.size() == (d.order.size() + 1) * 8);
  for (size_t t = 0; t <= d.order.size(); ++t) {
    double sum = 0;
    for (int j = 0; j < 8; ++j) sum += d.probs[t * 8 + j];
    CHECK(sum == Approx(1).margin(1e-5));
  }
  const json ev = s->evaluate(10, 1);
  CHECK(ev.contains("area_coverage"));

  auto t = api::PointerSession::load(s->save(), json::object());
  CHECK(t->info()["step"] == 3);
  CHECK(t->info()["task_options"]["n_max"] == 6);
  CHECK(t->decode(e.x, 7).probs == d.probs);
}

TEST_CASE("pointer session: errors", "[api]") {
  json c = hull_config();
  c["task"] = "reverse";
  CHECK_THROWS_WITH(api::PointerSession::create(c), Catch::Contains("not a pointer task"));
  c = hull_config();
  c["task"] = "tsp";
  c["task_options"] = {{"n_min", 5}, {"n_max", 12}};
  CHECK_THROWS_WITH(api::PointerSession::create(c), Catch::Contains("at most 10"));
  auto s = api::PointerSession::create(hull_config());
  CHECK_THROWS_WITH(s->decode({1, 2, 3}, 2), Catch::Contains("expected n*dim = 4"));
  CHECK_THROWS_AS(api::PointerSession::load(std::vector<uint8_t>(20, 1), json::object()), Error);
  CHECK(s->train(1).losses.size() == 1);
}
