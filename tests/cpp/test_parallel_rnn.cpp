// The recurrent kinds (RNNsearch, Luong) on the parallel-corpus path of the Transformer: they
// learn a small TSV of reversed word sequences (training loss falls, most held-out pairs are
// translated exactly, none by the untrained model), beam search at width 1 is greedy decoding, a
// checkpoint holds the model (round trip, averaging, float16), and a run with a lexicon share
// resumes bit for bit.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "eval/decode.hpp"
#include "io/checkpoint.hpp"
#include "train/parallel_trainer.hpp"

using namespace attnlab;

namespace {

std::string rnn_temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

// "a b c" -> "c b a" over six words; with `lexicon` > 0, that many dictionary items too
// ("<lex> ka" -> "KA"), written after the sentences.
std::string write_rnn_corpus(const std::string& name, int n, int lexicon, uint64_t seed) {
  const char* w[] = {"ka", "lo", "mi", "nu", "pe", "ro"};
  const char* up[] = {"KA", "LO", "MI", "NU", "PE", "RO"};
  Rng rng(seed);
  const std::string path = rnn_temp_path(name);
  std::ofstream f(path);
  for (int i = 0; i < n; ++i) {
    const int len = 1 + int(rng.below(4));
    std::vector<int> s;
    for (int k = 0; k < len; ++k) s.push_back(int(rng.below(6)));
    std::string src, tgt;
    for (int k = 0; k < len; ++k) {
      src += (k ? " " : "") + std::string(w[s[size_t(k)]]);
      tgt += (k ? " " : "") + std::string(w[s[size_t(len - 1 - k)]]);
    }
    f << src << '\t' << tgt << '\n';
  }
  for (int i = 0; i < lexicon; ++i)
    f << ParallelCorpus::kLexiconTag << ' ' << w[i % 6] << '\t' << up[i % 6] << '\n';
  return path;
}

nlohmann::json rnn_config(const std::string& kind, int vocab) {
  nlohmann::json c = {
      {"model", kind}, {"src_vocab", vocab}, {"tgt_vocab", vocab}, {"emb", 16}, {"hidden", 24}};
  if (kind == "luong") c["score"] = "general";
  return c;
}

ParallelTrainOptions rnn_options(double lexicon_share = -1) {
  ParallelTrainOptions o;
  o.max_tokens = 120;
  o.schedule.kind = "constant";
  o.schedule.lr = 1e-2f;
  o.clip = 5.f;
  o.label_smoothing = 0.f;
  o.lexicon_share = lexicon_share;
  o.seed = 5;
  return o;
}

struct RnnRun {
  Bpe bpe;
  std::unique_ptr<ParallelCorpus> corpus;
  std::unique_ptr<Model> model;
  std::unique_ptr<ParallelTrainer> trainer;
};

void rnn_start(RnnRun& r, const std::string& kind, const std::string& path,
               const ParallelTrainOptions& o) {
  r.bpe = Bpe::train(ParallelCorpus::read_sentences(path), 300, 2);
  r.corpus = std::make_unique<ParallelCorpus>(path, r.bpe, 12);
  r.model = make_model(rnn_config(kind, r.bpe.size()), cpu_kernels(), 7);
  r.trainer = std::make_unique<ParallelTrainer>(*r.model, *r.corpus, r.bpe, o);
}

void rnn_resume(RnnRun& r, const std::string& path, const SafeTensors& st,
                const ParallelTrainOptions& o) {
  r.bpe = Bpe::from_json(train_state_of(st).at("vocab").get<std::string>());
  r.corpus = std::make_unique<ParallelCorpus>(path, r.bpe, 12);
  r.model = model_from_safetensors(st, cpu_kernels());
  r.trainer = std::make_unique<ParallelTrainer>(*r.model, *r.corpus, r.bpe, o);
  r.trainer->restore(st);
}

std::vector<float> rnn_params(Model& m) {
  std::vector<float> p(static_cast<size_t>(m.params().total()));
  m.kernels().download(p.data(), m.params().values(), p.size() * sizeof(float));
  return p;
}

double loss_mean(const std::vector<double>& v, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / double(to - from);
}

// The share of held-out pairs whose greedy translation is the reference, piece for piece.
double held_out_accuracy(Model& m, const ParallelCorpus& test) {
  std::vector<std::vector<int32_t>> srcs, refs;
  for (size_t i = 0; i < test.size(); ++i) {
    auto [s, t] = test.ids(i);
    srcs.push_back(std::move(s));
    refs.push_back(std::move(t));
  }
  const auto out = greedy_decode(m, srcs, 13);
  size_t right = 0;
  for (size_t i = 0; i < out.size(); ++i) right += out[i] == refs[i];
  return double(right) / double(out.size());
}

}  // namespace

