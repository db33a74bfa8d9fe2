// Model sessions (see model_session.hpp): config resolution as in `attn train`, training on the
// task through the shared Trainer or on given batches, evaluation, decoding of token rows,
// checkpoints (inspection, examples, point sets and text: model_session_read.cpp).
// Long because: the public Session's config resolution, training, evaluation and decoding read
// the same private state; the reading side (inspection, examples, point sets, text) is already
// apart in model_session_read.cpp.
#include "api/model_session.hpp"

#include <algorithm>
#include <cmath>

#include "core/check.hpp"
#include "data/point_task.hpp"
#include "eval/align_eval.hpp"
#include "eval/decode.hpp"
#include "io/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "models/cost.hpp"
#include "parallel/thread_ranks.hpp"
#include "train/step.hpp"
#include "train/train_state.hpp"

namespace attnlab::api {

namespace {

using nlohmann::json;

json object_or_empty(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return json::object();
  AL_CHECK(it->is_object(), "session config: \"" << key << "\" must be a JSON object");
  return *it;
}

std::string string_or_empty(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  AL_CHECK(it->is_string(), "session config: \"" << key << "\" must be a string");
  return it->get<std::string>();
}

// The model kind a session config names ("" when none).
std::string model_kind(const json& config) {
  AL_CHECK(config.is_object(), "session config must be a JSON object");
  const auto it = config.find("model");
  if (it == config.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  AL_CHECK(it->is_object(), "session config: \"model\" must be a model kind or a model config");
  return it->contains("model") && (*it)["model"].is_string() ? (*it)["model"].get<std::string>()
                                                             : "";
}

// The model config of a session config, completed from the task as `attn train` does: token
// tasks set the vocabularies and max_len, point tasks their input fields; without a model the
// task's default kind (point tasks: the pointer network).
json resolve_model(const json& config, const Task* task) {
  AL_CHECK(config.is_object(), "session config must be a JSON object");
  json cfg = json::object();
  const auto it = config.find("model");
  if (it != config.end() && it->is_string())
    cfg["model"] = *it;
  else if (it != config.end()) {
    AL_CHECK(it->is_object(), "session config: \"model\" must be a model kind or a model config");
    cfg = *it;
  }
  if (!cfg.contains("model")) cfg["model"] = task ? task->default_model() : "transformer";
  if (task && task->input_dim() > 0) {
    const json fields = task->model_fields();
    for (const auto& [k, v] : fields.items()) cfg[k] = v;
  } else if (task) {
    cfg["src_vocab"] = std::max(task->src_vocab(), task->tgt_vocab());
    cfg["tgt_vocab"] = std::max(task->src_vocab(), task->tgt_vocab());
    if (!cfg.contains("max_len")) cfg["max_len"] = task->max_src_len() + task->max_tgt_len() + 2;
  }
  return cfg;
}

// Whether the session's data are point sets (the default batch differs): the task decides, so no
// model kind is named here; a model that does not read the task's inputs is refused later.
bool reads_points(const Task* task) { return task && task->input_dim() > 0; }

int batch_of(const json& train, bool points = false) {
  const int b = train.value("batch", points ? pointer_train_options().batch : 64);
  AL_CHECK(b >= 1 && b <= (1 << 16), "train.batch must be in [1, 65536], got " << b);
  return b;
}

SizeEstimate estimate_for(const json& model_cfg, const Task* task, int B) {
  const bool sets = task && task->input_dim() > 0;  // n inputs and the end symbol
  const int S = task ? task->max_src_len() + (sets ? 1 : 0) : model_cfg.value("max_len", 64);
  const int T = task ? task->max_tgt_len() + 1 : model_cfg.value("max_len", 64);
  return estimate_size(model_cfg, B, std::max(1, S), std::max(1, T));
}

// The kernel table of a session's "backend" ("cpu": the SIMD kernels, natively or in wasm).
const KernelTable& table_for(const std::string& backend) {
  if (backend == "cpu") return cpu_kernels();
  AL_CHECK(backend == "webgpu",
           "session config: unknown backend \"" << backend << "\" (cpu, webgpu)");
  const KernelTable* t = webgpu_kernels();
  AL_CHECK(t,
           "backend \"webgpu\": this engine has no WebGPU table attached (WebGPU is not "
           "available here, or the page did not start it)");
  return *t;
}

std::string backend_of(const json& j) {
  const std::string b = string_or_empty(j, "backend");
  return b.empty() || b == "wasm" ? "cpu" : b;
}

// The kernel thread count for the steps of one train() call, the engine's own again after it.
class KernelThreads {
 public:
  explicit KernelThreads(int n) : old_(num_threads()) {
    if (n != old_) set_num_threads(n);
  }
  ~KernelThreads() {
    if (num_threads() != old_) set_num_threads(old_);
  }
  KernelThreads(const KernelThreads&) = delete;
  KernelThreads& operator=(const KernelThreads&) = delete;

 private:
  int old_;
};

// One rank, as `mode` with the reason `why` (the plan's estimates kept).
json one_rank(ThreadPlan p, const char* mode, int kernel_threads, const std::string& why) {
  p.mode = mode;
  p.ranks = 1;
  p.kernel_threads = kernel_threads;
  p.why = why;
  return p.to_json();
}

}  // namespace

SizeEstimate Session::estimate(const json& config) {
  const std::string task = string_or_empty(config, "task");
  const auto t = task.empty() ? nullptr
                              : make_task(task_for_model(task, model_kind(config)),
                                          object_or_empty(config, "task_options"));
  const json model_cfg = resolve_model(config, t.get());
  return estimate_for(model_cfg, t.get(),
                      batch_of(object_or_empty(config, "train"), reads_points(t.get())));
}

std::unique_ptr<Session> Session::create(const json& config) {
  std::unique_ptr<Session> s(new Session());
  AL_CHECK(config.is_object(), "session config must be a JSON object");
  const std::string task = string_or_empty(config, "task");
  if (!task.empty()) s->set_task(task, object_or_empty(config, "task_options"), model_kind(config));
  const json model_cfg = resolve_model(config, s->task_.get());
  const long seed = config.value("seed", 1L);
  AL_CHECK(seed >= 0 && seed <= 2147483647L,
           "session config: seed must be in [0, 2^31), got " << seed);
  s->seed_ = uint64_t(seed);
  const json train = object_or_empty(config, "train");
  check_fits(estimate_for(model_cfg, s->task_.get(), batch_of(train, reads_points(s->task_.get()))),
             "this model");
  s->backend_ = backend_of(config);
  s->model_ = make_model(model_cfg, table_for(s->backend_), s->seed_);
  if (s->task_)
    AL_CHECK(s->task_->input_dim() == s->model_->input_dim(),
             "a " << s->model_->kind() << " model does not train on task " << task
                  << (s->task_->input_dim() > 0 ? " (point sets: model \"pointer\")"
                                                : " (token sequences)"));
  s->set_train_options(train);
  return s;
}

std::unique_ptr<Session> Session::load(const std::vector<uint8_t>& bytes, const json& overrides) {
  AL_CHECK(overrides.is_object(), "load: overrides must be a JSON object");
  const SafeTensors st = parse_safetensors(bytes.data(), bytes.size());
  std::unique_ptr<Session> s(new Session());
  json state;  // model_from_safetensors checks the config and the size budget before allocating
  s->backend_ = backend_of(overrides);
  s->model_ = model_from_safetensors(st, table_for(s->backend_), &state);
  s->steps_ = state.value("step", 0);
  s->seed_ = state.value("seed", uint64_t(1));
  std::string task = string_or_empty(overrides, "task");
  json task_opts = object_or_empty(overrides, "task_options");
  // A model trained on a text corpus (`attn train --task parallel`) carries its BPE vocabulary
  // and its training options: it translates text; it has no generated task to train on.
  if (state.value("task", std::string()) == "parallel") {
    AL_CHECK(state.contains("vocab") && state["vocab"].is_string(),
             "load: this corpus-trained checkpoint lacks its BPE vocabulary (\"vocab\")");
    s->bpe_ = std::make_unique<Bpe>(Bpe::from_json(state["vocab"].get<std::string>()));
    AL_CHECK(s->bpe_->size() <= s->model_->src_vocab() && s->bpe_->size() <= s->model_->out_vocab(),
             "load: the checkpoint's BPE vocabulary (" << s->bpe_->size()
                                                       << " tokens) does not fit its model");
    s->corpus_state_ = {{"task", "parallel"}, {"vocab", state["vocab"]}};
    if (state.contains("options")) s->corpus_state_["options"] = state["options"];
    state.erase("task");
  }
  if (task.empty() && state.contains("task") && state["task"].is_string()) {
    task = state["task"].get<std::string>();
    if (!overrides.contains("task_options")) task_opts = object_or_empty(state, "task_options");
  }
  // Pointer checkpoints of `attn train` (and of sessions before this form) keep the n range at
  // the top level of the state, beside empty task_options.
  const bool points = s->model_->input_dim() > 0;
  if (points && !overrides.contains("task_options") && task_opts.empty())
    task_opts = {{"n_min", state.value("n_min", 5)}, {"n_max", state.value("n_max", 5)}};
  AL_CHECK(!points || !task.empty(), "this checkpoint names no task: pass {\"task\": ...}");
  if (!task.empty()) {
    s->set_task(task, task_opts, s->model_->kind());
    if (points)
      AL_CHECK(s->task_->input_dim() == s->model_->input_dim(),
               "the checkpoint's inputs have " << s->model_->input_dim() << " features, task "
                                               << task << " has " << s->task_->input_dim());
    else
      AL_CHECK(s->task_->input_dim() == 0 && s->task_->src_vocab() <= s->model_->src_vocab() &&
                   s->task_->tgt_vocab() <= s->model_->out_vocab(),
               "task " << task << " does not fit the checkpoint's vocabularies");
  }
  s->set_train_options(overrides.contains("train") ? object_or_empty(overrides, "train")
                                                   : object_or_empty(state, "train"));
  // optimizer state a session can continue from (the toy trainer's or train_batch's), kept
  // until training starts
  if (has_optimizer_state(st) &&
      (state.contains("data_rng") || state.contains("batch_dropout_rng"))) {
    s->resume_ = std::make_unique<SafeTensors>();
    for (const StTensor& t : st.tensors)
      if (t.name.rfind("optimizer.", 0) == 0) s->resume_->tensors.push_back(t);
    s->resume_state_ = state;
  }
  return s;
}

void Session::set_task(const std::string& name, const json& options,
                       const std::string& model_kind) {
  task_ = make_task(task_for_model(name, model_kind), options);
  task_name_ = name;
  task_options_ = options;
  if (task_->input_dim() > 0)  // the n range in effect
    task_options_ = {{"n_min", task_->min_src_len()}, {"n_max", task_->max_src_len()}};
}

void Session::set_train_options(const json& t) {
  train_config_ = t;
  const bool points = model_->input_dim() > 0;  // the pointer network's own defaults
  const TrainOptions pointer = pointer_train_options();
  if (points) opts_.adam = pointer.adam;
  opts_.batch = batch_of(t, points);
  opts_.schedule.kind = t.value("schedule", points ? pointer.schedule.kind : std::string("noam"));
  opts_.schedule.lr = t.value("lr", 1e-3f);
  opts_.schedule.factor = t.value("lr_factor", 1.f);
  opts_.schedule.warmup = t.value("warmup", 400);
  opts_.schedule.d_model = model_->schedule_width();
  opts_.schedule.at(1);  // rejects an unknown schedule now
  AL_CHECK(opts_.schedule.warmup >= 1, "train.warmup must be at least 1");
  if (points)
    AL_CHECK(opts_.schedule.lr > 0 && opts_.schedule.lr < 10, "train.lr must be in (0, 10)");
  opts_.adam.kind = t.value("optimizer", std::string("adam"));
  opts_.adam.momentum = t.value("momentum", 0.9f);
  opts_.adam.validate();
  AL_CHECK(opts_.adam.kind == "adam" || !model_->params().kernels().deferred,
           "train.optimizer \"sgd\" trains on the CPU backends only (this session's backend is "
               << backend_ << ")");
  opts_.clip = t.value("clip", points ? pointer.clip : 1.f);
  AL_CHECK(std::isfinite(opts_.clip) && opts_.clip >= 0,
           "train.clip must be a non-negative number (0: no clipping)");
  opts_.label_smoothing = t.value("label_smoothing", 0.f);
  AL_CHECK(opts_.label_smoothing >= 0 && opts_.label_smoothing < 1,
           "train.label_smoothing must be in [0, 1)");
  opts_.word_dropout = t.value("word_dropout", 0.f);
  AL_CHECK(opts_.word_dropout >= 0 && opts_.word_dropout <= 0.9f,
           "train.word_dropout must be in [0, 0.9], got " << opts_.word_dropout);
  opts_.unk = t.value("unk", -1);
  if (opts_.word_dropout > 0)
    AL_CHECK(!points && opts_.unk >= 0 && opts_.unk < model_->src_vocab() &&
                 opts_.unk < model_->out_vocab(),
             "train.word_dropout needs train.unk, the unknown-word id, inside both vocabularies ("
                 << model_->src_vocab() << "/" << model_->out_vocab() << "; a pointer network "
                 << "reads points and has none)");
  threads_ = t.value("threads", 0);
  AL_CHECK(threads_ >= 0 && threads_ <= 256,
           "train.threads must be in [1, 256] (0 or none: the engine's kernel threads), got "
               << threads_);
  thread_split_ = t.value("thread_split", std::string("kernels"));
  AL_CHECK(
      thread_split_ == "kernels" || thread_split_ == "ranks" || thread_split_ == "both" ||
          thread_split_ == "auto",
      "train.thread_split must be kernels, ranks, both or auto, got \"" << thread_split_ << "\"");
  opts_.seed = seed_ + uint64_t(steps_);
  opts_.first_step = steps_ + 1;
  batch_dropout_.reseed(seed_ ^ 0x5DEECE66Dull);
}

const Task& Session::need_task(const char* what) const {
  AL_CHECK(task_, what << " needs a task: this session has none (set \"task\" in its config)");
  return *task_;
}

void Session::check_rows(const Rows& rows, int vocab, const char* what) const {
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t i = 0; i < rows[r].size(); ++i)
      AL_CHECK(rows[r][i] >= 0 && rows[r][i] < vocab,
               what << " row " << r << " position " << i << ": token " << rows[r][i]
                    << " is out of range for a vocabulary of " << vocab);
}

json Session::info() const {
  const json& c = model_->config();
  return {{"config", c},
          {"model", c.value("model", std::string())},
          {"task", task_ ? json(task_name_) : json(nullptr)},
          {"task_options", task_options_},
          {"params", model_->params().total()},
          {"step", steps_},
          {"seed", seed_},
          {"train", train_config_},
          {"srcVocab", model_->src_vocab()},
          {"tgtVocab", model_->out_vocab()},
          {"autoregressive", model_->autoregressive()},
          {"dim", model_->input_dim()},
          {"vocabulary", bpe_ ? json({{"kind", "bpe"}, {"size", bpe_->size()}}) : json(nullptr)},
          {"backend", backend_},
          {"threads", thread_plan()},
          {"estimateBytes", estimate_for(c, task_.get(), opts_.batch).total()}};
}

json Session::thread_plan() const {
  if (!plan_.is_null()) return plan_;
  const int threads = threads_ > 0 ? threads_ : num_threads();
  const long rows = opts_.batch;
  const double tokens =
      task_ ? double(rows) * (task_->max_src_len() + task_->max_tgt_len() + 2) : 0.0;
  const int width = model_->schedule_width();
  const ThreadPlan kernels = plan_threads(threads, ThreadSplit::Kernels, rows, tokens, width);
  if (model_->params().kernels().deferred)
    return one_rank(kernels, "one", 1, "the " + backend_ + " backend trains on one rank");
  if (!task_ || batch_adam_)
    return one_rank(kernels, kernels.mode.c_str(), kernels.kernel_threads,
                    "trainBatch trains on one rank");
  const KindInfo* kind = find_kind_info(model_->kind());
  if (kind && kind->recurrent)
    return one_rank(kernels, kernels.mode.c_str(), kernels.kernel_threads,
                    "a recurrent model splits kernels");
  ThreadPlan planned =
      plan_threads(threads, parse_thread_split(thread_split_), rows, tokens, width);
  const std::string flag = "--thread-split ";  // the CLI's words for the session's option
  if (planned.why.rfind(flag, 0) == 0)
    planned.why = "train.thread_split " + planned.why.substr(flag.size());
  // a resume continues on the rank count its checkpoint trained on, where it can
  if (resume_ && resume_state_.contains("data_rng")) {
    const int saved = resume_state_.value("thread_ranks", 1);
    if (saved <= 1) {
      if (planned.ranks == 1) return planned.to_json();
      return one_rank(kernels, kernels.mode.c_str(), kernels.kernel_threads,
                      "resumes a run on one rank: split kernels");
    }
    if (thread_ranks_supported() && saved <= threads && saved <= rows) {
      ThreadPlan p = plan_threads(saved, ThreadSplit::Ranks, rows, tokens, width);
      p.why = "resumes the checkpoint's " + std::to_string(saved) + " ranks";
      return p.to_json();
    }
    ThreadPlan p = planned;
    p.why += "; the checkpoint trained on " + std::to_string(saved) + " ranks (this session has " +
             std::to_string(thread_ranks_supported() ? threads : 1) +
             "): the resume is not bit for bit";
    return p.to_json();
  }
  return planned.to_json();
}

TrainChunk Session::train(int steps) {
  AL_CHECK(steps >= 1 && steps <= 100000, "train: steps must be in [1, 100000], got " << steps);
  const Task& task = need_task("train");
  AL_CHECK(!batch_adam_,
           "this session trains on given batches (trainBatch); create another "
           "session to train on its task");
  check_cost(double(steps) * train_step_cost(model_->config(), opts_.batch, task.max_src_len(),
                                             task.max_tgt_len() + 1),
             "train(" + std::to_string(steps) + ")",
             "train fewer steps per call, or with a smaller batch");
  begin_steps(steps);
  if (!trainer_ && !rank_trainer_) {
    plan_ = thread_plan();
    const bool restore = resume_ && resume_state_.contains("data_rng");
    const int ranks = plan_.value("ranks", 1);
    if (ranks > 1) {
      rank_trainer_ = std::make_unique<ThreadRankTrainer>(*model_, task, opts_, ranks);
      if (restore) rank_trainer_->restore_state(*resume_, resume_state_);
    } else {
      trainer_ = std::make_unique<Trainer>(*model_, task, opts_);
      if (restore) trainer_->restore_state(*resume_, resume_state_);
    }
    resume_.reset();
  }
  // ranks run their kernels on their own thread; split kernels on the plan's threads
  const KernelThreads kernel_threads(
      model_->params().kernels().deferred ? num_threads() : plan_.value("kernel_threads", 1));
  TrainChunk r;
  for (int i = 0; i < steps; ++i) {
    const StepInfo s = rank_trainer_ ? rank_trainer_->step() : trainer_->step();
    r.losses.push_back(float(s.loss));
    r.tokens += s.tokens;
    r.lr = s.lr;
    r.grad_norm = s.grad_norm;
    ++steps_;
  }
  r.step = steps_;
  if (opts_.device) {
    r.records = reinterpret_cast<uintptr_t>(device_.records);
    r.pending = device_.used;
  }
  return r;
}

void Session::begin_steps(int steps) {
  const KernelTable& kt = model_->params().kernels();
  if (!kt.deferred) return;
  if (!device_.records) {
    device_.records = static_cast<float*>(kt.alloc(2 * size_t(kMaxPending) * sizeof(float)));
    device_.state = static_cast<float*>(kt.alloc(4 * sizeof(float)));
    device_.capacity = kMaxPending;
  }
  AL_CHECK(device_.used + steps <= kMaxPending,
           "train: " << device_.used << " steps wait to be settled; settle them before more than "
                     << kMaxPending << " are pending");
  if (device_.used == 0) kt.zero(device_.state, 4 * sizeof(float));
  opts_.device = &device_;
}

void Session::settle(const std::vector<float>& records) {
  AL_CHECK(model_->params().kernels().deferred,
           "settle: the " << backend_ << " backend has nothing to settle");
  AL_CHECK(records.size() == 2 * size_t(device_.used),
           "settle: expected " << 2 * device_.used << " floats (loss and norm of " << device_.used
                               << " steps), got " << records.size());
  const int first = steps_ - device_.used + 1;  // the step of records[0]
  device_.used = 0;
  std::vector<Rng::State> marks;
  marks.swap(batch_marks_);
  for (size_t k = 0; 2 * k < records.size(); ++k) {
    const float loss = records[2 * k], norm = records[2 * k + 1];
    if (std::isfinite(loss) && std::isfinite(norm)) continue;
    // nothing changed from this step on: the step count, Adam's and the generators go back
    const int bad = first + int(k);
    if (trainer_) trainer_->rewind_to(bad);
    if (batch_adam_) {
      batch_adam_->set_steps(batch_adam_->steps() - (steps_ - bad + 1));
      // trainBatch marks its steps one by one, the last marks.size() of them
      const size_t at = marks.size() - size_t(steps_ - bad + 1);
      if (steps_ - bad + 1 <= int(marks.size())) batch_dropout_.set_state(marks[at]);
    }
    steps_ = bad - 1;
    check_step_finite(bad, loss, norm, opts_.schedule.at(bad));
  }
  if (trainer_) trainer_->settled();
}

Session::~Session() {
  if (!model_ || !device_.records) return;
  const KernelTable& kt = model_->params().kernels();
  kt.release(device_.records);
  kt.release(device_.state);
}

json Session::device_ranges(bool optimizer) const {
  json out = json::array();
  const ParamArena& P = model_->params();
  if (!P.kernels().deferred) return out;
  const auto range = [&](const float* p) {
    out.push_back({reinterpret_cast<uintptr_t>(p), size_t(P.total()) * sizeof(float)});
  };
  range(P.values());
  const Adam* adam = trainer_ ? &trainer_->adam() : batch_adam_.get();
  if (optimizer && adam) {
    range(adam->first_moments());
    range(adam->second_moments());
  }
  return out;
}

Model& Session::reader() {
  if (!model_->params().kernels().deferred) return *model_;
  if (!host_) {
    host_ = make_model(model_->config(), cpu_kernels(), seed_);
    host_step_ = -1;
  }
  if (host_step_ != steps_) {
    const ParamArena& P = model_->params();
    P.kernels().download(host_->params().values(), P.values(), size_t(P.total()) * sizeof(float));
    host_step_ = steps_;
  }
  return *host_;
}

TrainChunk Session::train_batch(const Rows& src, const Rows& tgt) {
  AL_CHECK(!trainer_ && !rank_trainer_,
           "this session trains on its task (train); create another session to "
           "train on given batches");
  AL_CHECK(model_->input_dim() == 0, "trainBatch: a pointer network trains on its task only");
  AL_CHECK(!src.empty() && src.size() == tgt.size(),
           "trainBatch: need as many target rows as source rows (got " << src.size() << " and "
                                                                       << tgt.size() << ")");
  check_rows(src, model_->src_vocab(), "trainBatch: source");
  check_rows(tgt, model_->out_vocab(), "trainBatch: target");
  size_t S = 0, T = 0;
  for (size_t i = 0; i < src.size(); ++i)
    S = std::max(S, src[i].size()), T = std::max(T, tgt[i].size());
  check_cost(train_step_cost(model_->config(), double(src.size()), double(S), double(T + 1)),
             "trainBatch", "train on fewer or shorter rows per step");
  std::vector<Example> ex;
  for (size_t i = 0; i < src.size(); ++i) ex.push_back({src[i], tgt[i]});
  Batch b = make_batch(ex);
  if (opts_.word_dropout >
      0) {  // the stream of (session seed, step): a restored run draws the same
    Rng words = word_dropout_rng(seed_, steps_ + 1, 0);
    drop_words(b, opts_.word_dropout, opts_.word_dropout, opts_.unk, words);
  }
  if (!batch_adam_) {
    AdamOptions ao;  // Adam's defaults; the optimizer and momentum the train options name
    ao.kind = opts_.adam.kind;
    ao.momentum = opts_.adam.momentum;
    batch_adam_ = std::make_unique<Adam>(model_->params(), ao);
    if (resume_ && resume_state_.contains("batch_dropout_rng")) {
      restore_adam(*batch_adam_, model_->params(), *resume_, resume_state_);
      rng_from_json(batch_dropout_, resume_state_["batch_dropout_rng"], "dropout");
    }
    resume_.reset();
  }
  const int step = steps_ + 1;
  begin_steps(1);
  const Rng::State before = batch_dropout_.state();
  if (opts_.device) batch_marks_.push_back(before);
  StepInfo s;
  try {
    s = train_step(*model_, *batch_adam_, b,
                   {step, opts_.schedule.at(step), opts_.clip, opts_.label_smoothing, opts_.device},
                   &batch_dropout_);
  } catch (...) {  // not finite: the dropout generator is as before the step
    if (opts_.device && !batch_marks_.empty()) batch_marks_.pop_back();
    batch_dropout_.set_state(before);
    throw;
  }
  TrainChunk r;
  r.losses.push_back(float(s.loss));
  r.tokens = s.tokens;
  r.grad_norm = s.grad_norm;
  r.lr = s.lr;
  r.step = ++steps_;
  if (opts_.device) {
    r.records = reinterpret_cast<uintptr_t>(device_.records);
    r.pending = device_.used;
  }
  return r;
}

EvalResult Session::evaluate(int samples, uint64_t seed) {
  AL_CHECK(samples >= 1 && samples <= 100000, "evaluate: samples must be in [1, 100000]");
  const Task& task = need_task("evaluate");
  // The recurrent models on tasks with gold alignments add the alignment error rate and
  // per-length accuracy, from the same pass.
  const auto* seq = dynamic_cast<const SeqTask*>(&task);
  const std::string call = "evaluate(" + std::to_string(samples) + ")";
  if (task.input_dim() > 0)
    check_cost(
        evaluate_points_cost(model_->config(), samples, task.min_src_len(), task.max_src_len()),
        call,
        "evaluate fewer samples (that many point sets of each size from " +
            std::to_string(task.min_src_len()) + " to " + std::to_string(task.max_src_len()) +
            " points)");
  else
    check_cost(evaluate_cost(model_->config(), samples, task.max_src_len(), task.max_tgt_len() + 1),
               call, "evaluate fewer samples");
  Model& m = reader();
  if (decodes_stepwise(m) && seq) return evaluate_with_alignment(m, *seq, samples, seed);
  return attnlab::evaluate(m, task, samples, seed);
}

int Session::decode_steps(size_t src_len, int max_len) const {
  const int model_max = model_->max_len();
  int limit = max_len > 0 ? max_len
              : task_     ? task_->max_tgt_len() + 1
                          : std::min(model_max - 1, 256);
  limit = std::min(limit, model_max - 1);
  if (model_->packs_source()) limit = std::min(limit, model_max - int(src_len) - 1);
  return limit;
}

int Session::decode_limit(size_t src_len, int max_len) const {
  const int limit = decode_steps(src_len, max_len);
  AL_CHECK(limit >= 1, "decode: no room left to generate within max_len " << model_->max_len());
  return limit;
}

int Session::check_decode(const Rows& src, int beam, int max_len) const {
  AL_CHECK(!src.empty(), "decode: no source rows");
  AL_CHECK(model_->input_dim() == 0, "decode: this model reads point sets (decodePoints)");
  AL_CHECK(beam >= 1 && beam <= 64, "decode: beam must be in [1, 64], got " << beam);
  check_rows(src, model_->src_vocab(), "decode: source");
  const int model_max = model_->max_len();
  size_t longest = 0;
  for (const auto& r : src) longest = std::max(longest, r.size());
  AL_CHECK(int(longest) <= model_max, "decode: a source of length "
                                          << longest << " is longer than the model's max_len "
                                          << model_max);
  const int limit = decode_limit(longest, max_len);
  check_cost(decode_cost(model_->config(), double(src.size()), double(longest), beam, limit),
             "decode", "decode fewer or shorter rows, with a smaller beam or max_len");
  return limit;
}

Rows Session::decode(const Rows& src, int beam, int max_len, float alpha) {
  const int limit = check_decode(src, beam, max_len);
  Model& m = reader();
  if (beam == 1) return greedy_decode(m, src, limit);
  Rows out;
  for (const auto& r : src) out.push_back(beam_decode(m, r, beam, limit, alpha));
  return out;
}

std::vector<int32_t> Session::decode_traced(const std::vector<int32_t>& src, int beam, int max_len,
                                            float alpha, BeamTrace& trace) {
  const int limit = check_decode({src}, beam, max_len);
  Model& m = reader();
  trace = BeamTrace{beam, alpha, {}, -1, -1};
  if (beam == 1) return greedy_decode(m, {src}, limit)[0];
  return beam_decode(m, src, beam, limit, alpha, true, &trace);
}

std::vector<uint8_t> Session::save(bool optimizer) {
  json state = {{"step", steps_}, {"seed", seed_}, {"train", train_config_}};
  for (const auto& [k, v] : corpus_state_.items()) state[k] = v;
  if (task_) {
    state["task"] = task_name_;
    state["task_options"] = task_options_;
  }
  if (task_ && task_->input_dim() > 0) {  // where `attn eval` reads a pointer's n range
    state["n_min"] = task_->min_src_len();
    state["n_max"] = task_->max_src_len();
  }
  SafeTensors st = model_tensors(*model_, false);
  // the rank count the run trained on: a resume continues bit for bit on as many
  if (optimizer && rank_trainer_) {
    rank_trainer_->save_state(st, state);
    state["thread_ranks"] = rank_trainer_->ranks();
  } else if (optimizer && trainer_) {
    trainer_->save_state(st, state);
    state["thread_ranks"] = 1;
  } else if (optimizer && batch_adam_) {
    save_adam(*batch_adam_, model_->params(), st, state);
    state["batch_dropout_rng"] = rng_to_json(batch_dropout_);
  } else if (optimizer && resume_) {  // restored and not trained since: pass its state on whole
    for (const StTensor& t : resume_->tensors) st.tensors.push_back(t);
    for (const auto& [k, v] : resume_state_.items())
      if (!state.contains(k)) state[k] = v;
  }
  st.metadata["attnlab_train"] = state.dump();
  return serialize_safetensors(st);
}

}  // namespace attnlab::api
