// A long run's folder outside the checkout (experiments/lib/run-store.mjs): where it lives, its own
// copy of the binary, the checkout's link to it, one sitting at a time, and a detached sitting
// that writes its log there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  checkName,
  cpuName,
  detach,
  keepBinary,
  linkRun,
  lowerGroup,
  lockRun,
  openRun,
  runningPid,
  runsRoot,
} from '../../experiments/lib/run-store.mjs';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-runs-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

test('the runs folder: ATTNLAB_RUNS, else XDG_CACHE_HOME, else ~/.cache', () => {
  assert.equal(runsRoot({ ATTNLAB_RUNS: '/x/runs' }), '/x/runs');
  assert.equal(runsRoot({ XDG_CACHE_HOME: '/y/cache' }), '/y/cache/attnlab/runs');
  assert.equal(runsRoot({}), path.join(os.homedir(), '.cache', 'attnlab', 'runs'));
});

test('a run name is one folder name', () => {
  assert.equal(checkName('translate-de-en-v2'), 'translate-de-en-v2');
  for (const bad of ['', '../up', 'a/b', '.hidden', 'x'.repeat(101), 7])
    assert.throws(() => checkName(bad), /run name/);
});

test('a run keeps its own binary and the checkout links to it', () => {
  const env = { ATTNLAB_RUNS: path.join(tmp, 'runs') };
  const bin = path.join(tmp, 'attn-a');
  writeFileSync(bin, '#!/bin/sh\necho a\n');
  const link = path.join(tmp, 'checkout', 'build', 'translate');
  const r = openRun({ name: 'r1', binary: bin, link, env });
  assert.equal(r.dir, path.join(tmp, 'runs', 'r1'));
  assert.equal(readFileSync(r.attn, 'utf8'), '#!/bin/sh\necho a\n');
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readlinkSync(link), r.dir);
  assert.match(r.binarySha256, /^[0-9a-f]{64}$/);

  // a rebuilt checkout binary does not change the run's copy, unless asked (another CPU)
  writeFileSync(bin, '#!/bin/sh\necho b\n');
  const again = openRun({ name: 'r1', binary: bin, link, env });
  assert.equal(readFileSync(again.attn, 'utf8'), '#!/bin/sh\necho a\n');
  assert.equal(again.binarySha256, r.binarySha256);
  const replaced = openRun({ name: 'r1', binary: bin, link, env, replace: true });
  assert.equal(readFileSync(replaced.attn, 'utf8'), '#!/bin/sh\necho b\n');
  assert.notEqual(replaced.binarySha256, r.binarySha256);

  // a link to another run is moved; a real folder in its place is left alone
  const other = openRun({ name: 'r2', binary: bin, link, env });
  assert.equal(readlinkSync(link), other.dir);
  const real = path.join(tmp, 'checkout', 'build', 'real');
  mkdirSync(real, { recursive: true });
  openRun({ name: 'r3', binary: bin, link: real, env });
  assert.ok(lstatSync(real).isDirectory());
  assert.throws(() => openRun({ name: 'r4', binary: path.join(tmp, 'missing'), env }), /missing: build it first/);
});

test("any folder keeps its own binary: a sweep's --out, whatever the checkout's binary becomes", () => {
  const out = path.join(tmp, 'sweep-out');
  const bin = path.join(tmp, 'attn-s');
  writeFileSync(bin, '#!/bin/sh\necho s1\n');
  const first = keepBinary(out, bin);
  assert.equal(first.attn, path.join(out, 'bin', 'attn'));
  assert.equal(readFileSync(first.attn, 'utf8'), '#!/bin/sh\necho s1\n');
  assert.ok(lstatSync(first.attn).mode & 0o100, 'the copy is executable');
  writeFileSync(bin, '#!/bin/sh\necho s2\n');
  assert.equal(keepBinary(out, bin).binarySha256, first.binarySha256);
  assert.equal(readFileSync(keepBinary(out, bin, { replace: true }).attn, 'utf8'), '#!/bin/sh\necho s2\n');
  assert.throws(() => keepBinary(path.join(tmp, 'other'), path.join(tmp, 'none')), /none is missing/);
});

