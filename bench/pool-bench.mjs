// Does a second thread ever cost attnlab speed? Native 1 thread vs 2 threads, quiet and beside
// each of three neighbours, on the rows that issue 29 found slower at 2 threads:
//   gemm 256×128×128 A·Bᵀ and 512³ A·Bᵀ (attnlab_bench, GFLOP/s; PyTorch + OpenBLAS in the same
//   slot with --torch), and the Transformer M training step (attn bench --config M, ms/step).
// Neighbours: our own single-thread pointer-network training (attn train with the hull5
// reproduction recipe of experiments/presets.json, hidden 256) at nice 19, a plain busy loop at
// nice 19, and the same training at normal priority.
// Each row runs 1T and 2T alternately --reps times (default 5) and reports medians, since the
// machine may be shared. Usage:
//   node bench/pool-bench.mjs [--bin build/native] [--reps 5] [--torch] [--only quiet,train19]
//                               [--out file.json]
// --bin points at another build folder (e.g. one built from an older commit) to compare pools.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../scripts/lib/run.mjs';
import { peerEnv } from './peers/env.mjs';
import { presetArgs } from '../experiments/presets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : argv[i + 1];
};
const bin = path.resolve(root, flag('bin', 'build/native'));
const reps = Number(flag('reps', '5'));
const withTorch = argv.includes('--torch');
const only = flag('only', null)?.split(',');
const out = flag('out', null);
if (!(reps >= 1)) throw new Error('--reps must be a positive number');

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function json(cmd, args, env = process.env) {
  const r = await run(cmd, args, { capture: true, env });
  if (r.code !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.code}: ${r.out.trim().split('\n').pop()}`);
  return JSON.parse(r.out.trim().split('\n').pop());
}

const GEMMS = [
  { label: 'gemm 256×128×128 A·Bᵀ', M: 256, N: 128, K: 128 },
  { label: 'gemm 512³ A·Bᵀ', M: 512, N: 512, K: 512 },
];
const gemmCase = (g) => ({ M: g.M, N: g.N, K: g.K, ta: false, tb: true, batch: 1, seconds: 0.3 });

// One measurement of each row at `threads` threads: {label: value}.
async function measure(threads, torch) {
  const v = {};
  for (const g of GEMMS) {
    const r = await json(path.join(bin, 'attnlab_bench'), ['gemm', g.M, g.N, g.K, 0, 1, 1, threads, 0.3].map(String));
    v[`${g.label} GFLOP/s`] = r.gflops;
  }
  const s = await json(path.join(bin, 'attn'), [
    'bench',
    '--config',
    'M',
    '--threads',
    String(threads),
    '--seconds',
    '1',
  ]);
  v['Transformer M step ms'] = s.ms_per_step;
  if (torch) {
    const r = await json(
      '/usr/bin/python3',
      [path.join(root, 'bench', 'peers', 'torch_gemm.py'), String(threads), JSON.stringify(GEMMS.map(gemmCase))],
      peerEnv(threads)
    );
    GEMMS.forEach((g, i) => {
      v[`${g.label} GFLOP/s, PyTorch`] = r.results[i].gflops;
    });
  }
  return v;
}

// Neighbours: a command started in its own process group (killed as a group afterwards).
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pool-bench-'));
const train = presetArgs('hull5', { threads: '1', steps: '100000000', out: path.join(tmp, 'hull') });
const NEIGHBOURS = [
  { name: 'quiet', cmd: null },
  {
    name: 'train19',
    what: 'attn train --preset hull5 --threads 1 at nice 19',
    cmd: ['nice', ['-n', '19', path.join(bin, 'attn'), 'train', ...train]],
  },
  { name: 'busy19', what: 'busy loop at nice 19', cmd: ['nice', ['-n', '19', 'sh', '-c', 'while :; do :; done']] },
  {
    name: 'train0',
    what: 'attn train --preset hull5 --threads 1 at nice 0',
    cmd: [path.join(bin, 'attn'), ['train', ...train]],
  },
].filter((n) => !only || only.includes(n.name));

const results = [];
try {
  for (const nb of NEIGHBOURS) {
    let child = null;
    if (nb.cmd) {
      child = spawn(nb.cmd[0], nb.cmd[1], { detached: true, stdio: 'ignore' });
      await sleep(2000); // past its start-up, into steady training
    }
    const runs = { 1: [], 2: [] };
    try {
      for (let i = 0; i < reps; ++i) for (const t of [1, 2]) runs[t].push(await measure(t, withTorch && i < 3));
    } finally {
      if (child)
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
    }
    for (const key of Object.keys(runs[1][0])) {
      const one = median(runs[1].map((r) => r[key]).filter((x) => x != null));
      const two = median(runs[2].map((r) => r[key]).filter((x) => x != null));
      const speedup = key.endsWith(' ms') ? one / two : two / one;
      const row = {
        neighbour: nb.name,
        row: key,
        t1: one,
        t2: two,
        speedup_2t: Number(speedup.toFixed(3)),
        n: runs[1].filter((r) => r[key] != null).length,
      };
      results.push(row);
      console.log(
        `${nb.name.padEnd(8)} ${key.padEnd(40)} 1T ${one.toFixed(2).padStart(8)}  2T ${two.toFixed(2).padStart(8)}  2T/1T ${row.speedup_2t}`
      );
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const report = {
  bin,
  reps,
  cpu: os.cpus()[0]?.model,
  loadavg_end: os.loadavg(),
  date: new Date().toISOString(),
  neighbours: Object.fromEntries(NEIGHBOURS.map((n) => [n.name, n.what ?? 'none'])),
  results,
};
if (out) writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
