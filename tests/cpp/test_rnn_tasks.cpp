// Task generators: date formats and gold alignments, phrase reordering, splits, and the
// hull / TSP / sort labels against independent brute force.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "data/date_task.hpp"
#include "data/geometry.hpp"
#include "data/phrase_task.hpp"
#include "data/point_task.hpp"
#include "data/seq_task.hpp"
#include "eval/align_eval.hpp"

using namespace attnlab;

TEST_CASE("dates: calendar arithmetic and the formats of four locales", "[tasks]") {
  CHECK(days_from_civil({1970, 1, 1}) == 0);
  CHECK(weekday({2021, 12, 25}) == 6);  // a Saturday
  CHECK(weekday({1950, 1, 1}) == 0);    // a Sunday
  for (long z = days_from_civil({1950, 1, 1}); z <= days_from_civil({2049, 12, 31}); z += 37) {
    const CivilDate d = civil_from_days(z);
    CHECK(days_from_civil(d) == z);
  }
  CHECK(format_date({2021, 12, 25}, 0) == "Saturday, 25 December 2021");
  CHECK(format_date({2021, 12, 25}, 4) == "Saturday, December 25, 2021");
  CHECK(format_date({2021, 12, 25}, 7) == "samedi 25 décembre 2021");
  CHECK(format_date({2021, 12, 25}, 10) == "2021년 12월 25일 토요일");
  CHECK(format_date({1999, 3, 1}, 3) == "01/03/1999");
  CHECK(format_date({1999, 3, 1}, 12) == "1999. 3. 1.");
  CHECK(format_date({2021, 9, 1}, 2) == "1 Sept 2021");
  CHECK(format_date({2021, 12, 5}, 9) == "5 déc. 2021");
  CHECK(iso_date({2021, 3, 7}) == "2021-03-07");
}

TEST_CASE("dates: every gold link points at the source token that carries the digit", "[tasks]") {
  DateTask task;
  Rng rng(3);
  for (int k = 0; k < 400; ++k) {
    const CivilDate d = civil_from_days(days_from_civil({1950, 1, 1}) + long(rng.below(36000)));
    const int f = k % kDateFormats;
    const SeqExample ex = task.example(d, f);
    REQUIRE(ex.tgt_text == iso_date(d));
    const auto toks = split_tokens(ex.src_text);
    REQUIRE(toks.size() == ex.src.size());
    for (size_t i = 0; i < ex.tgt.size(); ++i) {
      INFO(ex.src_text << " target " << i);
      if (i == 4 || i == 7) {
        CHECK(ex.gold[i].empty());
        continue;
      }
      REQUIRE(ex.gold[i].size() == 1);
      const std::string& tok = toks[size_t(ex.gold[i][0])];
      const char c = ex.tgt_text[i];
      if (tok[0] >= '0' && tok[0] <= '9') {
        // The same digit, or the lone digit of a one-digit month/day behind the target's '0'.
        const bool lead =
            (i == 5 || i == 8) && c == '0' && tok == std::string(1, ex.tgt_text[i + 1]);
        CHECK((tok == std::string(1, c) || lead));
      } else {
        // A month word: changing the month changes exactly that token.
        REQUIRE((i == 5 || i == 6));
        const CivilDate other{d.year, d.month % 12 + 1, std::min(d.day, 28)};
        const CivilDate same{d.year, d.month, std::min(d.day, 28)};
        const auto a = split_tokens(format_date(same, f)), b = split_tokens(format_date(other, f));
        if (a.size() == toks.size() && b.size() == toks.size())
          CHECK(a[size_t(ex.gold[i][0])] != b[size_t(ex.gold[i][0])]);
      }
    }
  }
}

TEST_CASE("dates: the century digits determine each other, so their links are possible ones",
          "[tasks]") {
  // Over 1950..2049 the year's first target digit follows from the source's second year digit
  // and the second from the first: each map is a function, so attending to either century
  // digit is a correct reading and both are possible links of both targets.
  DateTask task;
  std::map<char, char> first_from_second, second_from_first;
  for (int y = kFirstYear; y <= kLastYear; ++y)
    for (int f = 0; f < kDateFormats; ++f) {
      const SeqExample ex = task.example({y, 7, 14}, f);
      const auto toks = split_tokens(ex.src_text);
      REQUIRE(ex.possible.size() == ex.tgt.size());
      for (size_t i = 2; i < ex.tgt.size(); ++i) CHECK(ex.possible[i].empty());
      REQUIRE(ex.possible[0] == std::vector<int>{ex.gold[0][0], ex.gold[1][0]});
      REQUIRE(ex.possible[1] == ex.possible[0]);
      const char s0 = toks[size_t(ex.gold[0][0])][0], s1 = toks[size_t(ex.gold[1][0])][0];
      CHECK(s0 == ex.tgt_text[0]);
      CHECK(s1 == ex.tgt_text[1]);
      CHECK(first_from_second.emplace(s1, ex.tgt_text[0]).first->second == ex.tgt_text[0]);
      CHECK(second_from_first.emplace(s0, ex.tgt_text[1]).first->second == ex.tgt_text[1]);
    }
  CHECK(first_from_second.size() == 2);  // '9' and '0' (1950..1999, 2000..2049)
  CHECK(second_from_first.size() == 2);  // '1' and '2'
}

