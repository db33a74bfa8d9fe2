// How `npm test` accounts for what it could not see run (scripts/lib/catch-shards.mjs,
// scripts/lib/counts.mjs), on made-up reports and sources and a stand-in test program, no build:
//   - a Catch2 share whose every case reported must exit with its failed-case count (77 when
//     every case skipped, as tests/cpp/main.cpp exits); any other exit is one more failure;
//   - without nvcc, each [cuda] case of tests/cpp/test_cuda*.cpp counts as skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  catchShards,
  expectedExit,
  parseXmlReport,
  shareExitProblem,
  SKIP_EXIT_CODE,
} from '../../scripts/lib/catch-shards.mjs';
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

// A stand-in for a test program (no build): lists its cases, writes Catch2's XML report for the
// cases of its input file, and exits as FAKE_EXIT says: "cases" (main.cpp's status for them),
// "crash" (134 after the last report) or a number.
const FAKE = String.raw`
const fs = require('node:fs');
const CASES = { 'a passes': 'pass', 'b fails': 'fail', 'c skips': 'skip' };
const args = process.argv.slice(2);
if (args.includes('--list-test-names-only')) {
  const names = Object.keys(CASES).filter((n) => !process.env.FAKE_ONLY || process.env.FAKE_ONLY.split('|').includes(n));
  process.stdout.write(names.join('\n') + '\n');
  process.exit(names.length);
}
const names = fs.readFileSync(args[args.indexOf('-f') + 1], 'utf8').split('\n').filter(Boolean);
const out = args.indexOf('-o');
const body = names.map((n) => {
  const how = CASES[n];
  const warn = how === 'skip' ? '<Warning>attnlab: skipped: not here</Warning>' : '';
  return '<TestCase name="' + n + '">' + warn + '<OverallResult success="' + (how !== 'fail') + '" durationInSeconds="0.01"/></TestCase>';
});
if (out >= 0) fs.writeFileSync(args[out + 1], '<Catch name="t"><Group name="t">' + body.join('') + '</Group></Catch>');
const failed = names.filter((n) => CASES[n] === 'fail').length;
const skipped = names.filter((n) => CASES[n] === 'skip').length;
const mode = process.env.FAKE_EXIT || 'cases';
if (mode === 'crash') process.exit(134);
if (mode !== 'cases') process.exit(Number(mode));
process.exit(failed === 0 && skipped === names.length ? 77 : failed);
`;

test('catchShards counts a share that exits wrongly after its last report as one more failure', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'attnlab-accounting-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'attnlab_tests.cjs'), FAKE);
  writeFileSync(
    path.join(dir, 'CMakeCache.txt'),
    `ATTNLAB_TEST_SPEC:STRING=\nCMAKE_CROSSCOMPILING_EMULATOR:STRING=${process.execPath}\n`
  );
  const quiet = t.mock.method(console, 'log', () => {});
  const run = (env) => catchShards(dir, { jobs: 1, shares: 1, spec: '', env: { ...process.env, ...env } });
  assert.deepEqual(await run({ FAKE_EXIT: 'cases' }), { passed: 1, failed: 1, skipped: 1 });
  assert.deepEqual(await run({ FAKE_EXIT: 'crash' }), { passed: 1, failed: 2, skipped: 1 }, 'an abort at exit');
  assert.deepEqual(
    await run({ FAKE_EXIT: '3' }),
    { passed: 1, failed: 2, skipped: 1 },
    'an exit that is not its count'
  );
  assert.deepEqual(
    await run({ FAKE_EXIT: 'cases', FAKE_ONLY: 'c skips' }),
    { passed: 0, failed: 0, skipped: 1 },
    'every case skipped: exit 77'
  );
  assert.ok(
    quiet.mock.calls.some((c) => /FAILED "<share \d+ exit>": its process exited with 134/.test(c.arguments[0]))
  );
});
