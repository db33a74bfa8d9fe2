// What scripts/translator.mjs and scripts/translate-sweep.mjs share: the translator's recipe, a
// run's checkpoints, and training in sittings whose wall time adds up in DIR/wall.json.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';

// The shipped recipe, the best of the equal-time sweep: a 2+2-layer Transformer (d_model 256,
// 4 heads, d_ff 512) with a shared 3,000-token BPE vocabulary, tied target embeddings, dropout
// 0.3, label smoothing 0.1, Noam schedule (warmup 2,000), batches of up to 2,048 padded tokens,
// seed 1.
export const RECIPE_FLAGS = Object.freeze({
  'vocab-size': '3000', layers: '2', 'd-model': '256', heads: '4', 'd-ff': '512', dropout: '0.3',
  'max-tokens': '2048', warmup: '2000', 'label-smoothing': '0.1', seed: '1',
});


export const stepOf = (f) => Number(path.basename(f).match(/\d+/)[0]);

// The checkpoints attn train keeps beside RUN (RUN.ckpt/step-N.safetensors), oldest first.
export const checkpoints = (run) => (existsSync(`${run}.ckpt`) ? readdirSync(`${run}.ckpt`)
  .filter((f) => /^step-\d+\.safetensors$/.test(f)).sort().map((f) => path.join(`${run}.ckpt`, f)) : []);

export function readWall(dir) {
  const f = path.join(dir, 'wall.json');
  return existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : { seconds: 0, runs: [] };
}

// One sitting of `attn train argv` (fresh, or --resume from the newest checkpoint: the caller's
// argv). Ctrl-C, or `seconds` running out, sends attn SIGINT: it saves its step and exits 130.
// The sitting's wall time and steps are added to DIR/wall.json. Resolves with the exit code.
export function trainSitting({ attn, cwd, argv, run, dir, threads, seconds = Infinity, stderr }) {
  const wall = readWall(dir);
  const from = checkpoints(run).at(-1);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const p = spawn(attn, argv, { cwd, stdio: ['ignore', 'inherit', stderr ? 'pipe' : 'inherit'] });
    if (stderr) p.stderr.pipe(stderr);
    const stop = () => p.kill('SIGINT');
    const timer = Number.isFinite(seconds) ? setTimeout(stop, seconds * 1000) : null;
    process.once('SIGINT', stop);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      process.off('SIGINT', stop);
      const took = (Date.now() - t0) / 1000;
      const to = checkpoints(run).at(-1);
      wall.seconds += took;
      wall.runs.push({ from: from ? stepOf(from) : 0, to: to ? stepOf(to) : 0, seconds: took, threads: Number(threads) });
      writeFileSync(path.join(dir, 'wall.json'), `${JSON.stringify(wall, null, 2)}\n`);
      resolve(code);
    });
  });
}