TEST_CASE("alignment error rate: sure and possible links (Och & Ney 2003)", "[tasks]") {
  // Two examples; each row is one target's attention over the source.
  const std::vector<std::vector<std::vector<float>>> attn = {
      {{0.7f, 0.2f, 0.1f}, {0.1f, 0.8f, 0.1f}, {0.2f, 0.3f, 0.5f}},  // argmax 0, 1, 2
      {{0.1f, 0.9f}, {0.6f, 0.4f}},                                  // argmax 1, 0
  };
  const std::vector<std::vector<std::vector<int>>> gold = {{{0}, {2}, {}}, {{0}, {0, 1}}};
  // All sure: |A| = 4 (a target without links has none), |S| = 5, A n S = 2.
  CHECK(alignment_error_rate(attn, gold) == Approx(1.0 - 2.0 * 2 / 9));
  // Example 1's second and example 2's first target made ambiguous: they lose their sure link
  // (|S| = 3, A n S = 2) and hit a possible one (A n P = 4).
  const std::vector<std::vector<std::vector<int>>> possible = {{{}, {1, 2}}, {{0, 1}}};
  CHECK(alignment_error_rate(attn, gold, possible) == Approx(1.0 - (2.0 + 4) / 7));
  // An ambiguous target scores by precision alone: either possible link is right, others wrong.
  CHECK(alignment_error_rate({{{1.f, 0.f, 0.f}}}, {{{0}}}, {{{0, 1}}}) == Approx(0.0));
  CHECK(alignment_error_rate({{{0.f, 1.f, 0.f}}}, {{{0}}}, {{{0, 1}}}) == Approx(0.0));
  CHECK(alignment_error_rate({{{0.f, 0.f, 1.f}}}, {{{0}}}, {{{0, 1}}}) == Approx(1.0));
  CHECK(alignment_error_rate({{{0.f, 1.f, 0.f}}}, {{{0}}}) == Approx(1.0));
  CHECK_THROWS_WITH(alignment_error_rate(attn, gold, {{}}), Catch::Contains("possible-link"));
}

TEST_CASE("dates and phrases: held-out splits never share a source", "[tasks]") {
  Rng rng(5);
  for (const char* name : {"dates", "phrases"}) {
    auto task = make_seq_task(name);
    std::set<std::string> train, test;
    for (int k = 0; k < 3000; ++k) train.insert(task->sample_aligned(rng, Split::Train).src_text);
    for (int k = 0; k < 400; ++k) test.insert(task->sample_aligned(rng, Split::Test).src_text);
    for (const auto& t : test) CHECK(train.count(t) == 0);
    CHECK(test.size() > 100);
  }
}

TEST_CASE("phrases: adjectives follow the noun in reverse order, alignment crosses", "[tasks]") {
  PhraseTask task(2, 30);
  Rng rng(9);
  for (int n = 2; n <= 30; ++n) {
    const SeqExample ex = task.sample_length(rng, Split::Train, n);
    CHECK(int(ex.src.size()) == n);
    CHECK(ex.tgt.size() == ex.src.size());
    std::vector<int> cover;
    for (const auto& g : ex.gold) cover.push_back(g.at(0));
    std::sort(cover.begin(), cover.end());
    for (int i = 0; i < n; ++i) CHECK(cover[size_t(i)] == i);  // a permutation of the source
  }
  bool found = false;
  for (int k = 0; k < 200000 && !found; ++k) {
    const SeqExample ex = task.sample_length(rng, k % 2 ? Split::Train : Split::Test, 4);
    if (ex.src_text != "the European economic area") continue;
    found = true;
    CHECK(ex.tgt_text == "la zone économique européenne");
    CHECK(ex.gold == std::vector<std::vector<int>>{{0}, {3}, {2}, {1}});
  }
  CHECK(found);
}

TEST_CASE("phrases: the English article is \"an\" before a vowel sound, \"a\" elsewhere",
          "[tasks]") {
  PhraseTask task(2, 12);
  Rng rng(3);
  int an = 0, a = 0;
  for (int k = 0; k < 4000; ++k) {
    const SeqExample ex = task.sample_length(rng, Split::Train, 2 + k % 11);
    std::vector<std::string> w;
    std::string cur;
    for (char c : ex.src_text + " ")
      if (c == ' ')
        w.push_back(cur), cur.clear();
      else
        cur += c;
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      const std::string& next = w[i + 1];
      const bool vowel =
          next == "area" || next == "agency" || next == "economic" || next == "urban";
      if (w[i] == "an") {
        ++an;
        CHECK(vowel);
      }
      if (w[i] == "a") {
        ++a;
        CHECK_FALSE(vowel);
      }
    }
  }
  CHECK(an > 50);
  CHECK(a > 500);
}

