// The BPE vocabulary: merges worked out by hand on a tiny corpus, round trips on mixed-script
// text (unseen characters through byte tokens), the size limit, determinism and the JSON form.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "data/bpe.hpp"

using namespace attnlab;

namespace {

const std::vector<std::string> kCorpus = {
    "Die Katze schläft auf der Matte.",
    "The cat sleeps on the mat.",
    "Der Hund schläft nicht, er bellt laut!",
    "The dog does not sleep, it barks loudly!",
    "Y dijo Dios: Sea la luz; y fué la luz.",
    "God said, “Let there be light,” and there was light.",
    "Die Katzen und die Hunde spielen.",
    "The cats and the dogs are playing.",
};

}  // namespace

TEST_CASE("bpe: merges on a tiny corpus follow the pair counts", "[train][bpe]") {
  // Words: ▁ab x3, ▁ac x1. Pairs: (▁,a) 4, (a,b) 3, (a,c) 1 -> merge ▁a; then (▁a,b) 3 ->
  // merge ▁ab; (▁a,c) 1 is below min_count 2, so training stops with two merges.
  const Bpe bpe = Bpe::train({"ab ab", "ab ac"}, 1000, 2);
  REQUIRE(bpe.num_merges() == 2);
  const auto ids = bpe.encode("ab ac");
  REQUIRE(ids.size() == 3);
  CHECK(bpe.token(ids[0]) ==
        "\xE2\x96\x81"
        "ab");
  CHECK(bpe.token(ids[1]) ==
        "\xE2\x96\x81"
        "a");
  CHECK(bpe.token(ids[2]) == "c");
  CHECK(bpe.decode(ids) == "ab ac");
}

TEST_CASE("bpe: encode/decode round trips, unseen characters included", "[train][bpe]") {
  const Bpe bpe = Bpe::train(kCorpus, 400, 2);
  CHECK(bpe.size() <= 400);
  CHECK(bpe.num_merges() > 10);
  size_t chars = 0, tokens = 0;
  for (const auto& s : kCorpus) {
    const auto ids = bpe.encode(s);
    CHECK(bpe.decode(ids) == s);
    chars += s.size();
    tokens += ids.size();
    for (int32_t id : ids) CHECK(id >= 4);  // no specials, no <unk>
  }
  CHECK(tokens * 3 < chars * 2);  // merges compress the training text
  // Characters never seen (CJK, emoji) come back exactly through byte tokens; whitespace runs
  // collapse to one space; a byte that is not UTF-8 comes back as U+FFFD.
  const std::string odd = "  Katze 猫\tand  🐈 \xFF end ";
  CHECK(bpe.decode(bpe.encode(odd)) == "Katze 猫 and 🐈 \xEF\xBF\xBD end");
  CHECK(bpe.decode({Bpe::kBos}) == "");
  CHECK_THROWS_AS(bpe.decode({bpe.size()}), Error);
}

TEST_CASE("bpe: training is deterministic and JSON restores the same vocabulary", "[train][bpe]") {
  const Bpe a = Bpe::train(kCorpus, 350, 2), b = Bpe::train(kCorpus, 350, 2);
  CHECK(a.to_json() == b.to_json());
  const Bpe c = Bpe::from_json(a.to_json());
  REQUIRE(c.size() == a.size());
  for (const auto& s : kCorpus) CHECK(c.encode(s) == a.encode(s));
  CHECK(c.to_json() == a.to_json());
  CHECK_THROWS_AS(Bpe::from_json("{\"type\":\"wordpiece\"}"), Error);
  CHECK_THROWS_AS(Bpe::from_json("not json"), Error);
  CHECK_THROWS_AS(Bpe::train(kCorpus, 10, 2), Error);  // below the base alphabet
}

TEST_CASE("bpe: any sequence of byte tokens decodes to valid UTF-8", "[train][bpe]") {
  const Bpe bpe = Bpe::train(kCorpus, 350, 2);
  auto bytes = [](std::initializer_list<int> b) {
    std::vector<int32_t> ids;
    for (int x : b) ids.push_back(4 + x);  // byte tokens follow the four specials
    return ids;
  };
  const std::string r = "\xEF\xBF\xBD";
  CHECK(bpe.decode(bytes({0xC3, 0xA4})) == "\xC3\xA4");                 // ä, well formed
  CHECK(bpe.decode(bytes({0xF7})) == r);                                // no such lead byte
  CHECK(bpe.decode(bytes({0xA4, 0x41})) == r + "A");                    // stray continuation
  CHECK(bpe.decode(bytes({0xE2, 0x82})) == r + r);                      // cut short
  CHECK(bpe.decode(bytes({0xC0, 0xAF})) == r + r);                      // overlong '/'
  CHECK(bpe.decode(bytes({0xED, 0xA0, 0x80})) == r + r + r);            // a surrogate
  CHECK(bpe.decode(bytes({0xF4, 0x90, 0x80, 0x80})) == r + r + r + r);  // past U+10FFFF
  CHECK(Bpe::valid_utf8("\xF0\x9F\x90\x88 ok") == "\xF0\x9F\x90\x88 ok");
}
