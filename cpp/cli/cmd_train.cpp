// attn train: builds a model from a config (file and/or flags, vocabularies from the task),
// trains it on the task's train split, writes a checkpoint. Progress: a bar on a terminal,
// plain lines otherwise, both on stderr; --eval-samples N prints a held-out evaluation on stdout.
// Under mpirun every rank trains on its --batch rows of each global batch (data_parallel.hpp);
// rank 0 alone logs, writes the checkpoint and evaluates. The checkpoint's "examples" counts
// the global training examples drawn so far, whatever the world size. The checkpoint holds
// Adam's state, the step and the generators (unless --weights-only), so --resume continues the
// run bit for bit (resume.hpp). --threads N either runs N replicas on row shares of each batch
// (thread ranks, parallel/thread_ranks.hpp; --batch stays the whole batch) or splits each kernel
// call, as --thread-split says (auto: the cost model there; the log's "threads:" line says which).
#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/commands.hpp"
#include "cli/data_parallel.hpp"
#include "cli/interrupt.hpp"
#include "cli/resume.hpp"
#include "cli/train_flags.hpp"
#include "core/check.hpp"
#include "core/json.hpp"
#include "data/text_task.hpp"
#include "io/checkpoint.hpp"
#include "parallel/thread_ranks.hpp"
#include "train/trainer.hpp"

namespace attnlab::cli {

namespace {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  AL_CHECK(f, "cannot open " << path);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::string text(ec ? size_t(0) : size_t(std::min<uintmax_t>(size, kMaxJsonBytes + 1)), '\0');
  f.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(f.gcount()));
  return parse_json_object(text, path);
}

void progress(const StepInfo& s, int last, double secs, long tokens, bool tty, int every) {
  const int done = s.step;
  const double rate = secs > 0 ? tokens / secs : 0;
  const double eta = done > 0 ? secs / done * (last - done) : 0;
  if (tty) {
    const int width = 30, fill = int(width * double(done) / last);
    std::fprintf(stderr, "\r[%.*s%*s] %d/%d loss %.4f  %.0f tok/s  ETA %02d:%02d ", fill,
                 "##############################", width - fill, "", done, last, s.loss, rate,
                 int(eta) / 60, int(eta) % 60);
    if (done == last) std::fprintf(stderr, "\n");
  } else if (done % every == 0 || done == last) {
    std::fprintf(stderr, "step %d/%d loss %.4f lr %.3g grad_norm %.3g tok/s %.0f eta %.0fs\n", done,
                 last, s.loss, s.lr, s.grad_norm, rate, eta);
  }
}

}  // namespace