// A point i is a hull vertex iff some edge (i, j) has every other point strictly on its left.
static std::set<int> brute_hull(const std::vector<float>& p, int n) {
  std::set<int> out;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      bool left = true;
      for (int k = 0; k < n && left; ++k)
        if (k != i && k != j)
          left = (p[2 * j] - p[2 * i]) * (p[2 * k + 1] - p[2 * i + 1]) -
                     (p[2 * j + 1] - p[2 * i + 1]) * (p[2 * k] - p[2 * i]) >
                 0;
      if (left) out.insert(i), out.insert(j);
    }
  return out;
}

TEST_CASE("convex hull: vertices, orientation and start match brute force", "[tasks]") {
  PointTask task(PointKind::Hull);
  Rng rng(21);
  for (int k = 0; k < 300; ++k) {
    const int n = 3 + int(rng.below(12));
    const PointExample ex = task.sample(rng, n, Split::Train);
    const auto& h = ex.target;
    CHECK(std::set<int>(h.begin(), h.end()) == brute_hull(ex.x, n));
    CHECK(h[0] == *std::min_element(h.begin(), h.end()));
    const auto& p = ex.x;
    for (size_t i = 0; i < h.size(); ++i) {
      const int a = h[i], b = h[(i + 1) % h.size()], c = h[(i + 2) % h.size()];
      CHECK((p[2 * b] - p[2 * a]) * (p[2 * c + 1] - p[2 * a + 1]) -
                (p[2 * b + 1] - p[2 * a + 1]) * (p[2 * c] - p[2 * a]) >
            0);
    }
    CHECK(polygon_area(p, h) > 0);
  }
  // A bow tie is not a simple polygon.
  const std::vector<float> sq = {0, 0, 1, 0, 1, 1, 0, 1};
  CHECK(polygon_area(sq, {0, 1, 2, 3}) == Approx(1.0));
  CHECK(polygon_area(sq, {0, 2, 1, 3}) == 0.0);
  CHECK(polygon_area(sq, {0, 1, 1, 3}) == 0.0);
}

TEST_CASE("tsp: Held-Karp equals the best of all permutations", "[tasks]") {
  PointTask task(PointKind::Tsp);
  Rng rng(22);
  for (int k = 0; k < 40; ++k) {
    const int n = 3 + k % 6;
    const PointExample ex = task.sample(rng, n, Split::Test);
    std::vector<int> perm(size_t(n), 0);
    for (int i = 0; i < n; ++i) perm[size_t(i)] = i;
    double best = std::numeric_limits<double>::infinity();
    do best = std::min(best, tour_length(ex.x, perm));
    while (std::next_permutation(perm.begin() + 1, perm.end()));
    CHECK(tour_length(ex.x, ex.target) == Approx(best).epsilon(1e-9));
    CHECK(ex.target[0] == 0);
    CHECK(std::set<int>(ex.target.begin(), ex.target.end()).size() == size_t(n));
  }
}

TEST_CASE("sort: target is the rank order", "[tasks]") {
  PointTask task(PointKind::Sort);
  Rng rng(23);
  const PointExample ex = task.sample(rng, 9, Split::Train);
  for (int i = 0; i < 9; ++i) {  // element at output i has exactly i smaller inputs
    int smaller = 0;
    for (int j = 0; j < 9; ++j) smaller += ex.x[size_t(j)] < ex.x[size_t(ex.target[size_t(i)])];
    CHECK(smaller == i);
  }
}

TEST_CASE("pointer tasks: bad input gives a clear error", "[tasks]") {
  PointTask hull(PointKind::Hull);
  CHECK_THROWS_WITH(hull.label({0, 0, 1, 1}, 2), Catch::Contains("at least 3 points"));
  CHECK_THROWS_WITH(hull.label({0, 0, 1, 1, NAN, 0}, 3), Catch::Contains("finite"));
  CHECK_THROWS_WITH(make_task(task_for_model("knapsack", "pointer")),
                    Catch::Contains("unknown task"));
  CHECK_THROWS_WITH(make_seq_task("poetry"), Catch::Contains("unknown sequence task"));
  CHECK_THROWS_WITH(make_task("poetry"), Catch::Contains("unknown task"));
  CHECK(make_task("dates")->tgt_vocab() == 3 + 1 + 11);
  CHECK_THROWS_AS(PointTask(PointKind::Tsp).label(std::vector<float>(22, 0.5f), 11), Error);
}
