// The closing line of `npm test` sums what each suite's own summary says (scripts/lib/counts.mjs).
// Here real ctest and real node --test run small suites with known outcomes: a skipped test is
// counted as skipped, never as passed, and a failure is never lost; a demo's placeholder is a
// skip here and a failure in CI (tests/unavailable.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ctestCounts, tapCounts } from '../../scripts/lib/counts.mjs';

function tmp(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'attnlab-counts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('ctest: passed, failed, skipped (SKIP_RETURN_CODE) and disabled tests are told apart', (t) => {
  const dir = tmp(t);
  writeFileSync(
    path.join(dir, 'CMakeLists.txt'),
    `cmake_minimum_required(VERSION 3.20)
project(counts NONE)
enable_testing()
foreach(n pass_a pass_b)
  add_test(NAME \${n} COMMAND \${CMAKE_COMMAND} -E true)
endforeach()
foreach(n skip_a skip_b skip_c)
  add_test(NAME \${n} COMMAND \${CMAKE_COMMAND} -E env sh -c "exit 77")
  set_tests_properties(\${n} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME fail_a COMMAND \${CMAKE_COMMAND} -E false)
add_test(NAME off_a COMMAND \${CMAKE_COMMAND} -E true)
set_tests_properties(off_a PROPERTIES DISABLED ON)
`
  );
  const b = path.join(dir, 'b');
  assert.equal(spawnSync('cmake', ['-S', dir, '-B', b], { encoding: 'utf8' }).status, 0);
  const r = spawnSync('ctest', ['--test-dir', b], { encoding: 'utf8' });
  assert.deepEqual(ctestCounts(r.stdout + r.stderr, r.status), { passed: 2, failed: 1, skipped: 4 });
  // the same suite with its failure left out: a clean exit, nothing failed
  const ok = spawnSync('ctest', ['--test-dir', b, '-E', 'fail_'], { encoding: 'utf8' });
  assert.equal(ok.status, 0);
  assert.deepEqual(ctestCounts(ok.stdout + ok.stderr, ok.status), { passed: 2, failed: 0, skipped: 4 });
  assert.throws(() => ctestCounts('no summary here', 8), /printed no summary \(exit 8\)/);
});

test('node --test: skip, todo and a failure in the TAP summary', (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'sample.test.mjs');
  writeFileSync(
    file,
    `import { test } from 'node:test';
test('passes', () => {});
test('passes too', () => {});
test('skips itself', (t) => { t.skip('not here'); });
test('skipped by option', { skip: 'not here' }, () => {});
test('todo', { todo: true }, () => {});
test('fails', () => { throw new Error('boom'); });
`
  );
  // a run of its own, not a child of this test run (node marks those with NODE_TEST_CONTEXT)
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], { encoding: 'utf8', env });
  assert.notEqual(r.status, 0);
  assert.deepEqual(tapCounts(r.stdout, r.status), { passed: 2, failed: 1, skipped: 3 });
  // a process that failed without a failing test in its summary is one failure
  assert.deepEqual(tapCounts('# pass 3\n# fail 0\n', 1), { passed: 3, failed: 1, skipped: 0 });
  assert.throws(() => tapCounts('', 1), /printed no summary/);
});

test('a demo that falls back to its placeholder: skipped outside CI, a failure under CI=true', (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'fallback.test.mjs');
  const helper = fileURLToPath(new URL('../unavailable.mjs', import.meta.url));
  writeFileSync(
    file,
    `import { test } from 'node:test';
import { unavailable } from ${JSON.stringify(helper)};
test('needs a demo', (t) => { if (true) return unavailable(t, 'placeholder shown'); throw new Error('ran on'); });
`
  );
  const { NODE_TEST_CONTEXT, CI, ...env } = process.env;
  const local = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], { encoding: 'utf8', env });
  assert.deepEqual(tapCounts(local.stdout, local.status), { passed: 0, failed: 0, skipped: 1 });
  assert.match(local.stdout, /# SKIP placeholder shown/);
  const ci = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], {
    encoding: 'utf8',
    env: { ...env, CI: 'true' },
  });
  assert.deepEqual(tapCounts(ci.stdout, ci.status), { passed: 0, failed: 1, skipped: 0 });
  assert.match(ci.stdout, /placeholder shown \(CI=true: every demo ships/);
});
