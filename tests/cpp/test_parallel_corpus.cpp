// Parallel TSV corpora and token-bucketed batches: indexing and reading back from disk,
// length filtering, malformed lines, the token budget of every batch, one visit per example per
// epoch, and an exact continuation after saving and restoring the batcher's state.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "core/rng.hpp"
#include "data/parallel_corpus.hpp"

using namespace attnlab;

namespace {

// A small TSV of generated sentences (a word list in two "languages"), written to a temp file.
std::string write_corpus(const std::string& name, int n, const std::string& extra = "") {
  const char* de[] = {"der", "Hund", "sieht", "die", "Katze", "nicht", "heute", "Straße"};
  const char* en[] = {"the", "dog", "sees", "the", "cat", "not", "today", "street"};
  Rng rng(9);
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream f(path, std::ios::binary);
  for (int i = 0; i < n; ++i) {
    const int len = 1 + int(rng.below(12));
    std::string s, t;
    for (int k = 0; k < len; ++k) {
      const int w = int(rng.below(8));
      s += (k ? " " : "") + std::string(de[w]);
      t += (k ? " " : "") + std::string(en[w]);
    }
    f << s << '\t' << t << (i % 5 == 0 ? "\r\n" : "\n");
  }
  f << extra;
  return path;
}

}  // namespace

