// The recurrent models on the command line:
//   attn train --model rnnsearch|rnnencdec|pointer --task dates|phrases|convex-hull|tsp|sort
//              [--n N | --n-min A --n-max B] [--hidden H --emb E --attn A --score additive|dot
//              --glimpse --embed E --encoder lstm|rpw --process-steps P] --steps N --out
//              ckpt.safetensors
//              [--eval-samples N --eval-seed S] [pointer: --lr-final X --decay-from S (lr held
//              until step S, then exponential decay to X at the last step) --eval-every K --beam K]
//   attn eval  on such a checkpoint: {sequence_accuracy, token_accuracy, per_length, aer} or
//              {accuracy, area_coverage, invalid_rate, tour_length, optimal_tour_length, ...}
//   attn align --checkpoint C --src "..."     -> {"src_tokens", "tgt_tokens", "alignment"}
//   attn point --checkpoint C --points "x,y ..." -> {"order", "probabilities"} (last column: end)
// --resume C continues a run exactly (resume.hpp): the checkpoint's model, task, n range and
// training flags, Adam's state, the generators, and the learning-rate decay of the run as first
// planned (its "decay_to"); without --steps it trains on to the run's planned last step.
// --save-every N writes the whole state every N steps to OUT.ckpt/step-N.safetensors (atomic;
// the newest --keep K kept), so a run killed outright (no SIGINT, no save) resumes from there;
// the eval JSON's train_seconds and steps are the run's over all its sittings.
// Training under mpirun is data-parallel as for attn train (data_parallel.hpp): --batch per rank,
// rank 0 logs, evaluates and writes the checkpoint. Every model trains through the one Trainer;
// task names go through task_for_model ("sort" with --model pointer: the point sort). The eval
// JSON keeps its snake_case keys (experiments/reproduce.mjs reads them).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "bench/rnn_bench.hpp"
#include "cli/commands.hpp"
#include "cli/data_parallel.hpp"
#include "cli/interrupt.hpp"
#include "cli/resume.hpp"
#include "cli/train_flags.hpp"
#include "core/check.hpp"
#include "data/point_task.hpp"
#include "eval/align_eval.hpp"
#include "eval/point_eval.hpp"
#include "io/checkpoint.hpp"
#include "parallel/thread_ranks.hpp"
#include "train/trainer.hpp"

