// `npm test` runs the WebAssembly Catch2 suites in shards (scripts/lib/catch-shards.mjs) and
// counts each case from Catch2's XML report. Here the real wasm test module runs the hidden probe
// cases of tests/cpp/test_runner_probe.cpp: one passes, one skips, one fails (its name holds the
// characters Catch2's input files must escape) and one aborts its process; every case is counted
// once, the abort takes only its own case, and the skip is not a pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { catchShards, parseXmlReport, balance, escapeName } from '../../scripts/lib/catch-shards.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const wasm = path.join(root, 'build', 'wasm');

test('the probe cases in one share: passed 1, failed 2, skipped 1, whatever order they run in', async (t) => {
  if (!existsSync(path.join(wasm, 'attnlab_tests.cjs'))) return t.skip('build/wasm has no test module');
  for (const jobs of [1, 2]) {
    const counts = await catchShards(wasm, {
      jobs,
      shares: jobs,
      spec: '[runner-probe]',
      env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
    });
    assert.deepEqual(counts, { passed: 1, failed: 2, skipped: 1 }, `jobs ${jobs}`);
  }
});

test('an XML report cut short by a dying process: the started case has no result', () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Catch name="attnlab_tests">
  <Group name="attnlab_tests">
    <TestCase name="a &amp; b, [c]" tags="[x]" filename="f.cpp" line="1">
      <OverallResult success="true" durationInSeconds="0.5"/>
    </TestCase>
    <TestCase name="skips" tags="[x]" filename="f.cpp" line="2">
      <Warning>
        attnlab: skipped: no threads
      </Warning>
      <OverallResult success="true" durationInSeconds="0.01"/>
    </TestCase>
    <TestCase name="fails" tags="[x]" filename="f.cpp" line="3">
      <OverallResult success="false" durationInSeconds="0.2"/>
    </TestCase>
    <TestCase name="dies" tags="[x]" filename="f.cpp" line="4">
`;
  const { started, results } = parseXmlReport(xml);
  assert.deepEqual(started, ['a & b, [c]', 'skips', 'fails', 'dies']);
  assert.deepEqual(results.get('a & b, [c]'), { success: true, seconds: 0.5, skipped: false });
  assert.equal(results.get('skips').skipped, true);
  assert.equal(results.get('fails').success, false);
  assert.equal(results.has('dies'), false);
});

test('shares: longest first, every case once; names escaped for Catch2 input files', () => {
  const names = ['a', 'b', 'c', 'd', 'e'];
  const shares = balance(names, { a: 10, b: 1, c: 1, d: 8, e: 2 }, 2);
  assert.deepEqual(
    shares.map((s) => s.names.sort()),
    [
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]
  );
  assert.deepEqual(
    shares.map((s) => s.load),
    [11, 11],
    'the longest case first, each next one to the lighter share'
  );
  assert.deepEqual(shares.flatMap((s) => s.names).sort(), names, 'each case in exactly one share');
  assert.equal(balance(['x'], {}, 4).length, 1);
  assert.equal(escapeName('a, [b] \\ "c"'), 'a\\, \\[b\\] \\\\ \\"c\\"');
});
