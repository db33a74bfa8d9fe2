// npm run reproduce in sittings (experiments/reproduce.mjs): a run killed outright after its first
// saved state (its whole process group, SIGKILL, as a machine taken away does) continues from that
// state when the same command runs again, on the binary it started with; stopped by SIGTERM, the
// command has attn save the step it reached and exits 130 with one line, and the next sitting
// continues from that step; the result lists the three sittings. The runs folder is a temporary one (ATTNLAB_RUNS); the checkout's
// build/reproduce link, which the command points there meanwhile, is put back afterwards.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { linkRun } from '../../experiments/lib/run-store.mjs';
import { unavailable } from '../unavailable.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const attn = path.join(root, 'build', 'native', 'attn');
const link = path.join(root, 'build', 'reproduce');
const linked = existsSync(link) && lstatSync(link).isSymbolicLink() ? readlinkSync(link) : null;
const runs = mkdtempSync(path.join(os.tmpdir(), 'attnlab-sittings-'));
after(() => {
  if (linked) linkRun(link, linked);
  else if (existsSync(link) || lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(link);
  rmSync(runs, { recursive: true, force: true });
});

test('a reproduction run killed with its process group continues from its newest state, and lists its sittings', async (t) => {
  if (!existsSync(attn)) return unavailable(t, 'build/native/attn is missing (npm run build:engine)');
  if (existsSync(link) && !linked)
    return unavailable(t, 'build/reproduce is a real folder here, which the run would write into');
  const env = { ...process.env, ATTNLAB_RUNS: runs, ATTNLAB_REPRODUCE_SAVE_EVERY: '100' };
  const argv = [path.join(root, 'experiments', 'reproduce.mjs'), '--only', 'dates', '--seeds', '1'];
  const keep = path.join(runs, 'reproduce');
  const states = path.join(keep, 'dates-seed1.safetensors.ckpt');
  const first = spawn(process.execPath, argv, { cwd: root, env, detached: true, stdio: 'ignore' });
  const closed = new Promise((resolve) => first.on('close', resolve));
  for (let i = 0; i < 1200; ++i) {
    if (existsSync(states) && readdirSync(states).some((f) => /^step-\d+\.safetensors$/.test(f))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  process.kill(-first.pid, 'SIGKILL');
  await closed;
  assert.ok(!existsSync(path.join(keep, 'dates-seed1.json')), 'the first sitting was killed before the run ended');
  const pending = JSON.parse(readFileSync(path.join(keep, 'dates-seed1.run', 'run.json'), 'utf8'));
  assert.deepEqual(
    pending.sittings.map((x) => [x.from, x.to]),
    [[0, null]]
  );

  // the second sitting: SIGTERM to the command alone once it has saved a newer state
  const newest = () =>
    Math.max(0, ...readdirSync(states).map((f) => Number(/^step-(\d+)\.safetensors$/.exec(f)?.[1] ?? 0)));
  const killedAt = newest();
  const second = spawn(process.execPath, argv, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  second.stderr.on('data', (d) => (err += d));
  const ended = new Promise((resolve) => second.on('close', resolve));
  for (let i = 0; i < 1200 && newest() <= killedAt; ++i) await new Promise((r) => setTimeout(r, 50));
  second.kill('SIGTERM');
  assert.equal(await ended, 130, err);
  assert.match(err, /step-0*(\d+)\.safetensors: continuing that run/);
  assert.match(err, /^reproduce: SIGTERM: .* exited 130$/m);

  const third = spawnSync(process.execPath, argv, { cwd: root, env, encoding: 'utf8' });
  assert.equal(third.status, 0, third.stderr);
  assert.match(third.stderr, /dates-seed1\.safetensors: continuing that run/);
  const res = JSON.parse(readFileSync(path.join(keep, 'dates-seed1.json'), 'utf8'));
  assert.equal(res.steps, 600);
  assert.equal(res.commit, pending.commit);
  const [a, b, c] = res.sittings;
  assert.equal(res.sittings.length, 3);
  assert.equal(a.from, 0);
  assert.ok(a.to >= 100 && a.to % 100 === 0 && a.to < 600, `first sitting ended at ${a.to}`);
  assert.equal(a.seconds, null);
  assert.equal(b.from, a.to);
  assert.ok(b.to > a.to && b.to < 600 && b.seconds > 0, `second sitting ${JSON.stringify(b)}`);
  assert.deepEqual([c.from, c.to], [b.to, 600]);
  assert.ok(c.seconds > 0);
  assert.ok(res.train_seconds > 0);
  // a finished run leaves its result and checkpoint, not its states or binary
  assert.ok(!existsSync(states) && !existsSync(path.join(keep, 'dates-seed1.run')));
  assert.ok(JSON.parse(readFileSync(path.join(keep, 'results.json'), 'utf8')).dates);
});
