// Bench rows: a scaling model past 2 cores. Per Transformer config (S, M, base), the training
// step (`build/native/attn bench`, the engine's own choice of split: --thread-split auto, the
// default of attn train and attn bench) is timed at 1 and 2 threads (the median of a few runs each,
// the runs of the two counts interleaved), Amdahl's law is fitted to the two times, and the
// rows give its serial share s and the parallel efficiency it predicts at 4, 8 and 16 threads:
//   t(n) = t1 (s + (1 - s) / n)  =>  s = 2 t2 / t1 - 1,  efficiency(n) = t1 / (n t(n)).
// A prediction, not a measurement: the machine this runs on may have 2 cores only, and the fit
// puts every cost that does not halve with a second thread (pool waits, memory bandwidth, a
// neighbour taking a core) into s. Run alone: `node bench/rows/scaling.mjs`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PREDICT_AT = [4, 8, 16];

// Amdahl fit from the times at 1 and 2 threads: {s, efficiency: {n: fraction}}. s is clamped to
// [0, 1] (a 2-thread time below half the 1-thread time, or above it, says no more than that).
export function amdahl(t1, t2, at = PREDICT_AT) {
  if (!(t1 > 0) || !(t2 > 0)) throw new Error(`amdahl: times must be positive (t1=${t1}, t2=${t2})`);
  const s = Math.min(1, Math.max(0, (2 * t2) / t1 - 1));
  const efficiency = Object.fromEntries(at.map((n) => [n, 1 / (n * (s + (1 - s) / n))]));
  return { s, efficiency };
}

const median = (a) => {
  const v = [...a].sort((x, y) => x - y);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

function step(attn, root, config, threads, seconds) {
  const args = ['bench', '--config', config, '--threads', String(threads), '--seconds', String(seconds)];
  const r = spawnSync(attn, args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`attn bench exited with ${r.status}: ${(r.stderr || '').trim().split('\n').pop()}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()).ms_per_step;
}

export async function rows(ctx = {}) {
  const root = ctx.root ?? path.resolve(here, '..', '..');
  const attn = path.join(root, 'build', 'native', 'attn');
  if (!existsSync(attn)) throw new Error('build/native/attn is missing: build the native engine first');
  const repeats = ctx.quick ? 1 : 3;
  const r3 = (x) => Number(x.toFixed(3));
  const out = [];
  for (const config of ['S', 'M', 'base']) {
    const seconds = config === 'base' ? 1 : ctx.quick ? 0.5 : 1;
    const times = { 1: [], 2: [] };
    for (let i = 0; i < repeats; ++i)
      for (const t of i % 2 ? [2, 1] : [1, 2]) times[t].push(step(attn, root, config, t, seconds));
    const t1 = median(times[1]),
      t2 = median(times[2]);
    const { s, efficiency } = amdahl(t1, t2);
    const measured = `median of ${repeats} run${repeats > 1 ? 's' : ''} each: 1T ${t1.toFixed(2)} ms, 2T ${t2.toFixed(2)} ms per step`;
    out.push({
      name: `Transformer training step, config ${config}: serial share s (Amdahl fit of 1T and 2T)`,
      unit: 'fraction',
      attnlab: r3(s),
      peer: null,
      peer_value: null,
      ratio: null,
      note: measured,
    });
    for (const n of PREDICT_AT)
      out.push({
        name: `Transformer training step, config ${config}: parallel efficiency predicted at ${n} threads (Amdahl, s above)`,
        unit: 'fraction',
        attnlab: r3(efficiency[n]),
        peer: null,
        peer_value: null,
        ratio: null,
        note: `speedup ${(n * efficiency[n]).toFixed(2)}x; ${measured}`,
      });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await rows({ quick: process.argv.includes('--quick') }), null, 2));
}