namespace attnlab::cli {

namespace {

struct Range {
  int lo, hi;
};

Range n_range(Args& a, Range def) {
  if (a.has("n")) {
    const int n = train_int(a, "n", def.lo);
    return {n, n};
  }
  const int lo = train_int(a, "n-min", def.lo);
  const int hi = train_int(a, "n-max", std::max(lo, def.hi));
  AL_CHECK(hi >= lo, "flag --n-max = " << hi << " is below --n-min = " << lo);
  return {lo, hi};
}

Range default_n(const std::string& task) {
  if (task == "phrases") return {2, 12};
  if (task == "tsp" || task == "convex-hull" || task == "sort") return {5, 5};
  return {0, 0};
}

void log_step(int step, int last, double loss, double ms_per_step, int every) {
  if (step % every == 0 || step == last)
    std::fprintf(stderr, "step %d/%d loss %.4f %.1f ms/step\n", step, last, loss, ms_per_step);
}

// Whether a task name means a point task for the pointer model (the registry decides).
bool names_point_task(const std::string& name) {
  try {
    return make_task(point_task_name(name))->input_dim() > 0;
  } catch (const Error&) {
    return false;  // unknown, or a token task that needs options (text)
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool is_recurrent_kind(const std::string& kind) {
  const KindInfo* info = find_kind_info(kind);
  return info && info->recurrent;
}

int cmd_train_rnn(Args& a, ResumePoint* resume) {
  if (resume) {  // the checkpoint's run: its model, task, n range, seed and training flags
    const nlohmann::json& st = resume->state;
    resume_defaults(a, *resume);
    a.defaults({{"model", resume->model->kind()},
                {"seed", flag_value(st.value("seed", nlohmann::json(1)))}});
    if (st.contains("task") && st["task"].is_string())
      a.defaults({{"task", st["task"].get<std::string>()}});
    if (!a.has("n") && st.value("n_min", 0) >= 1 && st.value("n_max", 0) >= st.value("n_min", 0))
      a.defaults({{"n-min", std::to_string(st.value("n_min", 1))},
                  {"n-max", std::to_string(st.value("n_max", 1))}});
  }
  const std::string kind = a.need("model"), task_name = a.need("task");
  const KindInfo& info = kind_info(kind);
  const bool pointer = info.takes_points;
  AL_CHECK(pointer == names_point_task(task_name),
           "model " << kind << " does not train on task " << task_name
                    << (pointer ? " (pointer tasks: convex-hull, tsp, sort)"
                                : " (sequence tasks: dates, phrases)"));
  const Range n = n_range(a, default_n(task_name));
  const int steps = resume ? resume_steps(a, *resume) : train_int(a, "steps", 1000);
  const int first = resume ? resume->step + 1 : 1, last = first - 1 + steps;
  const uint64_t seed = uint64_t(train_int(a, "seed", 1));
  const std::string out = a.need("out");
  const bool weights_only = a.flag("weights-only");
  const bool exact = resume && resume_optimizer(a, *resume);
  DataParallelRun dist(a, false);
  if (dist.root()) check_writable(out);  // before training, not after it
  TrainOptions o = pointer ? pointer_train_options() : TrainOptions{};
  o.batch = train_int(a, "batch", info.train.batch);
  const float lr = float(train_number(a, "lr", info.train.lr));
  o.clip = float(train_number(a, "clip", info.train.clip));
  const int every = train_int(a, "log-every", 100);
  set_num_threads(train_int(a, "threads", 1));
  // the recurrent kinds split kernel calls (thread ranks train the Transformer kinds)
  const std::string split = a.str("thread-split", "kernels");
  const ThreadSplit how = parse_thread_split(split);
  AL_CHECK(how == ThreadSplit::Kernels || how == ThreadSplit::Auto,
           "--thread-split " << split << ": the recurrent kinds split kernel calls only");
  const int eval_samples = train_int(a, "eval-samples", 0);
  // the held-out sets of --eval-samples: by default drawn from the training seed (other seeds,
  // other sets); a fixed --eval-seed scores every seed on the same sets (attn eval's default
  // seed is 12345)
  const uint64_t eval_seed =
      a.has("eval-seed") ? uint64_t(train_int(a, "eval-seed", 0)) : seed + 1000003;
  const int eval_every = pointer ? train_int(a, "eval-every", 0) : 0;
  const int save_every = a.has("save-every") ? train_int(a, "save-every", 1000) : 0;
  const int keep = train_int(a, "keep", 5);
  const int beam = pointer ? train_int(a, "beam", 1) : 1;
  o.schedule.kind = info.train.schedule;
  o.schedule.lr = lr;
  o.schedule.lr_final = pointer ? float(train_number(a, "lr-final", 0)) : 0.f;
  o.schedule.decay_from = pointer ? train_int(a, "decay-from", 1) : 1;
  // the decay ends at the last step of the run as first planned, however many sittings it takes
  o.schedule.decay_to = resume ? resume->state.value("decay_to", last) : last;
  // a fresh Adam (--fresh-optimizer) draws from a stream of its own
  o.seed = exact ? seed : seed + uint64_t(first - 1);
  o.first_step = first;
  nlohmann::json train_flags = {{"batch", o.batch}, {"lr", lr}, {"clip", o.clip}};
  if (pointer) {
    train_flags["lr-final"] = o.schedule.lr_final;
    train_flags["decay-from"] = o.schedule.decay_from;
  }
  nlohmann::json cfg, task_opts = nlohmann::json::object();
  std::unique_ptr<Task> task;
  std::unique_ptr<SeqTask> stask;
  if (pointer) {
    task = make_task(task_for_model(task_name, kind), {{"n_min", n.lo}, {"n_max", n.hi}});
    if (!resume) {  // the task's fields (dim, min_outputs, permutation), then the flags
      cfg = task->model_fields();
      cfg["model"] = kind;
    }
  } else {
    if (task_name == "phrases") task_opts = {{"n_min", n.lo}, {"n_max", n.hi}};
    stask = make_seq_task(task_name, task_opts);
    if (!resume)
      cfg = {{"model", kind}, {"src_vocab", stask->src_vocab()}, {"tgt_vocab", stask->tgt_vocab()}};
  }
  // the model flags given (absent: the kind's own defaults; its typed config checks them)
  if (!resume) apply_model_flags(a, kind, cfg);
  if (resume) cfg = resume->model->config();
  a.finish();
  if (pointer)
    check_model_fits(cfg, o.batch, n.hi + 1, n.hi + 2);
  else
    check_model_fits(cfg, o.batch, stask->max_src_len() + 1, stask->max_tgt_len() + 1);
  std::unique_ptr<Model> model =
      resume ? std::move(resume->model) : make_model(cfg, cpu_kernels(), seed);
  dist.check_same({{"task", task_name},
                   {"model", model->config()},
                   {"n", {n.lo, n.hi}},
                   {"steps", steps},
                   {"first_step", first},
                   {"seed", seed},
                   {"batch", o.batch},
                   {"lr", {lr, o.schedule.lr_final, o.schedule.decay_from}},
                   {"clip", o.clip}},
                  model->params());
  o.dp = dist.dp();
  const Task& train_task = pointer ? *task : *stask;
  Trainer tr(*model, train_task, o);
  if (exact) tr.restore_state(resume->st, resume->state);
  const auto t0 = std::chrono::steady_clock::now();
  const double before = resume ? resume->state.value("train_seconds", 0.0) : 0.0;
  // The whole state at `step` (the optimizer's too unless --weights-only): what a resume reads.
  auto tensors = [&](int step) {
    nlohmann::json state = {{"step", step},
                            {"last_step", last},
                            {"decay_to", o.schedule.decay_to},
                            {"task", task_name},
                            {"task_options", task_opts},
                            {"n_min", n.lo},
                            {"n_max", n.hi},
                            {"seed", seed},
                            {"train_flags", train_flags},
                            {"train_seconds", before + seconds_since(t0)}};
    SafeTensors st = model_tensors(*model, false);
    if (!weights_only) tr.save_state(st, state);
    st.metadata["attnlab_train"] = state.dump();
    return st;
  };
  if (dist.root() && save_every > 0) std::filesystem::create_directories(ckpt_dir(out));
  int done = 0;
  auto sigint = std::make_unique<SigintGuard>();
  for (int s = first; s <= last && !dist.any(SigintGuard::interrupted()); ++s, ++done) {
    const double loss = tr.step().loss;
    if (dist.root()) log_step(s, last, loss, 1000 * seconds_since(t0) / (done + 1), every);
    if (dist.root() && save_every > 0 && s % save_every == 0) {
      write_safetensors_atomic(ckpt_path(out, s), tensors(s));
      const auto all = list_checkpoints(ckpt_dir(out));
      for (size_t i = 0; i + size_t(keep) < all.size(); ++i) std::filesystem::remove(all[i]);
    }
    if (dist.root() && eval_every > 0 && (s % eval_every == 0) &&
        s < last) {  // progress on held-out sets
      nlohmann::json r = point_eval_json(
          evaluate_points(*model, *task, 500, n.lo, n.hi, seed + 7919, 250, beam), task->name());
      r.erase("per_length");
      r["step"] = s;
      r["lr"] = o.schedule.at(s);
      std::fprintf(stderr, "eval %s\n", r.dump().c_str());
    }
  }
  sigint.reset();
  if (!dist.root()) return done < steps ? kInterruptedExit : 0;
  const double secs = seconds_since(t0);
  write_safetensors_atomic(out, tensors(first - 1 + done));
  if (done < steps) {
    std::fprintf(stderr, "interrupted: saved step %d of %d to %s (continue with --resume %s)\n",
                 first - 1 + done, last, out.c_str(), out.c_str());
    return kInterruptedExit;
  }
  if (eval_samples > 0) {
    nlohmann::json r = pointer
                           ? point_eval_json(evaluate_points(*model, *task, eval_samples, n.lo,
                                                             n.hi, eval_seed, 250, beam),
                                             task->name())
                           : evaluate_aligned(*model, *stask, eval_samples, eval_seed).to_json();
    r["steps"] = last;  // the run's, over every sitting
    r["train_seconds"] = before + secs;
    std::printf("%s\n", r.dump().c_str());
  }
  return 0;
}

int cmd_eval_rnn(Args& a) {
  nlohmann::json state;
  const std::string path = a.need("checkpoint");
  auto model = load_checkpoint(path, cpu_kernels(), &state, a.flag("allow-nonfinite"));
  const std::string task_name = a.str("task", state.value("task", std::string()));
  const bool pointer = model->input_dim() > 0;
  AL_CHECK(pointer == names_point_task(task_name),
           "task " << task_name << " does not fit a " << model->kind() << " checkpoint");
  const Range n = n_range(a, {state.value("n_min", 5), state.value("n_max", 5)});
  const int samples = a.integer("samples", 1000, 1, 1 << 22);
  const uint64_t seed = uint64_t(train_int(a, "seed", 12345));
  const int beam = pointer ? train_int(a, "beam", 1) : 1;
  a.finish();
  nlohmann::json r;
  if (pointer) {
    const auto task = make_task(point_task_name(task_name), {{"n_min", n.lo}, {"n_max", n.hi}});
    r = point_eval_json(evaluate_points(*model, *task, samples, n.lo, n.hi, seed, 250, beam),
                        task->name());
    r["beam"] = beam;
  } else {
    nlohmann::json opts = state.value("task_options", nlohmann::json::object());
    if (task_name == "phrases" && (a.has("n") || a.has("n-min")))
      opts = {{"n_min", n.lo}, {"n_max", n.hi}};
    const auto task = make_seq_task(task_name, opts);
    AL_CHECK(task->src_vocab() <= model->src_vocab(),
             "task " << task_name << " does not fit the checkpoint's vocabularies");
    r = evaluate_aligned(*model, *task, samples, seed).to_json();
  }
  std::printf("%s\n", r.dump().c_str());
  return 0;
}

int cmd_align(Args& a) {
  nlohmann::json state;
  auto model = load_checkpoint(a.need("checkpoint"), cpu_kernels(), &state);
  const std::string src = a.need("src");
  const int max_len = a.integer("max-len", 64, 1, 10000);
  a.finish();
  AL_CHECK(decodes_stepwise(*model) && model->aligns(), "attn align needs an rnnsearch checkpoint");
  const auto task = make_seq_task(state.value("task", std::string("dates")),
                                  state.value("task_options", nlohmann::json::object()));
  const std::vector<int32_t> ids = task->encode(src);
  const GreedyDecoded d = greedy_stepwise(*model, {ids}, max_len);
  nlohmann::json st = nlohmann::json::array(), tt = nlohmann::json::array();
  for (int32_t t : ids) st.push_back(task->src_token(t));
  for (int32_t t : d.tokens[0]) tt.push_back(task->tgt_token(t));
  std::printf("%s\n", nlohmann::json(
                          {{"src_tokens", st}, {"tgt_tokens", tt}, {"alignment", d.alignment[0]}})
                          .dump()
                          .c_str());
  return 0;
}

int cmd_point(Args& a) {
  nlohmann::json state;
  auto model = load_checkpoint(a.need("checkpoint"), cpu_kernels(), &state);
  const std::string text = a.need("points");
  const bool constrained = !a.has("unconstrained");
  a.finish();
  AL_CHECK(model->input_dim() > 0, "attn point needs a pointer checkpoint");
  const int dim = model->input_dim();
  std::vector<float> x;
  std::istringstream in(text);
  std::string item;
  int n = 0;
  while (in >> item) {
    std::istringstream parts(item);
    std::string v;
    int k = 0;
    while (std::getline(parts, v, ',')) {
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      AL_CHECK(end && *end == 0 && !v.empty(),
               "--points: '" << item << "' is not a list of numbers");
      AL_CHECK(std::isfinite(d), "--points: coordinates must be finite numbers, got '" << v << "'");
      x.push_back(float(d));
      ++k;
    }
    AL_CHECK(k == dim, "--points: '" << item << "' has " << k << " coordinates, expected " << dim);
    ++n;
  }
  const std::string task_name = state.value("task", std::string());
  if (names_point_task(task_name)) {
    const auto task = make_task(point_task_name(task_name));
    const std::vector<int> exact = task->solve(x, n);  // validates n and the values
    const PointDecoded d = decode_points(*model, x, 1, n, 1, constrained);
    std::printf(
        "%s\n",
        nlohmann::json({{"order", d.order[0]}, {"probabilities", d.probs[0]}, {"exact", exact}})
            .dump()
            .c_str());
    return 0;
  }
  AL_CHECK(n >= 1, "--points: no points given");
  const PointDecoded d = decode_points(*model, x, 1, n, 1, constrained);
  std::printf(
      "%s\n",
      nlohmann::json({{"order", d.order[0]}, {"probabilities", d.probs[0]}}).dump().c_str());
  return 0;
}

}  // namespace attnlab::cli

namespace attnlab::cli {

int cmd_bench_rnn(Args& a) {
  const int reps = a.integer("reps", 5, 1, 10000);
  set_num_threads(a.integer("threads", 1, 1, 256));
  a.finish();
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : rnn_bench(cpu_kernels(), reps))
    rows.push_back(
        {{"name", r.name}, {"ms_per_step", r.ms_per_step}, {"reps", r.reps}, {"backend", "cpu"}});
  std::printf("%s\n", rows.dump().c_str());
  return 0;
}

}  // namespace attnlab::cli