TEST_CASE("parallel corpus: index, read back, filter by length", "[train][data]") {
  const std::string path = write_corpus("attnlab_corpus_a.tsv", 300);
  const Bpe bpe = Bpe::train(ParallelCorpus::read_sentences(path), 400, 2);
  const ParallelCorpus all(path, bpe, 1000);
  REQUIRE(all.size() == 300);
  CHECK(all.skipped() == 0);
  for (size_t i : {size_t(0), size_t(5), size_t(299)}) {
    const auto [src, tgt] = all.text(i);
    const auto [s, t] = all.ids(i);
    CHECK(s == bpe.encode(src));
    CHECK(t == bpe.encode(tgt));
    CHECK(int(s.size()) == all.src_len(i));
    CHECK(int(t.size()) == all.tgt_len(i));
    CHECK(src.find('\r') == std::string::npos);
    CHECK(tgt.find('\r') == std::string::npos);
    CHECK(bpe.decode(t) == tgt);
  }
  const ParallelCorpus short_only(path, bpe, 6);
  CHECK(short_only.size() + short_only.skipped() == 300);
  CHECK(short_only.skipped() > 0);
  for (size_t i = 0; i < short_only.size(); ++i) {
    CHECK(short_only.src_len(i) <= 6);
    CHECK(short_only.tgt_len(i) <= 6);
  }
  const std::string bad = write_corpus("attnlab_corpus_b.tsv", 3, "no tab here\n");
  CHECK_THROWS_WITH(ParallelCorpus(bad, bpe, 100), Catch::Contains(":4: no tab"));
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("token batcher: budget, coverage, shuffling and exact resume", "[train][data]") {
  Rng rng(3);
  std::vector<int> cost(1000);
  for (auto& c : cost) c = 2 + int(rng.below(60));
  cost[17] = 500;  // longer than the budget: a batch of its own
  const long budget = 400;
  TokenBatcher a(cost, budget, 42, 256);
  const size_t per_epoch = a.batches_in_epoch();
  std::vector<std::vector<size_t>> epoch0;
  std::multiset<size_t> seen;
  for (size_t b = 0; b < per_epoch; ++b) {
    epoch0.push_back(a.next());
    const auto& batch = epoch0.back();
    int widest = 0;
    for (size_t i : batch) {
      seen.insert(i);
      widest = std::max(widest, cost[i]);
    }
    if (batch.size() > 1) CHECK(long(batch.size()) * widest <= budget);
  }
  CHECK(a.epoch() == 0);
  REQUIRE(seen.size() == cost.size());
  CHECK(std::set<size_t>(seen.begin(), seen.end()).size() == cost.size());  // once each
  // Length bucketing keeps padding low: most padded slots hold real tokens.
  long real = 0, padded = 0;
  for (const auto& batch : epoch0) {
    int widest = 0;
    for (size_t i : batch) {
      real += cost[i];
      widest = std::max(widest, cost[i]);
    }
    padded += long(batch.size()) * widest;
  }
  CHECK(double(real) / padded > 0.8);

  // The next epoch is a different order; the same seed gives the same stream.
  const auto first_of_epoch1 = a.next();
  CHECK(a.epoch() == 1);
  TokenBatcher b(cost, budget, 42, 256);
  for (size_t k = 0; k < per_epoch; ++k) CHECK(b.next() == epoch0[k]);
  CHECK(b.next() == first_of_epoch1);
  CHECK(first_of_epoch1 != epoch0[0]);

  // Save mid-epoch, restore into a fresh batcher: the continuation is identical.
  for (int k = 0; k < 5; ++k) b.next();
  const auto saved = b.state().dump();
  TokenBatcher c(cost, budget, 7, 256);
  c.restore(nlohmann::json::parse(saved));
  for (int k = 0; k < int(per_epoch) + 3; ++k) REQUIRE(c.next() == b.next());
  TokenBatcher other(std::vector<int>(10, 3), budget, 42, 256);
  CHECK_THROWS_AS(other.restore(nlohmann::json::parse(saved)), Error);
}

TEST_CASE("token batcher: a lexicon share holds in every batch and resumes exactly",
          "[train][data]") {
  Rng rng(4);
  const size_t sentences = 900, items = 400;
  std::vector<int> cost;
  std::vector<uint8_t> lexicon;
  for (size_t i = 0; i < sentences + items; ++i) {  // items shorter, as dictionary entries are
    const bool item = i % 13 < 4 && std::count(lexicon.begin(), lexicon.end(), 1) < long(items);
    cost.push_back(item ? 2 + int(rng.below(4)) : 4 + int(rng.below(40)));
    lexicon.push_back(item ? 1 : 0);
  }
  const size_t n_items = size_t(std::count(lexicon.begin(), lexicon.end(), 1));
  const long budget = 300;
  for (const double share : {0.0, 0.1, 0.25, 0.6}) {
    TokenBatcher a(cost, budget, 42, 128, lexicon, share);
    const double ratio = share / (1 - share);
    long rows = 0, lex_rows = 0;
    std::multiset<size_t> sentences_seen;
    std::vector<size_t> items_seen;
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<size_t> batch = a.next();  // the epoch's first (planned on the way)
      REQUIRE(a.epoch() == epoch);
      const size_t per_epoch = a.batches_in_epoch();
      for (size_t b = 0; b < per_epoch; ++b) {
        if (b > 0) batch = a.next();
        long k = 0, widest = 0;
        for (size_t i : batch) {
          k += lexicon[i];
          widest = std::max(widest, long(cost[i]));
          if (lexicon[i])
            items_seen.push_back(i);
          else if (epoch == 0)
            sentences_seen.insert(i);
        }
        const long n = long(batch.size()) - k;
        REQUIRE(n >= 1);
        // each batch: k = floor(carry + n p / (1 - p)) with carry in [0, 1)
        CHECK(std::abs(double(k) - double(n) * ratio) < 1.0 + 1e-9);
        if (n > 1) CHECK(long(batch.size()) * widest <= budget);  // items count in the budget
        rows += long(batch.size());
        lex_rows += k;
      }
    }
    INFO("share " << share << ": " << lex_rows << " of " << rows << " rows");
    CHECK(std::abs(double(lex_rows) / double(rows) - share) < 0.005);
    // an epoch is one pass over the sentences; the items come round in turn (the epochs take
    // one stream of passes over them), so no item is drawn twice more often than another
    CHECK(sentences_seen.size() == sentences + items - n_items);
    CHECK(std::set<size_t>(sentences_seen.begin(), sentences_seen.end()).size() ==
          sentences_seen.size());
    std::map<size_t, long> draws;
    for (size_t i : items_seen) ++draws[i];
    if (items_seen.size() >= n_items) {
      REQUIRE(draws.size() == n_items);
      long lo = long(items_seen.size()), hi = 0;
      for (const auto& [i, c] : draws) lo = std::min(lo, c), hi = std::max(hi, c);
      CHECK(hi - lo <= 1);
    }
    if (share == 0.0) CHECK(lex_rows == 0);

    // a restored state continues the same stream, across epochs
    TokenBatcher b(cost, budget, 42, 128, lexicon, share);
    for (int k = 0; k < 7; ++k) b.next();
    TokenBatcher c(cost, budget, 9, 128, lexicon, share);
    c.restore(nlohmann::json::parse(b.state().dump()));
    for (size_t k = 0; k < 3 * a.batches_in_epoch(); ++k) REQUIRE(c.next() == b.next());
    TokenBatcher natural(cost, budget, 42, 128);
    CHECK_THROWS_WITH(natural.restore(b.state()), Catch::Contains("lexicon share"));
  }
  // without a share, the mask changes nothing: the batches of the batcher before the option
  TokenBatcher plain(cost, budget, 42, 128), masked(cost, budget, 42, 128, lexicon);
  for (int k = 0; k < 40; ++k) REQUIRE(plain.next() == masked.next());
  CHECK_THROWS_WITH(TokenBatcher(cost, budget, 42, 128, std::vector<uint8_t>(cost.size(), 0), 0.2),
                    Catch::Contains("needs lexicon items"));
}

TEST_CASE("parallel corpus: dictionary items are the sources tagged <lex>", "[train][data]") {
  const auto path = (std::filesystem::temp_directory_path() / "attnlab_corpus_lex.tsv").string();
  {
    std::ofstream f(path, std::ios::binary);
    f << "der Hund\tthe dog\n<lex> Hund\tdog\n<lexicon> nicht\tnot\n<lex> Katze\tcat\n";
  }
  const Bpe bpe = Bpe::train(ParallelCorpus::read_sentences(path), 300, 2);
  const ParallelCorpus c(path, bpe, 100);
  REQUIRE(c.size() == 4);
  CHECK_FALSE(c.lexicon(0));
  CHECK(c.lexicon(1));
  CHECK_FALSE(c.lexicon(2));  // the tag is a word of its own
  CHECK(c.lexicon(3));
  CHECK(c.lexicon_items() == 2);
  CHECK(ParallelCorpus::is_lexicon_source("<lex>"));
  CHECK_FALSE(ParallelCorpus::is_lexicon_source("Hund <lex>"));
  std::remove(path.c_str());
}
