// Training on a parallel TSV corpus: a resumed run matches an uninterrupted one bit for bit
// (same batches, same Adam state, same dropout), a run killed with SIGKILL resumes from its last
// complete checkpoint, checkpoint averaging, and BLEU evaluation end to end.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data/task.hpp"

#ifndef __EMSCRIPTEN__
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#endif

#include "core/check.hpp"
#include "io/checkpoint.hpp"
#include "train/parallel_trainer.hpp"

using namespace attnlab;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

// "a b c" -> "c b a" style pairs over a few words: learnable and small.
std::string write_reverse_corpus(const std::string& name, int n) {
  const char* w[] = {"ka", "lo", "mi", "nu", "pe", "ro"};
  Rng rng(5);
  const std::string path = temp_path(name);
  std::ofstream f(path);
  for (int i = 0; i < n; ++i) {
    const int len = 1 + int(rng.below(4));
    std::vector<std::string> s;
    for (int k = 0; k < len; ++k) s.push_back(w[rng.below(6)]);
    std::string src, tgt;
    for (int k = 0; k < len; ++k) {
      src += (k ? " " : "") + s[size_t(k)];
      tgt += (k ? " " : "") + s[size_t(len - 1 - k)];
    }
    f << src << '\t' << tgt << '\n';
  }
  return path;
}

struct Run {
  Bpe bpe;
  std::string corpus_path;
  std::unique_ptr<ParallelCorpus> corpus;
  std::unique_ptr<Model> model;
  std::unique_ptr<ParallelTrainer> trainer;
};

nlohmann::json tiny_config(int vocab) {
  return {{"model", "transformer"},
          {"src_vocab", vocab},
          {"tgt_vocab", vocab},
          {"d_model", 16},
          {"heads", 2},
          {"d_ff", 32},
          {"enc_layers", 1},
          {"dec_layers", 1},
          {"dropout", 0.1},
          {"max_len", 12},
          {"tie_embeddings", true}};
}

ParallelTrainOptions tiny_options() {
  ParallelTrainOptions o;
  o.max_tokens = 60;
  o.schedule.kind = "constant";
  o.schedule.lr = 3e-3f;
  o.label_smoothing = 0.1f;
  o.seed = 11;
  return o;
}

void start(Run& r, const std::string& path, const Bpe* vocab = nullptr,
           const ParallelTrainOptions& o = tiny_options()) {
  r.corpus_path = path;
  r.bpe = vocab ? *vocab : Bpe::train(ParallelCorpus::read_sentences(path), 300, 2);
  r.corpus = std::make_unique<ParallelCorpus>(path, r.bpe, 10);
  r.model = make_model(tiny_config(r.bpe.size()), cpu_kernels(), 3);
  r.trainer = std::make_unique<ParallelTrainer>(*r.model, *r.corpus, r.bpe, o);
}

// A run rebuilt from a checkpoint: vocabulary, model and trainer state all from the file.
void resume(Run& r, const std::string& path, const SafeTensors& st,
            const ParallelTrainOptions& o = tiny_options()) {
  r.corpus_path = path;
  r.bpe = Bpe::from_json(train_state_of(st).at("vocab").get<std::string>());
  r.corpus = std::make_unique<ParallelCorpus>(path, r.bpe, 10);
  r.model = model_from_safetensors(st, cpu_kernels());
  r.trainer = std::make_unique<ParallelTrainer>(*r.model, *r.corpus, r.bpe, o);
  r.trainer->restore(st);
}

std::vector<float> params_of(Model& m) {
  std::vector<float> p(static_cast<size_t>(m.params().total()));
  m.kernels().download(p.data(), m.params().values(), p.size() * sizeof(float));
  return p;
}

}  // namespace

