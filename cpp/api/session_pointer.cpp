// Pointer-network sessions (see session_pointer.hpp).
#include "api/session_pointer.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "data/point_task.hpp"
#include "eval/point_eval.hpp"
#include "io/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "models/memory.hpp"

namespace attnlab::api {

namespace {

using nlohmann::json;

json object_or_empty(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return json::object();
  AL_CHECK(it->is_object(), "pointer session: \"" << key << "\" must be a JSON object");
  return *it;
}

}  // namespace

void PointerSession::set_task(const std::string& name, const json& options) {
  n_min_ = options.value("n_min", options.value("n", 5));
  n_max_ = options.value("n_max", std::max(n_min_, options.value("n", n_min_)));
  AL_CHECK(
      n_min_ >= 1 && n_max_ >= n_min_ && n_max_ <= 1000,
      "pointer session: need 1 <= n_min <= n_max <= 1000 (got " << n_min_ << ", " << n_max_ << ")");
  const std::string task = task_for_model(name, "pointer");
  const auto names = task_names();
  std::unique_ptr<Task> t = std::find(names.begin(), names.end(), task) != names.end()
                                ? make_task(task, {{"n_min", n_min_}, {"n_max", n_max_}})
                                : nullptr;
  AL_CHECK(t && t->input_dim() > 0,
           "pointer session: \"" << name << "\" is not a pointer task (convex-hull, tsp, sort)");
  task_ = std::move(t);
  task_name_ = name;
}

void PointerSession::set_train_options(const json& t) {
  train_config_ = t;
  opts_.batch = t.value("batch", 128);
  opts_.schedule.lr = t.value("lr", 1e-3f);
  opts_.clip = t.value("clip", 2.f);
  AL_CHECK(opts_.batch >= 1 && opts_.batch <= (1 << 16), "train.batch must be in [1, 65536]");
  AL_CHECK(opts_.schedule.lr > 0 && opts_.schedule.lr < 10, "train.lr must be in (0, 10)");
  opts_.seed = seed_ + uint64_t(steps_);
}

std::unique_ptr<PointerSession> PointerSession::create(const json& config) {
  AL_CHECK(config.is_object(), "session config must be a JSON object");
  std::unique_ptr<PointerSession> s(new PointerSession());
  AL_CHECK(config.contains("task") && config["task"].is_string(),
           "pointer session: needs a \"task\" (convex-hull, tsp, sort)");
  s->set_task(config["task"].get<std::string>(), object_or_empty(config, "task_options"));
  const auto m = config.find("model");
  const json model = m != config.end() && m->is_object() ? *m : json::object();
  const long seed = config.value("seed", 1L);
  AL_CHECK(seed >= 0 && seed <= 2147483647L, "session config: seed must be in [0, 2^31)");
  s->seed_ = uint64_t(seed);
  const int hidden = model.value("hidden", 128);
  AL_CHECK(hidden >= 1 && hidden <= 4096, "pointer model: hidden must be in [1, 4096]");
  json cfg = pointer_config_for(*s->task_, hidden, model.value("glimpse", false));
  for (const char* key : {"attn", "embed", "encoder", "process_steps"})
    if (model.contains(key)) cfg[key] = model[key];  // checked by PointerConfig::from_json
  const json train = object_or_empty(config, "train");
  check_fits(estimate_size(cfg, train.value("batch", 128), s->n_max_ + 1, s->n_max_ + 1),
             "this pointer network");
  s->model_ = make_model(cfg, cpu_kernels(), s->seed_);
  s->set_train_options(train);
  return s;
}

std::unique_ptr<PointerSession> PointerSession::load(const std::vector<uint8_t>& bytes,
                                                     const json& overrides) {
  AL_CHECK(overrides.is_object(), "load: overrides must be a JSON object");
  const SafeTensors st = parse_safetensors(bytes.data(), bytes.size());
  json state;
  std::unique_ptr<Model> m = model_from_safetensors(st, cpu_kernels(), &state);
  AL_CHECK(m->input_dim() > 0, "this checkpoint holds a "
                                   << m->config().value("model", std::string("?"))
                                   << " model, not a pointer network");
  std::unique_ptr<PointerSession> s(new PointerSession());
  s->model_ = std::move(m);
  s->steps_ = state.value("step", 0);
  s->seed_ = state.value("seed", uint64_t(1));
  std::string task = overrides.value("task", state.value("task", std::string()));
  AL_CHECK(!task.empty(), "this checkpoint names no task: pass {\"task\": ...}");
  json opts = object_or_empty(overrides, "task_options");
  if (!overrides.contains("task_options"))
    opts = {{"n_min", state.value("n_min", 5)}, {"n_max", state.value("n_max", 5)}};
  s->set_task(task, opts);
  AL_CHECK(s->model_->input_dim() == s->task_->input_dim(),
           "the checkpoint's inputs have " << s->model_->input_dim() << " features, task " << task
                                           << " has " << s->task_->input_dim());
  s->set_train_options(object_or_empty(overrides, "train"));
  return s;
}

json PointerSession::info() const {
  const json& c = model_->config();
  return {{"config", c},
          {"model", "pointer"},
          {"task", task_name_},
          {"task_options", {{"n_min", n_min_}, {"n_max", n_max_}}},
          {"params", model_->params().total()},
          {"step", steps_},
          {"seed", seed_},
          {"train", train_config_},
          {"dim", task_->input_dim()},
          {"autoregressive", true}};
}

PointerChunk PointerSession::train(int steps) {
  AL_CHECK(steps >= 1 && steps <= 100000, "train: steps must be in [1, 100000], got " << steps);
  if (!trainer_) trainer_ = std::make_unique<Trainer>(*model_, *task_, opts_);
  PointerChunk r;
  for (int i = 0; i < steps; ++i) {
    r.losses.push_back(float(trainer_->step().loss));
    ++steps_;
  }
  r.points = long(steps) * opts_.batch * (n_min_ + n_max_) / 2;
  r.step = steps_;
  return r;
}

json PointerSession::evaluate(int samples, uint64_t seed) {
  AL_CHECK(samples >= 1 && samples <= 100000, "evaluate: samples must be in [1, 100000]");
  return point_eval_json(evaluate_points(*model_, *task_, samples, n_min_, n_max_, seed),
                         task_->name());
}

PointerDecode PointerSession::decode(const std::vector<float>& x, int n) {
  AL_CHECK(n >= 1 && n <= 1000, "decode: n must be in [1, 1000], got " << n);
  AL_CHECK(
      x.size() == size_t(n) * task_->input_dim(),
      "decode: got " << x.size() << " values, expected n*dim = " << size_t(n) * task_->input_dim());
  const PointDecoded d = model_->decode_points(x, 1, n, 1, true);
  PointerDecode r;
  r.n = n;
  r.order = d.order[0];
  for (const auto& step : d.probs[0]) r.probs.insert(r.probs.end(), step.begin(), step.end());
  return r;
}

PointerExamples PointerSession::examples(int count, int n, Split split, uint64_t seed) const {
  AL_CHECK(count >= 1 && count <= 10000, "examples: count must be in [1, 10000]");
  if (n <= 0) n = n_min_;
  AL_CHECK(n <= 1000 && (task_->name() != "tsp" || n <= 10), "examples: n out of range");
  Rng rng(seed);
  const Batch b = task_->sample_sets(rng, split, count, n);
  std::vector<std::vector<int>> target(static_cast<size_t>(count));
  for (int r = 0; r < count; ++r)
    for (int t = 0; t < b.T && b.tgt_out[size_t(r) * b.T + t] != kEos; ++t)
      target[size_t(r)].push_back(b.tgt_out[size_t(r) * b.T + t] - kFirstSymbol);
  return {n, task_->input_dim(), b.x, target};
}

std::vector<uint8_t> PointerSession::save() {
  const json state = {{"step", steps_},  {"task", task_name_}, {"task_options", json::object()},
                      {"n_min", n_min_}, {"n_max", n_max_},    {"seed", seed_}};
  return serialize_safetensors(model_tensors(*model_, false, state));
}

}  // namespace attnlab::api
