// Benchmark rows of the recurrent models: ms per training step of RNNsearch (hidden 64,
// lengths 20, batch 32) and Ptr-Net (hidden 128, n = 10, batch 128), natively, measured by
// `attn bench-rnn` (cpp/train/rnn_bench.cpp). rows() resolves to [{name, ms_per_step, reps,
// backend}]; run directly, it prints them as a table.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function rows({ reps = 5 } = {}) {
  const attn = path.join(root, 'build', 'native', 'attn');
  const r = spawnSync(attn, ['bench-rnn', '--reps', String(reps)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`attn bench-rnn failed: ${r.stderr || r.error}`);
  return JSON.parse(r.stdout);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await rows()) console.log(`${row.name.padEnd(56)} ${row.ms_per_step.toFixed(1).padStart(9)} ms`);
}