int cmd_train(Args& a) {
  if (a.flag("help")) {
    std::printf("%s", train_flags_help().c_str());
    return 0;
  }
  // --preset small|base|big sizes the parallel-corpus Transformer; the reproduction recipes are
  // data (experiments/presets.json, run by npm run reproduce)
  const std::string preset = a.str("preset", "");
  AL_CHECK(preset.empty() || preset == "small" || preset == "base" || preset == "big",
           "unknown --preset " << preset
                               << " (small, base, big: for --task parallel; the reproduction "
                                  "recipes are in experiments/presets.json)");
  // --show-recipe: the flags the run would take, as one JSON object on
  // stdout, and no training (npm run reproduce keys its kept results by it)
  if (a.flag("show-recipe")) {
    nlohmann::json flags = a.all();
    for (const char* k : {"show-recipe", "out", "log-every"}) flags.erase(k);
    std::printf("%s\n", flags.dump().c_str());
    return 0;
  }
  std::unique_ptr<ResumePoint> resume;
  if (a.str("task", "") != "parallel" && a.has("resume"))
    resume = std::make_unique<ResumePoint>(read_resume_point(a.str("resume")));
  // the parallel corpus trains every encoder-decoder kind, recurrent ones included
  if (resume && resume->state.value("task", std::string()) == "parallel") {
    resume.reset();  // the corpus trainer reads its checkpoint itself
    a.defaults({{"task", "parallel"}});
  }
  if (a.str("task", "") == "parallel") return cmd_train_parallel(a);
  const std::string kind = resume ? resume->model->kind() : a.str("model", "");
  if (is_recurrent_kind(kind)) return cmd_train_rnn(a, resume.get());
  if (resume) {
    resume_defaults(a, *resume);
    a.defaults({{"seed", flag_value(resume->state.value("seed", nlohmann::json(1)))}});
    if (resume->state.contains("task") && resume->state["task"].is_string())
      a.defaults({{"task", resume->state["task"].get<std::string>()}});
  }
  const std::string task_name = a.need("task");
  nlohmann::json task_opts = nlohmann::json::object();
  if (a.has("task-options")) {
    task_opts = parse_json_object(a.str("task-options"), "--task-options");
  } else if (resume && !a.has("corpus")) {
    task_opts = resume->state.value("task_options", nlohmann::json::object());
  }
  if (a.has("corpus")) task_opts["file"] = a.str("corpus");
  const auto task = make_task(task_name, task_opts);
  const int steps = resume ? resume_steps(a, *resume) : train_int(a, "steps", 1000);
  const uint64_t seed = uint64_t(train_int(a, "seed", 1));
  const std::string out = a.need("out");
  const bool weights_only = a.flag("weights-only");
  const bool exact = resume && resume_optimizer(a, *resume);
  DataParallelRun dist(a, false);
  // fail before training, not after, when the checkpoint can't be written
  if (dist.root()) check_writable(out);
  const int threads = train_int(a, "threads", 1);
  const ThreadSplit split = parse_thread_split(a.str("thread-split", "auto"));

  // the kind's training defaults (its registry row; a kind named only in --config: the
  // Transformers' defaults, TrainDefaults{})
  const KindInfo* info = find_kind_info(kind);
  const TrainDefaults defaults = info ? info->train : TrainDefaults{};
  const int batch = train_int(a, "batch", defaults.batch);  // per rank
  std::unique_ptr<Model> model;
  int first = 1;
  long examples = 0;  // global examples drawn before this run (-1: unknown, an older checkpoint)
  if (resume) {
    model = std::move(resume->model);
    first = resume->step + 1;
    examples = resume->state.value("examples", first == 1 ? 0L : -1L);
    AL_CHECK(task->src_vocab() <= model->src_vocab() && task->tgt_vocab() <= model->out_vocab(),
             "task " << task_name << " does not fit the vocabularies of " << resume->path);
  } else {
    nlohmann::json cfg =
        a.has("config") ? read_json_file(a.str("config")) : nlohmann::json::object();
    const std::string kind_name = a.str("model", cfg.value("model", std::string("transformer")));
    cfg["model"] = kind_name;
    cfg["src_vocab"] = std::max(task->src_vocab(), task->tgt_vocab());
    cfg["tgt_vocab"] = std::max(task->src_vocab(), task->tgt_vocab());
    apply_model_flags(a, kind_name, cfg);
    if (!cfg.contains("max_len")) cfg["max_len"] = task->max_src_len() + task->max_tgt_len() + 2;
    check_model_fits(cfg, batch, task->max_src_len() + 1, task->max_tgt_len() + 1);
    model = make_model(cfg, cpu_kernels(), seed);
  }
  TrainOptions o;
  o.batch = batch;
  o.schedule.kind = a.str("schedule", defaults.schedule);
  // any finite rate is taken (a float's range): one that makes the loss diverge stops the run
  // at the first non-finite loss (Trainer::step) instead of being guessed at here
  o.schedule.lr = float(train_number(a, "lr", defaults.lr));
  o.schedule.factor = float(train_number(a, "lr-factor", 1.0));
  o.schedule.warmup = train_int(a, "warmup", 400);
  o.schedule.d_model = model->schedule_width();
  o.schedule.at(1);  // rejects an unknown schedule before training starts
  o.clip = float(train_number(a, "clip", defaults.clip));
  o.label_smoothing = float(train_number(a, "label-smoothing", 0.0));
  // a fresh Adam (--fresh-optimizer) draws from a stream of its own, as attn did before resume
  // restored the generators
  o.seed = exact ? seed : seed + uint64_t(first - 1);
  o.first_step = first;
  o.dp = dist.dp();
  const int every = train_int(a, "log-every", 100);
  const int eval_samples = train_int(a, "eval-samples", 0);
  // the held-out sets of --eval-samples: drawn from the training seed, or those attn eval --seed
  // S draws
  const uint64_t eval_seed =
      a.has("eval-seed") ? uint64_t(train_int(a, "eval-seed", 0)) : seed + 1000003;
  a.finish();
  dist.check_same(
      {{"task", task_name},
       {"task_options", task_opts},
       {"model", model->config()},
       {"steps", steps},
       {"seed", seed},
       {"first_step", first},
       {"batch", batch},
       {"schedule", {o.schedule.kind, o.schedule.lr, o.schedule.factor, o.schedule.warmup}},
       {"clip", o.clip},
       {"label_smoothing", o.label_smoothing}},
      model->params());

  const nlohmann::json train_flags = {{"batch", batch},
                                      {"schedule", o.schedule.kind},
                                      {"lr", o.schedule.lr},
                                      {"lr-factor", o.schedule.factor},
                                      {"warmup", o.schedule.warmup},
                                      {"clip", o.clip},
                                      {"label-smoothing", o.label_smoothing}};

  // --threads: replicas on row shares of the batch (thread ranks, --batch the global batch) or
  // split kernel calls, as plan_threads decides (a run under mpirun splits kernels)
  const long rows_tokens = long(batch) * (task->max_src_len() + task->max_tgt_len() + 2);
  ThreadPlan plan =
      dist.size() > 1
          ? plan_threads(threads, ThreadSplit::Kernels, batch, double(rows_tokens), 0)
          : plan_threads(threads, split, batch, double(rows_tokens), model->schedule_width());
  set_num_threads(plan.kernel_threads);
  if (dist.root() && threads > 1)
    std::fprintf(stderr, "threads: %s\n", plan.to_json().dump().c_str());
  ThreadRankTrainer tr(*model, *task, o, plan.ranks);
  if (exact) tr.restore_state(resume->st, resume->state);
  const bool tty = stderr_is_tty();
  const auto t0 = std::chrono::steady_clock::now();
  long tokens = 0;
  int done = 0;
  {
    SigintGuard sigint;
    while (done < steps && !dist.any(SigintGuard::interrupted())) {
      const StepInfo s = tr.step();
      tokens += dist.global_tokens(s.tokens);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      StepInfo shown = s;
      shown.step = ++done;
      if (dist.root()) progress(shown, steps, secs, tokens, tty, every);
    }
  }
  if (!dist.root()) return done < steps ? kInterruptedExit : 0;
  nlohmann::json state = {{"step", first + done - 1},
                          {"last_step", first - 1 + steps},
                          {"task", task_name},
                          {"task_options", task_opts},
                          {"seed", seed},
                          {"train_flags", train_flags}};
  if (examples >= 0) state["examples"] = examples + long(done) * batch * dist.size();
  if (const auto* text = dynamic_cast<const TextTask*>(task.get())) {
    state["vocab"] = text->tokens();
    if (text->bpe()) state["bpe"] = text->bpe()->to_json();  // what decoding and lmScore read
  }
  SafeTensors st = model_tensors(*model, false);
  if (!weights_only) tr.save_state(st, state);
  st.metadata["attnlab_train"] = state.dump();
  write_safetensors_atomic(out, st);
  if (done < steps) {
    std::fprintf(stderr, "%sinterrupted: saved step %d to %s (continue with --resume %s)\n",
                 tty ? "\n" : "", first + done - 1, out.c_str(), out.c_str());
    return kInterruptedExit;
  }
  if (eval_samples > 0) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const EvalResult r = evaluate(*model, *task, eval_samples, eval_seed);
    std::printf("%s\n", nlohmann::json({{"loss", r.loss},
                                        {"token_accuracy", r.token_accuracy},
                                        {"sequence_accuracy", r.sequence_accuracy},
                                        {"samples", eval_samples},
                                        {"steps", done},
                                        {"train_seconds", secs}})
                            .dump()
                            .c_str());
  }
  return 0;
}

}  // namespace attnlab::cli