TEST_CASE("parallel trainer: resume continues exactly", "[train][data]") {
  const std::string corpus = write_reverse_corpus("attnlab_rev.tsv", 200);
  const std::string ckpt = temp_path("attnlab_rev_step3.safetensors");
  Run straight;
  start(straight, corpus);
  std::vector<double> losses;
  for (int i = 0; i < 6; ++i) losses.push_back(straight.trainer->step().loss);
  CHECK(losses.back() < losses.front());

  Run first;
  start(first, corpus);
  for (int i = 0; i < 3; ++i) REQUIRE(first.trainer->step().loss == losses[size_t(i)]);
  first.trainer->save(ckpt, {{"note", "test"}});
  CHECK_FALSE(std::filesystem::exists(ckpt + ".tmp"));

  const SafeTensors st = read_safetensors(ckpt);
  CHECK(train_state_of(st).at("step") == 3);
  CHECK(train_state_of(st).at("note") == "test");
  Run resumed;
  resume(resumed, corpus, st);
  REQUIRE(resumed.trainer->next_step() == 4);
  for (int i = 3; i < 6; ++i) REQUIRE(resumed.trainer->step().loss == losses[size_t(i)]);
  CHECK(params_of(*resumed.model) == params_of(*straight.model));

  // Averaging a checkpoint with itself gives it back, without optimizer tensors.
  const SafeTensors avg = average_checkpoints({ckpt, ckpt});
  CHECK(avg.find("optimizer.m") == nullptr);
  auto from_avg = model_from_safetensors(avg, cpu_kernels());
  CHECK(params_of(*from_avg) == params_of(*first.model));

  // BLEU runs end to end on held-out pairs (a barely trained model scores low, not NaN).
  const BleuScore b =
      evaluate_bleu(*straight.model, *straight.corpus, straight.bpe, 2, 0.6f, 8, 11);
  CHECK(b.score >= 0.0);
  CHECK(b.score <= 100.0);
  CHECK(b.ref_len > 0);
  std::remove(ckpt.c_str());
  std::remove(corpus.c_str());
}

TEST_CASE(
    "parallel trainer: a checkpoint stripped of Adam's moments keeps its weights, not a resume",
    "[train][data]") {
  const std::string corpus = write_reverse_corpus("attnlab_strip.tsv", 120);
  const std::string ckpt = temp_path("attnlab_strip_step2.safetensors");
  Run r;
  start(r, corpus);
  for (int i = 0; i < 2; ++i) r.trainer->step();
  r.trainer->save(ckpt, {{"note", "strip"}});
  const auto before = std::filesystem::file_size(ckpt);
  REQUIRE(read_safetensors(ckpt).find("optimizer.m") != nullptr);

  CHECK(strip_optimizer(ckpt));
  const SafeTensors st = read_safetensors(ckpt);
  CHECK(st.find("optimizer.m") == nullptr);
  CHECK(st.find("optimizer.v") == nullptr);
  // Adam's two moments are each as large as the weights: the file shrinks to about a third.
  CHECK(std::filesystem::file_size(ckpt) < before / 2);
  CHECK(train_state_of(st).at("note") == "strip");
  CHECK(train_state_of(st).at("step") == 2);
  auto weights = model_from_safetensors(st, cpu_kernels());
  CHECK(params_of(*weights) == params_of(*r.model));
  // a second strip finds nothing to do; a resume from it is refused by name
  CHECK_FALSE(strip_optimizer(ckpt));
  Run resumed;
  CHECK_THROWS_WITH(resume(resumed, corpus, st), Catch::Contains("optimizer"));
  std::remove(ckpt.c_str());
  std::remove(corpus.c_str());
}

TEST_CASE("word dropout replaces the share asked for, only in the inputs", "[train][data]") {
  std::vector<Example> ex;
  Rng draw(9);
  for (int r = 0; r < 64; ++r) {
    Example e;
    const int S = 20 + int(draw.below(40)), T = 20 + int(draw.below(40));
    for (int i = 0; i < S; ++i) e.src.push_back(int32_t(4 + draw.below(50)));
    for (int i = 0; i < T; ++i) e.tgt.push_back(int32_t(4 + draw.below(50)));
    ex.push_back(e);
  }
  const Batch clean = make_batch(ex);
  Batch b = clean;
  Rng rng(3), same(3);
  drop_words(b, 0.f, 0.f, Bpe::kUnk, rng);  // nothing dropped, nothing drawn
  CHECK(b.src == clean.src);
  CHECK(b.tgt_in == clean.tgt_in);
  CHECK(rng.next_u32() == same.next_u32());

  drop_words(b, 0.3f, 0.1f, Bpe::kUnk, rng);
  CHECK(b.tgt_out == clean.tgt_out);
  long src_tokens = 0, src_dropped = 0, tgt_tokens = 0, tgt_dropped = 0;
  for (size_t i = 0; i < b.src.size(); ++i) {
    if (clean.src[i] == kPad) {
      CHECK(b.src[i] == kPad);
      continue;
    }
    ++src_tokens;
    if (b.src[i] != clean.src[i]) {
      CHECK(b.src[i] == Bpe::kUnk);
      ++src_dropped;
    }
  }
  for (int r = 0; r < b.B; ++r) {
    CHECK(b.tgt_in[size_t(r) * b.T] == kBos);
    for (int t = 1; t < b.T; ++t) {
      const size_t i = size_t(r) * b.T + size_t(t);
      if (clean.tgt_in[i] == kPad) {
        CHECK(b.tgt_in[i] == kPad);
        continue;
      }
      ++tgt_tokens;
      if (b.tgt_in[i] != clean.tgt_in[i]) {
        CHECK(b.tgt_in[i] == Bpe::kUnk);
        ++tgt_dropped;
      }
    }
  }
  // about 2,500 tokens a side: the shares within 3 standard deviations
  CHECK(std::abs(double(src_dropped) / src_tokens - 0.3) < 3 * std::sqrt(0.21 / src_tokens));
  CHECK(std::abs(double(tgt_dropped) / tgt_tokens - 0.1) < 3 * std::sqrt(0.09 / tgt_tokens));
  Batch again = clean;
  CHECK_THROWS_WITH(drop_words(again, 1.f, 0.f, Bpe::kUnk, rng),
                    Catch::Contains("word dropout must be in [0, 1)"));
}

