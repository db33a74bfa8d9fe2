// A test case that cannot run here (a [cuda] case without a GPU) says so with
// ATTNLAB_SKIP(reason), which records the skip and returns from the test case. When every test
// case a run started skipped and none failed, main.cpp exits with kSkipExitCode, which CTest
// reports as skipped, not passed (SKIP_RETURN_CODE, tests/cpp/catch.cmake). CTest runs one test
// case per process, so a skipped case is counted as exactly one skip.
#pragma once

namespace attnlab::test {

constexpr int kSkipExitCode = 77;  // the autotools convention for "skipped"

// Records that the running test case skipped, and prints the reason. Defined in main.cpp.
void skip(const char* reason);

}  // namespace attnlab::test

#define ATTNLAB_SKIP(reason)       \
  do {                             \
    ::attnlab::test::skip(reason); \
    return;                        \
  } while (0)
