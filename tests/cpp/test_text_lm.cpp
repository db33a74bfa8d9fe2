// The "text" task and LM sentence scoring: the tokenizer, the vocabulary cut and the disjoint
// held-out sentences; scores are causal (a prefix's token log-probs do not change when words
// are appended), agree between a model and its checkpoint bytes, and after training on a small
// grammar the grammatical sentence outscores its shuffled version.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>

#include "api/lm_score.hpp"
#include "core/check.hpp"
#include "data/text_task.hpp"
#include "io/checkpoint.hpp"
#include "kernels/kernels.hpp"
#include "train/trainer.hpp"

using namespace attnlab;
using nlohmann::json;

namespace {

// A tiny corpus: "the <noun> <verb> the <noun> ." with agreement-free random choices.
std::string grammar_corpus(int sentences) {
  const char* nouns[] = {"cat", "dog", "whale", "ship", "sailor", "captain"};
  const char* verbs[] = {"sees", "follows", "hunts", "finds", "likes"};
  Rng rng(11);
  std::string s;
  for (int i = 0; i < sentences; ++i)
    s += std::string("The ") + nouns[rng.below(6)] + " " + verbs[rng.below(5)] + " the " +
         nouns[rng.below(6)] + ". ";
  return s;
}

json lm_config(int V) {
  return {{"model", "lm"}, {"src_vocab", V},  {"tgt_vocab", V},  {"d_model", 32},  {"heads", 2},
          {"d_ff", 64},    {"enc_layers", 0}, {"dec_layers", 1}, {"dropout", 0.0}, {"max_len", 16}};
}

}  // namespace

TEST_CASE("text task: words, punctuation, vocabulary and held-out sentences", "[train]") {
  const auto w =
      text_words("Call me Ishmael. Some years ago\xE2\x80\x94never mind how long; it's \"here\"!");
  const std::vector<std::string> want = {"call", "me",   "ishmael", ".",    "some", "years",
                                         "ago",  "-",    "never",   "mind", "how",  "long",
                                         ";",    "it's", "\"",      "here", "\"",   "!"};
  CHECK(w == want);
  const std::vector<std::string> vocab = {"<pad>", "<s>", "</s>", "<unk>", "me", "."};
  CHECK(text_ids({"call", "me", "."}, vocab) == std::vector<int32_t>{3, 4, 5});

  const TextTask task(grammar_corpus(400), 8, 10, 3);
  CHECK(task.tgt_vocab() == 8);  // 4 specials + the 4 most frequent tokens
  const auto toks = task.tokens();
  CHECK(toks[4] == "the");
  CHECK(toks[5] == ".");
  REQUIRE(task.sentences(Split::Train) > 0);
  REQUIRE(task.sentences(Split::Test) > 0);
  // every example is a whole sentence (6 tokens, ending at ".") with an empty source
  const TextTask full(grammar_corpus(400), 100, 10, 3);
  Rng rng(3);
  std::set<std::vector<int32_t>> train, test;
  for (int i = 0; i < 300; ++i) train.insert(full.sample(rng, Split::Train).tgt);
  for (int i = 0; i < 100; ++i) test.insert(full.sample(rng, Split::Test).tgt);
  for (const auto& s : test) {
    CHECK(train.count(s) == 0);
    CHECK(s.size() == 6);
    CHECK(full.src_token(s.back()) == ".");
  }
  CHECK_THROWS_AS(make_task("text", json::object()), Error);
  CHECK_THROWS_AS(make_task("text", {{"file", "/nonexistent/corpus.txt"}}), Error);
}

TEST_CASE("lm scoring: causal, normalised, and the same from checkpoint bytes", "[api]") {
  const TextTask task(grammar_corpus(200), 100, 10, 3);
  const auto vocab = task.tokens();
  auto m = make_model(lm_config(int(vocab.size())), cpu_kernels(), 5);
  const auto a = api::score_sentence(*m, vocab, "the cat sees the dog");
  const auto b = api::score_sentence(*m, vocab, "the cat sees the dog and the ship");
  REQUIRE(a.logprobs.size() == 6);
  REQUIRE(a.tokens.back() == "</s>");
  CHECK(b.tokens[5] == "<unk>");  // "and" never occurs
  for (size_t t = 0; t < 5; ++t) CHECK(a.logprobs[t] == Approx(b.logprobs[t]).margin(1e-5));
  double sum = 0;
  for (float lp : a.logprobs) {
    CHECK(lp < 0.f);
    sum += lp;
  }
  CHECK(a.total == Approx(sum));
  // the mean -log p equals the model's own teacher-forced loss on the same row
  Batch bt;
  bt.B = 1;
  bt.T = int(a.ids.size());
  bt.tgt_in.push_back(kBos);
  bt.tgt_in.insert(bt.tgt_in.end(), a.ids.begin(), a.ids.end() - 1);
  bt.tgt_out = a.ids;
  CHECK(m->forward(bt, false, nullptr, 0.f) ==
        Approx(-a.total / double(a.ids.size())).epsilon(1e-4));

  const std::vector<uint8_t> bytes =
      serialize_safetensors(model_tensors(*m, false, {{"vocab", vocab}}));
  const auto c = api::score_sentences(bytes, {"the cat sees the dog"});
  REQUIRE(c.size() == 1);
  CHECK(c[0].total == Approx(a.total).epsilon(1e-5));
  CHECK_THROWS_AS(api::score_sentences(serialize_safetensors(model_tensors(*m)), {"the cat"}),
                  Error);
  CHECK_THROWS_AS(api::score_sentence(*m, vocab, "   "), Error);
}