TEST_CASE("parallel trainer: word dropout changes the run, and a resume continues it exactly",
          "[train][data]") {
  const std::string corpus = write_reverse_corpus("attnlab_rev_wd.tsv", 200);
  const std::string ckpt = temp_path("attnlab_rev_wd_step3.safetensors");
  ParallelTrainOptions o = tiny_options();
  o.word_dropout = 0.3f;
  Run plain, straight;
  start(plain, corpus);
  start(straight, corpus, nullptr, o);
  std::vector<double> losses;
  for (int i = 0; i < 6; ++i) losses.push_back(straight.trainer->step().loss);
  CHECK(plain.trainer->step().loss != losses[0]);

  Run first;
  start(first, corpus, nullptr, o);
  for (int i = 0; i < 3; ++i) REQUIRE(first.trainer->step().loss == losses[size_t(i)]);
  first.trainer->save(ckpt);
  Run resumed;
  resume(resumed, corpus, read_safetensors(ckpt), o);
  for (int i = 3; i < 6; ++i) REQUIRE(resumed.trainer->step().loss == losses[size_t(i)]);
  CHECK(params_of(*resumed.model) == params_of(*straight.model));
  std::remove(ckpt.c_str());
  std::remove(corpus.c_str());
}

#ifndef __EMSCRIPTEN__
TEST_CASE("parallel trainer: a run killed with SIGKILL resumes from its last checkpoint",
          "[train][data]") {
  const std::string corpus = write_reverse_corpus("attnlab_kill.tsv", 200);
  const std::string dir = temp_path("attnlab_kill_ckpt");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string ready = dir + "/step2.safetensors";
  std::fflush(nullptr);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // trains, checkpointing every 2 steps, until killed; never returns
    try {
      Run r;
      start(r, corpus);
      for (int i = 0; i < 100000; ++i) {
        r.trainer->step();
        if ((r.trainer->next_step() - 1) % 2 == 0)
          r.trainer->save(dir + "/step" + std::to_string(r.trainer->next_step() - 1) +
                          ".safetensors");
      }
    } catch (...) {
    }
    _exit(1);
  }
  for (int i = 0; i < 6000 && !std::filesystem::exists(ready); ++i) usleep(10000);
  usleep(20000);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(std::filesystem::exists(ready));

  // Resume from the newest complete checkpoint and compare with a run that was never stopped.
  int newest = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 16 && n.substr(n.size() - 12) == ".safetensors")
      newest = std::max(newest, std::stoi(n.substr(4, n.size() - 16)));
  }
  REQUIRE(newest >= 2);
  const SafeTensors st = read_safetensors(dir + "/step" + std::to_string(newest) + ".safetensors");
  Run resumed;
  resume(resumed, corpus, st);
  Run straight;
  start(straight, corpus);
  for (int i = 0; i < newest + 2; ++i) straight.trainer->step();
  resumed.trainer->step();
  resumed.trainer->step();
  CHECK(params_of(*resumed.model) == params_of(*straight.model));
  std::filesystem::remove_all(dir);
  std::remove(corpus.c_str());
}
#endif