TEST_CASE("parallel corpus: rnnsearch and luong learn a reversal from a TSV",
          "[train][data][rnn]") {
  const std::string train = write_rnn_corpus("attnlab_rnn_train.tsv", 400, 0, 5);
  const std::string held = write_rnn_corpus("attnlab_rnn_held.tsv", 60, 0, 99);
  for (const std::string kind : {"rnnsearch", "luong"}) {
    SECTION(kind) {
      RnnRun r;
      rnn_start(r, kind, train, rnn_options());
      const ParallelCorpus test(held, r.bpe, 12);
      const double untrained = held_out_accuracy(*r.model, test);
      std::vector<double> losses;
      for (int i = 0; i < 300; ++i) {
        const StepInfo s = r.trainer->step();
        REQUIRE(std::isfinite(s.loss));
        losses.push_back(s.loss);
      }
      const double first = loss_mean(losses, 0, 10), last = loss_mean(losses, 290, 300);
      INFO(kind << ": loss " << first << " -> " << last);
      CHECK(last < 0.5 * first);
      const double trained = held_out_accuracy(*r.model, test);
      INFO("held-out sequence accuracy " << untrained << " -> " << trained);
      CHECK(trained > 0.6);
      CHECK(untrained < 0.1);
      const BleuScore bleu = evaluate_bleu(*r.model, test, r.bpe, 4, 0.6f, 0, 13);
      CHECK(bleu.score > 20);

      // beam search at width 1 is greedy decoding, and wider beams decode every source
      for (size_t i = 0; i < 10; ++i) {
        const std::vector<int32_t> src = test.ids(i).first;
        CHECK(beam_decode(*r.model, src, 1, 13) == greedy_decode(*r.model, {src}, 13)[0]);
        // the step decoder's beams are those of re-running the whole prefix
        const std::vector<int32_t> wide = beam_decode(*r.model, src, 4, 13, 0.6f);
        CHECK(wide == beam_decode(*r.model, src, 4, 13, 0.6f, false));
        CHECK(wide.size() <= 13);
      }
    }
  }
  std::remove(train.c_str());
  std::remove(held.c_str());
}

TEST_CASE("parallel corpus: a recurrent checkpoint round-trips, averages and halves",
          "[train][data][rnn]") {
  const std::string train = write_rnn_corpus("attnlab_rnn_ckpt.tsv", 200, 0, 3);
  const std::string ckpt = rnn_temp_path("attnlab_rnn_ckpt.safetensors");
  for (const std::string kind : {"rnnsearch", "luong"}) {
    SECTION(kind) {
      RnnRun r;
      rnn_start(r, kind, train, rnn_options());
      for (int i = 0; i < 20; ++i) r.trainer->step();
      r.trainer->save(ckpt, {{"task", "parallel"}});
      const SafeTensors st = read_safetensors(ckpt);
      CHECK(train_state_of(st).at("step") == 20);
      auto back = model_from_safetensors(st, cpu_kernels());
      CHECK(back->kind() == kind);
      CHECK(rnn_params(*back) == rnn_params(*r.model));
      std::vector<std::vector<int32_t>> srcs;
      for (size_t i = 0; i < 8; ++i) srcs.push_back(r.corpus->ids(i).first);
      CHECK(greedy_decode(*back, srcs, 13) == greedy_decode(*r.model, srcs, 13));
      // the mean of a checkpoint with itself is its weights
      auto avg = model_from_safetensors(average_checkpoints({ckpt, ckpt}), cpu_kernels());
      CHECK(rnn_params(*avg) == rnn_params(*r.model));
      // float16 weights: each within half a unit in the last place of binary16
      SafeTensors half;
      half.metadata = st.metadata;
      for (const StTensor& t : st.tensors)
        if (t.name.rfind("optimizer.", 0) != 0) half.add_f16(t.name, t.shape, t.to_f32().data());
      auto h = model_from_safetensors(half, cpu_kernels());
      const std::vector<float> a = rnn_params(*h), b = rnn_params(*r.model);
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i)
        REQUIRE(std::abs(a[i] - b[i]) <= std::abs(b[i]) * 4.9e-4f + 6e-8f);
    }
  }
  std::remove(ckpt.c_str());
  std::remove(train.c_str());
}

TEST_CASE("parallel corpus: a recurrent run with a lexicon share resumes bit for bit",
          "[train][data][rnn]") {
  const std::string corpus = write_rnn_corpus("attnlab_rnn_lex.tsv", 150, 60, 8);
  const std::string ckpt = rnn_temp_path("attnlab_rnn_lex_step4.safetensors");
  const ParallelTrainOptions o = rnn_options(0.3);
  RnnRun natural, straight;
  rnn_start(natural, "rnnsearch", corpus, rnn_options());
  rnn_start(straight, "rnnsearch", corpus, o);
  std::vector<double> losses;
  for (int i = 0; i < 14; ++i) losses.push_back(straight.trainer->step().loss);  // past an epoch
  CHECK(straight.trainer->epoch() >= 1);
  CHECK(natural.trainer->step().loss != losses[0]);  // the share changes the batches

  RnnRun first;
  rnn_start(first, "rnnsearch", corpus, o);
  for (int i = 0; i < 4; ++i) REQUIRE(first.trainer->step().loss == losses[size_t(i)]);
  first.trainer->save(ckpt);
  RnnRun resumed;
  rnn_resume(resumed, corpus, read_safetensors(ckpt), o);
  REQUIRE(resumed.trainer->next_step() == 5);
  for (int i = 4; i < 14; ++i) REQUIRE(resumed.trainer->step().loss == losses[size_t(i)]);
  CHECK(rnn_params(*resumed.model) == rnn_params(*straight.model));
  // the saved stream belongs to its share: another share cannot continue it
  RnnRun other;
  CHECK_THROWS_WITH(rnn_resume(other, corpus, read_safetensors(ckpt), rnn_options(0.5)),
                    Catch::Contains("lexicon share"));
  std::remove(ckpt.c_str());
  std::remove(corpus.c_str());
}