TEST_CASE("lm on the text task: held-out loss falls and word order matters", "[model]") {
  const TextTask task(grammar_corpus(2000), 100, 10, 3);
  const auto vocab = task.tokens();
  auto m = make_model(lm_config(task.tgt_vocab()), cpu_kernels(), 1);
  auto held_out = [&] {
    Rng rng(99);
    return m->forward(make_batch(sample_many(task, rng, Split::Test, 64)), false, nullptr, 0.f);
  };
  const double before = held_out();
  TrainOptions o;
  o.batch = 32;
  o.schedule.kind = "constant";
  o.schedule.lr = 3e-3f;
  Trainer tr(*m, task, o);
  for (int i = 0; i < 150; ++i) tr.step();
  const double after = held_out();
  // uniform choices: 6 nouns x 5 verbs x 6 nouns, so about (3 ln 6 + ln 5) / 7 nats per token
  CHECK(after < 0.5 * before);
  CHECK(after < 1.2 * (3 * std::log(6.0) + std::log(5.0)) / 7);
  const auto good = api::score_sentence(*m, vocab, "the whale follows the ship .");
  const auto shuffled = api::score_sentence(*m, vocab, "ship the . whale the follows");
  CHECK(good.total > shuffled.total + 5);
}

TEST_CASE("text task with the bpe tokenizer: sentences, subwords without <unk>, round trip",
          "[train]") {
  // sentences end after . ! ? (with any closing quotes) where whitespace follows; a line break
  // ends one too; whitespace runs become one space
  CHECK(text_sentences("Call me Ishmael.  Some years ago\n\"Is it?\" he said. Mr.X stays!") ==
        std::vector<std::string>{"Call me Ishmael.", "Some years ago", "\"Is it?\"", "he said.",
                                 "Mr.X stays!"});
  CHECK(text_sentences("God said, \xE2\x80\x9CLet there be light.\xE2\x80\x9D And there was.") ==
        std::vector<std::string>{"God said, \xE2\x80\x9CLet there be light.\xE2\x80\x9D",
                                 "And there was."});

  std::string corpus = grammar_corpus(400);
  corpus += "\nThe \xC3\xA9quipage sails.";  // é: a character of its own
  const TextTask task(corpus, 400, 16, 3, true);
  REQUIRE(task.bpe() != nullptr);
  const Bpe& bpe = *task.bpe();
  CHECK(task.tgt_vocab() == bpe.size());
  CHECK(task.tgt_vocab() <= 400);
  const auto toks = task.tokens();
  CHECK(toks[Bpe::kEos] == "</s>");
  CHECK(toks[Bpe::kUnk] == "<unk>");
  // frequent words become single pieces with the word-start mark; case and punctuation stay
  const auto ids = bpe.encode("The whale follows the ship.");
  CHECK(bpe.decode(ids) == "The whale follows the ship.");
  CHECK(std::find(ids.begin(), ids.end(), Bpe::kUnk) == ids.end());
  CHECK(toks[size_t(ids[0])] == "\xE2\x96\x81The");
  // a word never seen is spelled in pieces (bytes for unseen characters), never <unk>
  const auto odd = bpe.encode("Zebra \xE2\x98\x83");
  CHECK(bpe.decode(odd) == "Zebra \xE2\x98\x83");
  CHECK(std::find(odd.begin(), odd.end(), Bpe::kUnk) == odd.end());
  // every example is one whole sentence in 3..16 pieces; held-out sentences are not trained on
  Rng rng(5);
  std::set<std::vector<int32_t>> train, test;
  for (int i = 0; i < 300; ++i) train.insert(task.sample(rng, Split::Train).tgt);
  for (int i = 0; i < 100; ++i) test.insert(task.sample(rng, Split::Test).tgt);
  REQUIRE(!test.empty());
  for (const auto& s : test) {
    CHECK(train.count(s) == 0);
    CHECK(s.size() >= 3);
    CHECK(s.size() <= 16);
    const std::string text = bpe.decode(s);
    CHECK(text.substr(0, 4) == "The ");
    CHECK(text.back() == '.');
  }
  // the same corpus gives the same vocabulary (a resumed run rebuilds its task)
  const TextTask again(corpus, 400, 16, 3, true);
  CHECK(again.bpe()->to_json() == bpe.to_json());
  CHECK_THROWS_AS(make_task("text", {{"file", "/dev/null"}, {"tokenizer", "chars"}}), Error);
}

TEST_CASE("lm scoring with a bpe checkpoint: the text is split into the model's pieces", "[api]") {
  const TextTask task(grammar_corpus(200), 400, 16, 3, true);
  const auto vocab = task.tokens();
  auto m = make_model(lm_config(int(vocab.size())), cpu_kernels(), 5);
  const std::vector<uint8_t> bytes = serialize_safetensors(
      model_tensors(*m, false, {{"vocab", vocab}, {"bpe", task.bpe()->to_json()}}));
  const auto r = api::score_sentences(bytes, {"The cat sees the dog."});
  REQUIRE(r.size() == 1);
  std::vector<int32_t> want = task.bpe()->encode("The cat sees the dog.");
  want.push_back(Bpe::kEos);
  CHECK(r[0].ids == want);
  CHECK(r[0].tokens.front() == "\xE2\x96\x81The");
  CHECK(r[0].tokens.back() == "</s>");
  CHECK(r[0].total ==
        Approx(api::score_sentence(*m, vocab, "The cat sees the dog.", task.bpe()).total)
            .epsilon(1e-6));
  // a vocabulary that does not match its BPE is refused
  auto short_vocab = vocab;
  short_vocab.pop_back();
  CHECK_THROWS_AS(api::score_sentences(
                      serialize_safetensors(model_tensors(
                          *m, false, {{"vocab", short_vocab}, {"bpe", task.bpe()->to_json()}})),
                      {"The cat."}),
                  Error);
}
