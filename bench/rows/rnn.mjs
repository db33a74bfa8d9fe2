// Bench rows of the recurrent models: ms per training step (forward, backward, Adam) of
// RNNsearch (hidden 64, lengths 20, batch 32) and Ptr-Net (hidden 128, n = 10, batch 128),
// natively, median over the repetitions, measured by `attn bench-rnn` (cpp/bench/rnn_bench.cpp).
// Rows follow build/bench.json's shape {name, unit, attnlab, peer, peer_value, ratio}; there is
// no peer for these. Run alone: `node bench/rows/rnn.mjs` prints them.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function rows(ctx = {}) {
  const attn = path.join(root, 'build', 'native', 'attn');
  const reps = ctx.quick ? 3 : 10;
  const r = spawnSync(attn, ['bench-rnn', '--reps', String(reps)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`attn bench-rnn failed: ${r.stderr || r.error}`);
  return JSON.parse(r.stdout).map((row) => ({
    name: `${row.name}, native`,
    unit: 'ms',
    attnlab: Number(row.ms_per_step.toFixed(1)),
    peer: null,
    peer_value: null,
    ratio: null,
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await rows()) console.log(`${row.name.padEnd(64)} ${String(row.attnlab).padStart(9)} ms`);
}
