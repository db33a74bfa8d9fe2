// How `npm test` accounts for what it could not see run (scripts/lib/catch-shards.mjs,
// scripts/lib/counts.mjs), as pure functions on made-up reports and sources, no build:
//   - a Catch2 share whose every case reported must exit with its failed-case count (77 when
//     every case skipped, as tests/cpp/main.cpp exits); any other exit is one more failure;
//   - without nvcc, each [cuda] case of tests/cpp/test_cuda*.cpp counts as skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectedExit, parseXmlReport, shareExitProblem, SKIP_EXIT_CODE } from '../../scripts/lib/catch-shards.mjs';
import { skippedCounts, taggedCases } from '../../scripts/lib/counts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// A Catch2 XML report of cases given as [name, 'pass' | 'fail' | 'skip' | 'dies'].
function report(cases) {
  const body = cases
    .map(([name, how]) => {
      if (how === 'dies') return `<TestCase name="${name}">`;
      const warn = how === 'skip' ? '<Warning>attnlab: skipped: no device</Warning>' : '';
      return `<TestCase name="${name}">${warn}<OverallResult success="${how !== 'fail'}" durationInSeconds="0.1"/></TestCase>`;
    })
    .join('\n');
  return parseXmlReport(`<Catch name="t"><Group name="t">\n${body}`);
}
const judge = (code, cases, left = 0, timedOut = false) => {
  const { started, results } = report(cases);
  return shareExitProblem({ code, timedOut }, started, results, left);
};

test("main.cpp's exit status: failed cases, 77 when all skipped, 78 for 77 failures, at most 255", () => {
  assert.equal(expectedExit({ started: 3, failed: 0, skipped: 0 }), 0);
  assert.equal(expectedExit({ started: 3, failed: 2, skipped: 1 }), 2);
  assert.equal(expectedExit({ started: 2, failed: 0, skipped: 2 }), SKIP_EXIT_CODE);
  assert.equal(expectedExit({ started: 2, failed: 0, skipped: 1 }), 0);
  assert.equal(expectedExit({ started: 80, failed: 77, skipped: 0 }), 78);
  assert.equal(expectedExit({ started: 300, failed: 300, skipped: 0 }), 255);
  assert.equal(expectedExit({ started: 0, failed: 0, skipped: 0 }), 1);
});

test('a share that exits non-zero after its last case reported fails unless the exit is its failed-case count', () => {
  const ok = [
    ['a', 'pass'],
    ['b', 'pass'],
  ];
  assert.equal(judge(0, ok), null);
  assert.match(judge(1, ok), /exited with 1 after its last case reported \(0 failed case\(s\): exit 0 expected\)/);
  assert.match(judge(134, ok), /exited with 134/, 'an abort at exit, after every case passed');
  assert.match(judge(null, ok), /exited with null/, 'killed by a signal');
  const twoFailed = [
    ['a', 'fail'],
    ['b', 'pass'],
    ['c', 'fail'],
  ];
  assert.equal(judge(2, twoFailed), null);
  assert.match(judge(3, twoFailed), /2 failed case\(s\): exit 2 expected/);
  assert.equal(judge(0, twoFailed), null, 'a zero exit hides nothing: each failed case counts anyway');
  const skips = [
    ['a', 'skip'],
    ['b', 'skip'],
  ];
  assert.equal(judge(SKIP_EXIT_CODE, skips), null);
  assert.match(judge(1, skips), /exit 77 expected/);
  assert.equal(judge(0, [...skips, ['c', 'pass']]), null);
});

test('a share whose process died or hung inside a case, or never reached some, is not judged by its exit', () => {
  assert.equal(
    judge(134, [
      ['a', 'pass'],
      ['b', 'dies'],
    ]),
    null,
    'the case it died in fails on its own'
  );
  assert.equal(judge(134, [['a', 'pass']], 2), null, 'the cases left run in a new share');
  assert.equal(judge(124, [['a', 'pass']], 0, true), null, 'a timeout');
  assert.equal(judge(1, []), null, 'nothing started: that failure is counted elsewhere');
});

test('the [cuda] cases are read from their sources: multi-line names, several tags, hidden and other cases left out', () => {
  const src = `
TEST_CASE("cuda: one", "[cuda]") {}
TEST_CASE("cuda: a name with \\"quotes\\", long enough to wrap",
          "[cuda]") {}
TEST_CASE("cuda: nccl", "[cuda][nccl]") {}
// TEST_CASE("commented out", "[cuda]") {}
TEST_CASE("cpu only", "[kernels]") {}
TEST_CASE("hidden", "[.][cuda]") {}
TEST_CASE("hidden by name", "[.probe][cuda]") {}
TEST_CASE_METHOD(Fixture, "cuda: with a fixture", "[cuda]") {}
SCENARIO("cuda: a scenario", "[cuda]") {}
TEST_CASE("cudax", "[cudax]") {}
`;
  assert.deepEqual(taggedCases(src, 'cuda'), [
    'cuda: one',
    'cuda: a name with \\"quotes\\", long enough to wrap',
    'cuda: nccl',
    'cuda: with a fixture',
    'cuda: a scenario',
  ]);
  assert.deepEqual(skippedCounts(['x', 'y']), { passed: 0, failed: 0, skipped: 2 });
});

test('every TEST_CASE of tests/cpp/test_cuda*.cpp is a [cuda] case the count finds', () => {
  const dir = path.join(root, 'tests', 'cpp');
  const files = readdirSync(dir).filter((f) => /^test_cuda.*\.cpp$/.test(f));
  assert.ok(files.length > 0);
  let declared = 0,
    found = 0;
  for (const f of files) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    declared += (text.match(/^\s*TEST_CASE\s*\(/gm) ?? []).length;
    found += taggedCases(text, 'cuda').length;
  }
  assert.equal(found, declared);
  assert.ok(found >= 10);
});
