// Hidden cases ([.] tag: no spec but their own runs them) for scripts/lib/catch-shards.mjs's
// test (tests/node/catch-shards.test.mjs): one passes, one skips, one ends its process.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "skip.hpp"

TEST_CASE("runner probe: a case that passes", "[.runner-probe]") { CHECK(1 + 1 == 2); }

TEST_CASE("runner probe: a case that skips", "[.runner-probe]") {
  ATTNLAB_SKIP("a probe of the skip count");
}

TEST_CASE("runner probe: a case that ends its process", "[.runner-probe]") { std::abort(); }

TEST_CASE("runner probe: a case that fails, with a comma, [brackets] and a \\ backslash",
          "[.runner-probe]") {
  CHECK(1 + 1 == 3);
}