test("the reproduction's kept results: build/reproduce links to a folder under the cache", () => {
  const dir = path.join(tmp, 'runs', 'reproduce');
  const link = path.join(tmp, 'checkout2', 'build', 'reproduce');
  linkRun(link, dir);
  assert.ok(existsSync(dir));
  assert.equal(readlinkSync(link), dir);
  writeFileSync(path.join(link, 'hull5-seed1.json'), '{}');
  assert.ok(existsSync(path.join(dir, 'hull5-seed1.json')), 'a result written through the link is in the cache');
  // a checkout laid anew links to the same results
  const fresh = path.join(tmp, 'checkout3', 'build', 'reproduce');
  linkRun(fresh, dir);
  assert.ok(existsSync(path.join(fresh, 'hull5-seed1.json')));
  // a real folder there is used as it is
  const real = path.join(tmp, 'checkout4', 'build', 'reproduce');
  mkdirSync(real, { recursive: true });
  linkRun(real, dir);
  assert.ok(lstatSync(real).isDirectory() && !lstatSync(real).isSymbolicLink());
});

test('one sitting at a time: a live holder is named, a stale pid file is taken over', () => {
  const dir = path.join(tmp, 'lock');
  mkdirSync(dir, { recursive: true });
  const release = lockRun(dir);
  assert.equal(runningPid(dir), process.pid);
  assert.throws(() => lockRun(dir), new RegExp(`already training \\(process ${process.pid}\\)`));
  release();
  assert.equal(existsSync(path.join(dir, 'pid')), false);
  assert.equal(runningPid(dir), null);
  // a process that has ended: its pid file does not block the next sitting
  writeFileSync(path.join(dir, 'pid'), '2147483646\n');
  assert.equal(runningPid(dir), null);
  const again = lockRun(dir);
  assert.equal(readFileSync(path.join(dir, 'pid'), 'utf8').trim(), String(process.pid));
  again();
});

test('a detached sitting runs at nice 19 and writes its log in the run folder', async () => {
  const dir = path.join(tmp, 'detached');
  mkdirSync(dir, { recursive: true });
  const script = path.join(tmp, 'sitting.mjs');
  writeFileSync(
    script,
    "import os from 'node:os';\nimport { readFileSync } from 'node:fs';\n" +
      'await new Promise((r) => setTimeout(r, 300));\n' +
      "let group = 'none';\ntry { group = readFileSync('/proc/self/autogroup', 'utf8').trim(); } catch {}\n" +
      'console.log(`group ${group}`);\n' +
      "console.log(`niceness ${os.getPriority()} args ${process.argv.slice(2).join(' ')}`);\n"
  );
  const pid = detach({ dir, script, args: ['--steps', '3'], cwd: tmp });
  assert.ok(Number.isInteger(pid) && pid > 0);
  const log = path.join(dir, 'log.txt');
  for (let i = 0; i < 600 && !/niceness/.test(readFileSync(log, 'utf8')); ++i)
    await new Promise((r) => setTimeout(r, 50));
  const text = readFileSync(log, 'utf8');
  assert.match(text, /^\n== .* nice -n 19 node .*sitting\.mjs --steps 3$/m);
  assert.match(text, new RegExp(`niceness ${Math.min(19, os.getPriority() + 19)} args --steps 3`));
  // its scheduling group yields too, where the kernel groups sessions and lets us say so
  const group = /^group (.*)$/m.exec(text)[1];
  if (
    group !== 'none' &&
    lowerGroup(process.pid, Number(/nice (-?\d+)/.exec(readFileSync('/proc/self/autogroup', 'utf8'))[1]))
  )
    assert.match(group, /nice 19$/);
});

test('each sitting names the CPU it ran on', () => {
  assert.match(cpuName(), /, \d+ cores$/);
});

test('the translator refuses a bad option with one line and exit 1', async () => {
  const script = path.join(
    path.dirname(new URL(import.meta.url).pathname),
    '..',
    '..',
    'experiments',
    'translator.mjs'
  );
  const p = spawn(process.execPath, [script, '--corpus', 'v9', '--out', path.join(tmp, 'bad')], {
    env: { ...process.env, ATTNLAB_RUNS: path.join(tmp, 'runs') },
  });
  let err = '';
  p.stderr.on('data', (d) => (err += d));
  const code = await new Promise((r) => p.on('close', r));
  assert.equal(code, 1);
  assert.equal(err.trim().split('\n').length, 1, err);
  assert.match(err, /--corpus v9/);
});
