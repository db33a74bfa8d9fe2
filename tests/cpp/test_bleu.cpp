// Corpus BLEU the sacreBLEU way: 13a tokenization rules one by one, and BLEU values worked out
// by hand (n-gram counts in the comments) for exact, smoothed, brevity-penalised and
// multi-reference cases.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "eval/bleu.hpp"

using namespace attnlab;

TEST_CASE("bleu: 13a tokenization", "[train][bleu]") {
  CHECK(tokenize_13a("Hello, world!") == "Hello , world !");
  // Periods and commas stay inside numbers; the trailing ones split off. '$' is a symbol.
  CHECK(tokenize_13a("It costs $3.50, ok.") == "It costs $ 3.50 , ok .");
  CHECK(tokenize_13a("1990-2000 and well-known") == "1990 - 2000 and well-known");
  CHECK(tokenize_13a("don't (e.g. this)") == "don't ( e . g . this )");
  CHECK(tokenize_13a("&quot;Hi&quot; &amp; bye  \n") == "\" Hi \" & bye");
  CHECK(tokenize_13a("Straße: „Grün“.") == "Straße : „Grün“ .");
}

TEST_CASE("bleu: identical corpora score 100, disjoint ones 0", "[train][bleu]") {
  const std::vector<std::string> refs = {"the cat sat on the mat .", "a dog barked loudly"};
  const auto same = corpus_bleu(refs, {refs});
  CHECK(same.score == Approx(100.0));
  CHECK(same.brevity_penalty == 1.0);
  CHECK(same.hyp_len == 11);  // "mat ." gives 7 tokens, plus 4
  // No match at all: exp smoothing still gives every order a small precision, 100/(2^n total_n)
  // with totals 9, 7, 5, 3, and 9 hypothesis tokens against 11 shorten it further.
  const auto none = corpus_bleu({"x y z w v", "u t s r"}, {refs});
  const double p = (1.0 / 18) * (1.0 / 28) * (1.0 / 40) * (1.0 / 48);
  CHECK(none.score == Approx(100.0 * std::pow(p, 0.25) * std::exp(1.0 - 11.0 / 9.0)));
}

TEST_CASE("bleu: a hand-computed sentence with exp smoothing", "[train][bleu]") {
  // hyp: the cat sat on the mat / ref: the cat is on the mat
  // 1-grams 5/6, 2-grams 3/5 (the cat, on the, the mat), 3-grams 1/4 (on the mat),
  // 4-grams 0/3 -> exp smoothing 1/(2*3). BLEU = 100 * (5/6 * 3/5 * 1/4 * 1/6)^(1/4)
  // = 100 * 48^(-1/4) = 37.9918...
  const auto s = corpus_bleu({"the cat sat on the mat"}, {{"the cat is on the mat"}});
  CHECK(s.precisions[0] == Approx(100.0 * 5 / 6));
  CHECK(s.precisions[1] == Approx(60.0));
  CHECK(s.precisions[2] == Approx(25.0));
  CHECK(s.precisions[3] == Approx(100.0 / 6));
  CHECK(s.score == Approx(100.0 * std::pow(48.0, -0.25)));
  CHECK(s.to_string().rfind("BLEU = 37.99 83.3/60.0/25.0/16.7 (BP = 1.000", 0) == 0);
}

TEST_CASE("bleu: brevity penalty and corpus-level counts", "[train][bleu]") {
  // Sentence 1 exact (4 tokens), sentence 2 "a b" against 6 reference tokens: every n-gram of
  // the hypotheses matches (6/6, 4/4, 2/2, 1/1), so BLEU = BP = exp(1 - 10/6).
  const auto s = corpus_bleu({"a b c d", "a b"}, {{"a b c d", "a b c d e f"}});
  CHECK(s.hyp_len == 6);
  CHECK(s.ref_len == 10);
  CHECK(s.brevity_penalty == Approx(std::exp(1.0 - 10.0 / 6.0)));
  CHECK(s.score == Approx(100.0 * std::exp(1.0 - 10.0 / 6.0)));
  // A corpus with no 3-grams at all scores 0, as in sacreBLEU.
  const auto short_hyp = corpus_bleu({"the cat"}, {{"the cat sat on the mat"}});
  CHECK(short_hyp.score < 1e-6);
  CHECK(short_hyp.brevity_penalty == Approx(std::exp(-2.0)));
}

TEST_CASE("bleu: several references clip by the max count and take the closest length",
          "[train][bleu]") {
  // hyp "a a a a"; refs "a b c d e" (len 5) and "a a x" (len 3): both 1 away -> shorter, 3.
  // 1-grams clipped to 2 of 4; "a a" once in ref 2: 1/3; 3- and 4-grams unmatched:
  // 1/(2*2) and 1/(4*1). BLEU = 100 * (1/2 * 1/3 * 1/4 * 1/4)^(1/4) = 100 * 96^(-1/4).
  const auto s = corpus_bleu({"a a a a"}, {{"a b c d e"}, {"a a x"}});
  CHECK(s.ref_len == 3);
  CHECK(s.brevity_penalty == 1.0);
  CHECK(s.score == Approx(100.0 * std::pow(96.0, -0.25)));
  CHECK_THROWS_AS(corpus_bleu({"a"}, {{"a", "b"}}), Error);
}
