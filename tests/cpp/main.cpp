// Catch2 (v2) entry point for the native and the WebAssembly test executables. Catch2 v2 has no
// skip of its own: a case that calls ATTNLAB_SKIP (skip.hpp) is recorded here, and a run in
// which every started case skipped (and none failed) exits with kSkipExitCode. Otherwise the exit
// status is the number of failed test cases (Catch2's own is its failed assertions), at most 255,
// and kSkipExitCode + 1 for kSkipExitCode: scripts/lib/catch-shards.mjs (expectedExit) holds a
// share's exit to its cases' reports.
#define CATCH_CONFIG_RUNNER
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>
#include <string>

#include "skip.hpp"

namespace {

int g_started = 0;
int g_failed_cases = 0;
std::set<std::string> g_skipped;

struct CaseCounter : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(Catch::TestCaseInfo const&) override { ++g_started; }
  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    if (stats.totals.testCases.failed > 0) ++g_failed_cases;
    TestEventListenerBase::testCaseEnded(stats);
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(CaseCounter)

void attnlab::test::skip(const char* reason) {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  if (g_skipped.insert(name).second) {
    std::printf("attnlab: skipped \"%s\": %s\n", name.c_str(), reason);
    // also in the report (a <Warning> of the case in XML), which a runner reads from a file
    WARN("attnlab: skipped: " << reason);
  }
}

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv)) return rc;
  const int rc = session.run();
  const Catch::ConfigData& cfg = session.configData();
  if (cfg.listTests || cfg.listTestNamesOnly || cfg.listTags || cfg.listReporters)
    return rc;  // a listing: Catch2 exits with the number listed
  // A spec that names no case is a registration defect (CTest splits a name at ';'), not a pass.
  if (g_started == 0) {
    std::printf("attnlab: no test case matches this run's test spec\n");
    return 1;
  }
  // Catch2 failed the run without a failed case (an error of its own): still a failure.
  const int failed = std::min(g_failed_cases > 0 ? g_failed_cases : (rc != 0 ? 1 : 0), 255);
  if (failed == 0 && int(g_skipped.size()) == g_started) {
    std::printf("attnlab: all %d test case(s) skipped\n", g_started);
    return attnlab::test::kSkipExitCode;
  }
  if (!g_skipped.empty()) std::printf("attnlab: %zu test case(s) skipped\n", g_skipped.size());
  // A failure count that happens to equal the skip code must still read as a failure.
  return failed == attnlab::test::kSkipExitCode ? failed + 1 : failed;
}
