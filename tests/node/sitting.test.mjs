// experiments/lib/translate-run.mjs: a sitting is in wall.json from its start (code null), so a
// sitting killed with its machine still counts; its close fills in the last checkpoint's step,
// the wall time and the exit code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trainSitting } from '../../experiments/lib/translate-run.mjs';

test('a sitting is recorded when it starts and completed when it ends', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-sitting-'));
  try {
    const run = path.join(dir, 'run.safetensors');
    mkdirSync(`${run}.ckpt`);
    writeFileSync(path.join(`${run}.ckpt`, 'step-000000005.safetensors'), '');
    // a stand-in attn: reads wall.json as it is while training, then saves step 10
    const attn = path.join(dir, 'attn');
    writeFileSync(
      attn,
      `#!/bin/sh\ncp "${dir}/wall.json" "${dir}/seen.json"\n: > "${run}.ckpt/step-000000010.safetensors"\nexit 0\n`
    );
    chmodSync(attn, 0o755);
    const code = await trainSitting({ attn, cwd: dir, argv: [], run, dir, threads: 1, meta: { cpu: 'test' } });
    assert.equal(code, 0);
    const seen = JSON.parse(readFileSync(path.join(dir, 'seen.json'), 'utf8'));
    assert.equal(seen.runs.length, 1);
    assert.equal(seen.runs[0].code, null, 'running: no exit code yet');
    assert.equal(seen.runs[0].from, 5);
    const wall = JSON.parse(readFileSync(path.join(dir, 'wall.json'), 'utf8'));
    assert.equal(wall.runs.length, 1);
    assert.deepEqual(
      { from: wall.runs[0].from, to: wall.runs[0].to, code: wall.runs[0].code, cpu: wall.runs[0].cpu },
      { from: 5, to: 10, code: 0, cpu: 'test' }
    );
    assert.ok(wall.seconds > 0 && wall.seconds === wall.runs[0].seconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A CPU budget stops a sitting that computes, not one that waits: a stand-in that spins gets
// SIGINT once it has used its CPU second (and exits 130 as attn does); one that sleeps 3 s on a
// 1-s CPU budget runs to its end. Both sittings' CPU time is in wall.json.
test('a CPU-time budget stops a sitting by its CPU time, not its wall time', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-sitting-'));
  try {
    const run = path.join(dir, 'run.safetensors');
    const stand = (name, body) => {
      const f = path.join(dir, name);
      writeFileSync(f, `#!/bin/sh\n${body}\n`);
      chmodSync(f, 0o755);
      return f;
    };
    const spin = stand('spin', 'trap "exit 130" INT\nwhile :; do :; done');
    const t0 = Date.now();
    const code = await trainSitting({ attn: spin, cwd: dir, argv: [], run, dir, threads: 1, cpuSeconds: 1 });
    assert.equal(code, 130, 'stopped with SIGINT');
    let wall = JSON.parse(readFileSync(path.join(dir, 'wall.json'), 'utf8'));
    assert.ok(wall.runs[0].cpuSeconds >= 1, `spent its CPU second (${wall.runs[0].cpuSeconds})`);
    assert.ok(Date.now() - t0 < 60000);
    const sleeper = stand('sleeper', 'sleep 3');
    assert.equal(await trainSitting({ attn: sleeper, cwd: dir, argv: [], run, dir, threads: 1, cpuSeconds: 1 }), 0);
    wall = JSON.parse(readFileSync(path.join(dir, 'wall.json'), 'utf8'));
    assert.equal(wall.runs.length, 2);
    assert.ok(wall.runs[1].seconds >= 3 && wall.runs[1].cpuSeconds < 1, JSON.stringify(wall.runs[1]));
    assert.ok(Math.abs(wall.cpuSeconds - wall.runs[0].cpuSeconds - wall.runs[1].cpuSeconds) < 1e-9);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
