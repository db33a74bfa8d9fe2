// Real-corpus commands: `attn train --task parallel [--model K]` (any encoder-decoder kind of the
// registry, the Transformer by default: BPE vocabulary trained from the corpus, token-bucketed
// batches, --lexicon-share, presets (Transformer sizes), the kind's schedule (Noam, or a
// constant --lr), periodic atomic checkpoints, exact --resume, SIGINT saves),
// Under mpirun (or RANK / WORLD_SIZE with --device cuda) training is data-parallel
// (data_parallel.hpp): --max-tokens is per rank, the global batch of a fresh run holds world size
// x max_tokens padded tokens and each rank trains on its share of its rows; a resumed run keeps
// the checkpoint's global batch and stream position on any world size. Rank 0 alone logs, writes
// checkpoints and evaluates. attn eval --test and attn average: cmd_parallel_eval.cpp.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "cli/commands.hpp"
#include "cli/data_parallel.hpp"
#include "cli/interrupt.hpp"
#include "cli/train_flags.hpp"
#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "models/config.hpp"
#include "parallel/thread_ranks.hpp"
#include "train/parallel_trainer.hpp"

namespace attnlab::cli {

namespace {

// The paper's configurations (Vaswani et al. 2017, Table 3) and a small one for CPUs.
nlohmann::json preset(const std::string& name) {
  if (name == "base")
    return {{"enc_layers", 6}, {"dec_layers", 6}, {"d_model", 512},      {"heads", 8},
            {"d_ff", 2048},    {"dropout", 0.1},  {"max_tokens", 25000}, {"warmup", 4000}};
  if (name == "big")
    return {{"enc_layers", 6}, {"dec_layers", 6}, {"d_model", 1024},     {"heads", 16},
            {"d_ff", 4096},    {"dropout", 0.3},  {"max_tokens", 25000}, {"warmup", 4000}};
  AL_CHECK(name == "small", "unknown preset \"" << name << "\" (base, big, small)");
  return {{"enc_layers", 2}, {"dec_layers", 2}, {"d_model", 256},     {"heads", 4},
          {"d_ff", 1024},    {"dropout", 0.1},  {"max_tokens", 4096}, {"warmup", 1000}};
}

// The model keys a preset sets (the rest are the Transformer config's defaults).
constexpr const char* kPresetModelKeys[] = {"d_model",    "heads",      "d_ff",
                                            "enc_layers", "dec_layers", "dropout"};

// --max-len of a corpus run: the longest sentence kept, in tokens (the model's max_len is 2 more:
// <s> and </s>).
constexpr int kMinSentence = 4, kMaxSentence = 4096;

// A resumed run's options come from the checkpoint's training state: each value is checked
// as the flags are, and the architecture keys must be the model's.
void check_resumed_options(const nlohmann::json& opts, const Model& model) {
  AL_CHECK(opts.is_object(), "the checkpoint's training options are not a JSON object");
  auto num = [&](const char* key) {
    AL_CHECK(opts.contains(key) && opts[key].is_number(),
             "the checkpoint's training options lack a number \"" << key << "\"");
    return opts[key].get<double>();
  };
  // the bounds of the flags that set them (train_flags.cpp)
  check_train_value(num("lr_factor"), "lr-factor", "resumed lr_factor");
  check_train_value(num("warmup"), "warmup", "resumed warmup");
  check_train_value(num("clip"), "clip", "resumed clip");
  check_train_value(num("label_smoothing"), "label-smoothing", "resumed label_smoothing");
  if (opts.contains("word_dropout"))  // absent in runs from before the option: none
    check_train_value(num("word_dropout"), "word-dropout", "resumed word_dropout");
  check_train_value(num("max_tokens"), "max-tokens", "resumed max_tokens");
  check_train_number(num("max_len"), "resumed max_len", kMinSentence, kMaxSentence);
  check_train_value(num("seed"), "seed", "resumed seed");
  AL_CHECK(opts.contains("train") && opts["train"].is_string(),
           "the checkpoint's training options lack the \"train\" corpus");
  if (opts.contains("lexicon_share"))  // absent: the items' natural share
    check_train_value(num("lexicon_share"), "lexicon-share", "resumed lexicon_share");
  if (opts.contains("schedule"))  // absent: Noam's (the Transformer's, in runs before the key)
    AL_CHECK(opts["schedule"] == "constant" && opts.contains("lr") && opts["lr"].is_number(),
             "the checkpoint's training options give schedule " << opts["schedule"].dump());
  if (opts.contains("lr")) check_train_value(num("lr"), "lr", "resumed lr");
  // the architecture keys the options hold (a preset's) must be the model's: its config with
  // them written in is its config still
  nlohmann::json with_opts = model.config();
  for (const char* k : {"d_model", "heads", "d_ff", "enc_layers", "dec_layers"})
    if (opts.contains(k)) with_opts[k] = opts[k];
  const std::string differs = config_difference(model.config(), with_opts);
  AL_CHECK(differs.empty(), "the checkpoint's training options give "
                                << differs << " = " << opts[differs].dump()
                                << ", another value than its model's");
  const int L = model.position_limit();  // a model with positions: options + 2 (<s> and </s>)
  AL_CHECK(L <= 0 || num("max_len") + 2 == L, "the checkpoint's training options give max_len "
                                                  << opts["max_len"].dump() << ", its model has "
                                                  << L << " (options + 2)");
}

void progress(const StepInfo& s, int last, double secs, long tokens, long done_here, bool tty,
              int every) {
  const double rate = secs > 0 ? tokens / secs : 0;
  const double eta = done_here > 0 ? secs / done_here * (last - s.step) : 0;
  if (tty) {
    const int width = 30, fill = int(width * double(s.step) / last);
    std::fprintf(stderr, "\r[%.*s%*s] %d/%d loss %.4f lr %.2e %.0f tok/s ETA %02d:%02d:%02d ", fill,
                 "##############################", width - fill, "", s.step, last, s.loss, s.lr,
                 rate, int(eta) / 3600, int(eta) / 60 % 60, int(eta) % 60);
    if (s.step == last) std::fprintf(stderr, "\n");
  } else if (s.step % every == 0 || s.step == last) {
    std::fprintf(stderr, "step %d/%d loss %.4f lr %.3g grad_norm %.3g tok/s %.0f eta %.0fs\n",
                 s.step, last, s.loss, s.lr, s.grad_norm, rate, eta);
  }
}

}  // namespace

const KernelTable& device_table(Args& a) {
  const std::string dev = a.str("device", "cpu");
  if (dev == "cpu") return cpu_kernels();
  AL_CHECK(dev == "cuda", "--device must be cpu or cuda, got " << dev);
  const KernelTable* k = cuda_kernels();
  AL_CHECK(k, "--device cuda: no CUDA device (or attn built without -DATTNLAB_CUDA=ON)");
  return *k;
}

std::string ckpt_dir(const std::string& out) { return out + ".ckpt"; }

std::string ckpt_path(const std::string& out, int step) {
  char name[64];
  std::snprintf(name, sizeof name, "step-%09d.safetensors", step);
  return (std::filesystem::path(ckpt_dir(out)) / name).string();
}

// Periodic checkpoints of a run, oldest first.
std::vector<std::string> list_checkpoints(const std::string& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("step-", 0) == 0 && n.size() > 12 && n.substr(n.size() - 12) == ".safetensors")
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int cmd_train_parallel(Args& a) {
  a.need("task");
  const std::string out = a.need("out");
  const bool cuda = a.str("device", "cpu") == "cuda";
  DataParallelRun dist(a, cuda);         // before the first GPU allocation: NCCL picks the GPU
  if (dist.root()) check_writable(out);  // before the BPE vocabulary and training, not after them
  const int last = train_int(a, "steps", 1000);  // train until this step
  const int save_every = train_int(a, "save-every", 1000);
  const int keep = train_int(a, "keep", 5);
  // the newest checkpoints keep Adam's moments (the one a resume reads); older ones only weights
  const int keep_optimizer = train_int(a, "keep-optimizer", keep);
  const int every = train_int(a, "log-every", 100);
  const int eval_sentences = train_int(a, "eval-sentences", 0);
  const int threads = train_int(a, "threads", 1);
  const ThreadSplit split = parse_thread_split(a.str("thread-split", "auto"));
  const KernelTable& kt = device_table(a);

  nlohmann::json opts;  // everything a resume needs to continue the same run
  std::unique_ptr<Model> model;
  Bpe bpe;
  SafeTensors resume_from;
  const bool resume = a.has("resume");
  if (resume) {
    resume_from = read_safetensors(a.str("resume"));
    // before any output: an older checkpoint of a --keep-optimizer run keeps only weights
    AL_CHECK(resume_from.find("optimizer.m") != nullptr,
             a.str("resume") << " has no optimizer state (optimizer.m): resume from the run's "
                                "newest checkpoint, or average/export/eval this one");
    opts = train_state_of(resume_from).at("options");
    bpe = Bpe::from_json(train_state_of(resume_from).at("vocab").get<std::string>());
    model = model_from_safetensors(resume_from, kt);
    check_resumed_options(opts, *model);
  } else {
    // the kind (the registry's row): its config keys take the model flags, its training
    // defaults the schedule, rate and clip
    const std::string kind = a.str("model", "transformer");
    const KindInfo& info = kind_info(kind);
    AL_CHECK(!info.takes_points && !info.packs_source,
             "model " << kind << " does not translate: --task parallel trains encoder-decoders");
    const ConfigKeys& keys = config_keys(kind);
    opts = preset(a.str("preset", "small"));
    bool sized = false;  // whether the preset sizes this kind
    for (const char* k : kPresetModelKeys) sized = sized || find_config_key(keys, k);
    AL_CHECK(sized || !a.has("preset"),
             "--preset sizes the Transformer; model " << kind << " takes its own model flags");
    for (const char* k : kPresetModelKeys)
      if (!find_config_key(keys, k)) opts.erase(k);
    opts["train"] = a.need("train");
    opts["valid"] = a.str("valid", "");
    opts["vocab_size"] = train_int(a, "vocab-size", 8000);
    opts["max_len"] = a.integer("max-len", 128, kMinSentence, kMaxSentence);
    opts["seed"] = train_int(a, "seed", 1);
    if (a.has("max-tokens")) opts["max_tokens"] = train_int(a, "max-tokens", 0);
    if (a.has("warmup")) opts["warmup"] = train_int(a, "warmup", 0);
    opts["label_smoothing"] = train_number(a, "label-smoothing", 0.1);
    opts["word_dropout"] = train_number(a, "word-dropout", 0.0);
    if (a.has("lexicon-share")) opts["lexicon_share"] = train_number(a, "lexicon-share", 0.0);
    opts["lr_factor"] = train_number(a, "lr-factor", 1.0);
    // Noam's kinds train unclipped, as in the paper's recipe; the others at their own clip
    const bool noam = std::string(info.train.schedule) == "noam";
    opts["clip"] = train_number(a, "clip", noam ? 0.0 : info.train.clip);
    if (!noam) {  // a constant rate (the kind's unless --lr)
      opts["schedule"] = info.train.schedule;
      opts["lr"] = train_number(a, "lr", info.train.lr);
    }
    nlohmann::json cfg = {
        {"model", kind}, {"src_vocab", opts["vocab_size"]}, {"tgt_vocab", opts["vocab_size"]}};
    // the keys of a kind with positions and tied embeddings (the Transformer's)
    if (find_config_key(keys, "max_len")) cfg["max_len"] = opts["max_len"].get<int>() + 2;
    if (find_config_key(keys, "tie_embeddings")) cfg["tie_embeddings"] = true;
    for (const char* k : kPresetModelKeys)
      if (opts.contains(k)) cfg[k] = opts[k];
    // the model flags, bounded by the kind's config as on every path (--max-len is the
    // corpus's sentence bound here, read above)
    apply_model_flags(a, kind, cfg, {"max-len"});
    for (const char* k : kPresetModelKeys)
      if (opts.contains(k)) opts[k] = cfg[k];
    // the vocabulary size is an upper bound of the BPE vocabulary's: check before training it
    const int L = opts["max_len"].get<int>() + 2;
    check_model_fits(cfg, std::max(1, opts["max_tokens"].get<int>() / L), L, L);
    const std::vector<std::string> sides = ParallelCorpus::read_sentences(opts["train"]);
    if (opts.value("lexicon_share", 0.0) > 0) {  // before the vocabulary, not after it
      bool items = false;
      for (size_t i = 0; i < sides.size() && !items; i += 2)
        items = ParallelCorpus::is_lexicon_source(sides[i]);
      AL_CHECK(items, "--lexicon-share: " << opts["train"].get<std::string>()
                                          << " has no lexicon items (sources tagged "
                                          << ParallelCorpus::kLexiconTag << ")");
    }
    if (dist.root())
      std::fprintf(stderr, "training a %d-token BPE vocabulary on %s\n",
                   opts["vocab_size"].get<int>(), opts["train"].get<std::string>().c_str());
    bpe = Bpe::train(sides, opts["vocab_size"]);
    cfg["src_vocab"] = cfg["tgt_vocab"] = bpe.size();
    model = make_model(cfg, kt, opts["seed"].get<uint64_t>());
  }
  a.finish();

  const ParallelCorpus train(opts["train"], bpe, opts["max_len"]);
  // the global token batch: world size x --max-tokens, or the resumed run's
  long global_tokens = opts["max_tokens"].get<long>() * dist.size();
  if (resume)
    global_tokens = train_state_of(resume_from).at("batcher").at("max_tokens").get<long>();
  if (dist.root()) {
    std::fprintf(stderr,
                 "%zu training pairs (%zu longer than %d tokens left out), %d-token vocabulary, "
                 "%ld parameters on %s\n",
                 train.size(), train.skipped(), opts["max_len"].get<int>(), bpe.size(),
                 model->params().total(), kt.name);
    if (dist.size() > 1 || global_tokens != opts["max_tokens"].get<long>())
      std::fprintf(stderr, "%d rank%s (%s), global batch of %ld padded tokens per side\n",
                   dist.size(), dist.size() > 1 ? "s" : "", dist.backend(), global_tokens);
  }
  ParallelTrainOptions o;
  o.max_tokens = global_tokens;
  o.schedule.kind = opts.value("schedule", std::string("noam"));
  o.schedule.lr = float(opts.value("lr", 1e-3));
  o.schedule.factor = opts["lr_factor"];
  o.schedule.warmup = opts["warmup"];
  o.schedule.d_model = model->schedule_width();
  o.clip = opts["clip"];
  o.label_smoothing = opts["label_smoothing"];
  o.word_dropout = float(opts.value("word_dropout", 0.0));
  o.lexicon_share = opts.value("lexicon_share", -1.0);
  o.seed = opts["seed"];
  o.dp = dist.dp();
  // --threads: thread ranks (each a share of the batch's rows: about max_tokens over the mean
  // padded length of a pair) or split kernel calls, as plan_threads decides; GPU and MPI runs
  // split kernels
  double mean_len = 1;
  if (train.size() > 0) {
    double sum = 0;
    for (size_t i = 0; i < train.size(); ++i)
      sum += std::max(train.src_len(i), train.tgt_len(i) + 1);
    mean_len = std::max(1.0, sum / double(train.size()));
  }
  const long rows = std::max(1L, long(double(global_tokens) / mean_len));
  const ThreadPlan plan =
      dist.size() > 1 || cuda
          ? plan_threads(threads, ThreadSplit::Kernels, rows, 2.0 * double(global_tokens), 0)
          : plan_threads(threads, split, rows, 2.0 * double(global_tokens),
                         model->schedule_width());
  set_num_threads(plan.kernel_threads);
  if (dist.root() && threads > 1)
    std::fprintf(stderr, "threads: %s\n", plan.to_json().dump().c_str());
  ThreadRankParallelTrainer tr(*model, train, bpe, o, plan.ranks);
  if (resume) tr.restore(resume_from);
  dist.check_same({{"options", opts},
                   {"global_tokens", global_tokens},
                   {"next_step", tr.next_step()},
                   {"last", last},
                   {"vocab", bpe.size()}},
                  model->params());
  const nlohmann::json extra = {{"options", opts}, {"task", "parallel"}};

  if (dist.root()) std::filesystem::create_directories(ckpt_dir(out));
  std::set<std::string> stripped;
  auto checkpoint = [&] {
    if (!dist.root()) return;
    tr.save(ckpt_path(out, tr.next_step() - 1), extra);
    auto all = list_checkpoints(ckpt_dir(out));
    for (size_t i = 0; i + size_t(keep) < all.size(); ++i) std::filesystem::remove(all[i]);
    for (size_t i = all.size() > size_t(keep) ? all.size() - size_t(keep) : 0;
         i + size_t(keep_optimizer) < all.size(); ++i)
      if (stripped.insert(all[i]).second) strip_optimizer(all[i]);  // each file read once a sitting
  };
  auto sigint = std::make_unique<SigintGuard>();
  const bool tty = stderr_is_tty();
  const auto t0 = std::chrono::steady_clock::now();
  long tokens = 0, done_here = 0;
  while (tr.next_step() <= last && !dist.any(SigintGuard::interrupted())) {
    const StepInfo s = tr.step();
    tokens += dist.global_tokens(s.tokens);
    ++done_here;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (dist.root()) progress(s, last, secs, tokens, done_here, tty, every);
    if (s.step % save_every == 0) checkpoint();
  }
  const bool interrupted = dist.any(SigintGuard::interrupted());
  sigint.reset();
  if ((tr.next_step() - 1) % save_every != 0) checkpoint();
  if (!dist.root()) return interrupted ? kInterruptedExit : 0;
  nlohmann::json state = extra;
  state["step"] = tr.next_step() - 1;
  state["vocab"] = bpe.to_json();
  write_safetensors_atomic(out, model_tensors(*model, false, state));
  if (interrupted) {
    std::fprintf(stderr, "interrupted: saved step %d to %s (resume from %s)\n", tr.next_step() - 1,
                 out.c_str(), ckpt_path(out, tr.next_step() - 1).c_str());
    return kInterruptedExit;
  }
  if (eval_sentences > 0 && !opts.value("valid", std::string()).empty()) {
    const ParallelCorpus valid(opts["valid"], bpe, opts["max_len"]);
    const BleuScore b =
        evaluate_bleu(*model, valid, bpe, 1, 0.6f, eval_sentences, opts["max_len"].get<int>() + 1);
    std::printf("%s\n", nlohmann::json({{"step", tr.next_step() - 1},
                                        {"valid_bleu_greedy", b.score},
                                        {"bleu", b.to_string()}})
                            .dump()
                            .c_str());
  }
  return 0;
}

}  // namespace attnlab::cli
