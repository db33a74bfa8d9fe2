// The test counts of one suite's output, as { passed, failed, skipped }: CTest's summary and
// node --test's TAP summary (scripts/test.mjs adds them up; tests/node/counts.test.mjs runs real
// ctest and node --test to check them). code: the process's exit status; a non-zero status with
// no failure in the summary counts as one failure.

// CTest counts a skipped test (SKIP_RETURN_CODE, tests/cpp/catch.cmake) among those that passed
// and lists it under "The following tests did not run:" as "(Skipped)"; a disabled test is
// listed there too, but is not in the total.
export function ctestCounts(out, code, what = 'ctest') {
  const m = out.match(/(\d+)% tests passed, (\d+) tests? failed out of (\d+)/);
  if (!m) throw new Error(`${what} printed no summary (exit ${code})`);
  const failed = Number(m[2]),
    total = Number(m[3]);
  const notRun = out.split('The following tests did not run:')[1]?.split(/\n\s*\n/)[0] ?? '';
  const skipped = (notRun.match(/^\s*\d+ - .* \(Skipped\)\s*$/gm) ?? []).length;
  const disabled = (notRun.match(/^\s*\d+ - .* \(Disabled\)\s*$/gm) ?? []).length;
  return {
    passed: total - failed - skipped,
    failed: failed + (code !== 0 && failed === 0 ? 1 : 0),
    skipped: skipped + disabled,
  };
}

// node's TAP summary: "# pass", "# fail", "# cancelled" (a test stopped by a failing parent or
// the timeout: a failure), "# skipped" and "# todo" (neither run nor judged: skipped).
export function tapCounts(out, code, what = 'node --test') {
  const n = (k) => Number(out.match(new RegExp(`^# ${k} (\\d+)`, 'm'))?.[1] ?? NaN);
  const [pass, fail] = [n('pass'), n('fail')];
  if (Number.isNaN(pass) || Number.isNaN(fail)) throw new Error(`${what} printed no summary (exit ${code})`);
  const failed = fail + (n('cancelled') || 0);
  return {
    passed: pass,
    failed: failed + (code !== 0 && failed === 0 ? 1 : 0),
    skipped: (n('skipped') || 0) + (n('todo') || 0),
  };
}

// The Catch2 test cases a source declares with `tag` among their tags, hidden ones ([.]) left out:
// TEST_CASE("name", "[a][b]") and SCENARIO / TEST_CASE_METHOD alike, the name and tags written as
// string literals (across lines too). scripts/test.mjs counts the [cuda] cases of
// tests/cpp/test_cuda*.cpp as skipped where the CUDA build cannot be made (no nvcc).
export function taggedCases(source, tag) {
  const re =
    /\b(?:TEST_CASE|SCENARIO)\s*\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([^"]*)"|\bTEST_CASE_METHOD\s*\(\s*\w+\s*,\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([^"]*)"/g;
  const names = [];
  for (const m of source.replace(/\/\/[^\n]*/g, '').matchAll(re)) {
    const [name, tags] = m[1] !== undefined ? [m[1], m[2]] : [m[3], m[4]];
    const list = tags.match(/\[[^\]]*\]/g) ?? [];
    if (list.includes(`[${tag}]`) && !list.some((t) => t === '[.]' || t.startsWith('[.'))) names.push(name);
  }
  return names;
}

// A stage that could not run here, counted: each of its cases skipped, none passed or failed.
export function skippedCounts(names) {
  return { passed: 0, failed: 0, skipped: names.length };
}
