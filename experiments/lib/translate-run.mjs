// What experiments/translator.mjs and experiments/translate-sweep.mjs share: the translator's recipe, a
// run's checkpoints, and training in sittings whose wall time adds up in DIR/wall.json.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

// The shipped recipe, the best of the equal-time sweep: a 2+2-layer Transformer (d_model 256,
// 4 heads, d_ff 512) with a shared 3,000-token BPE vocabulary, tied target embeddings, dropout
// 0.3, label smoothing 0.1, Noam schedule (warmup 2,000), batches of up to 2,048 padded tokens,
// seed 1.
export const RECIPE_FLAGS = Object.freeze({
  'vocab-size': '3000',
  layers: '2',
  'd-model': '256',
  heads: '4',
  'd-ff': '512',
  dropout: '0.3',
  'max-tokens': '2048',
  warmup: '2000',
  'label-smoothing': '0.1',
  seed: '1',
});

// Corpus v2's candidate recipe (not yet the shipped one): the low-resource settings of Sennrich &
// Zhang (2019) on the sentences plus the dictionary's items (scripts/data/corpora.py): word
// dropout, stronger label smoothing, a larger vocabulary for the items' words; two ranks of
// 2,048 tokens each (a global batch of 4,096); warmup 2,000 as v1 (a run of a few thousand steps
// is past its peak rate early).
export const RECIPE_V2_FLAGS = Object.freeze({
  ...RECIPE_FLAGS,
  'vocab-size': '6000',
  'word-dropout': '0.1',
  'label-smoothing': '0.2',
  warmup: '2000',
});

// The training file of a corpus: v1, the example sentences (DATA/train.tsv); v2, the sentences
// `copies` times over and the dictionary's items (lexicon.tsv); v2-ablation, the same with the
// items of the held-out sentences' entries left out (lexicon-ablation.tsv). Written to OUT.
// The file stays in OUT (a resumed run reads the path its checkpoint names).
export function trainingFile(corpus, data, out, copies) {
  const sentences = path.join(data, 'train.tsv');
  if (corpus === 'v1') {
    const file = path.join(out, 'train-v1.tsv');
    const text = readFileSync(sentences, 'utf8');
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
    return file;
  }
  const lexicon = path.join(data, { v2: 'lexicon.tsv', 'v2-ablation': 'lexicon-ablation.tsv' }[corpus] ?? '');
  if (!existsSync(lexicon))
    throw new Error(`--corpus ${corpus}: ${lexicon} is missing (corpora: v1, v2, v2-ablation; run npm run data)`);
  const file = path.join(out, `train-${corpus}-x${copies}.tsv`);
  const text = readFileSync(sentences, 'utf8');
  const composed = text.repeat(copies) + readFileSync(lexicon, 'utf8');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== composed) writeFileSync(file, composed);
  return file;
}

export const stepOf = (f) => Number(path.basename(f).match(/\d+/)[0]);

// The checkpoints attn train keeps beside RUN (RUN.ckpt/step-N.safetensors), oldest first.
export const checkpoints = (run) =>
  existsSync(`${run}.ckpt`)
    ? readdirSync(`${run}.ckpt`)
        .filter((f) => /^step-\d+\.safetensors$/.test(f))
        .sort()
        .map((f) => path.join(`${run}.ckpt`, f))
    : [];

export function readWall(dir) {
  const f = path.join(dir, 'wall.json');
  const wall = existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : { seconds: 0, runs: [] };
  wall.cpuSeconds ??= 0;
  return wall;
}

// The CPU seconds (user + system) the process `pid` and its children so far have used (Linux:
// /proc/PID/stat fields 14-17, in clock ticks of 1/100 s, the kernel's USER_HZ), or null when
// the process is gone.
const TICKS = 100;
export function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name, which is in parentheses and may hold spaces
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(f[11]) + Number(f[12]);
    const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .reduce((sum, c) => sum + (cpuSecondsOf(c) ?? 0), 0);
    return own / TICKS + children;
  } catch {
    return null;
  }
}

// One sitting of `attn train argv` (fresh, or --resume from the newest checkpoint: the caller's
// argv). Ctrl-C, `seconds` of wall time running out, or `cpuSeconds` of CPU time (the sitting's
// processes, user + system, polled every 2 s) running out, sends attn SIGINT: it saves its step
// and exits 130. A CPU budget is what equal-compute comparisons need on a shared machine: other
// jobs lengthen a sitting's wall time, not its CPU time.
// ranks > 1: the sitting runs under `mpirun -np ranks` (data-parallel, one thread per rank), and
// SIGINT goes to the ranks, not to mpirun (which would end them without a save).
// The sitting's wall time, CPU time, steps, start date and `meta` (the CPU, the binary) are
// added to DIR/wall.json (`seconds` and `cpuSeconds` are the sums over sittings). Resolves with
// the exit code (128 + the signal's number when killed by one).
export function trainSitting({
  attn,
  cwd,
  argv,
  run,
  dir,
  threads,
  ranks = 1,
  seconds = Infinity,
  cpuSeconds = Infinity,
  stderr,
  meta = {},
}) {
  const wall = readWall(dir);
  const from = checkpoints(run).at(-1);
  const t0 = Date.now();
  const [cmd, args] =
    ranks > 1
      ? [
          'mpirun',
          [
            '-np',
            String(ranks),
            '--oversubscribe',
            ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : []),
            attn,
            ...argv,
          ],
        ]
      : [attn, argv];
  // The sitting is in wall.json from its start and brought up to date every minute, so one that
  // is killed with its machine (no close event) still counts, up to its last checkpoint.
  const base = wall.seconds,
    cpuBase = wall.cpuSeconds;
  const entry = {
    from: from ? stepOf(from) : 0,
    to: from ? stepOf(from) : 0,
    seconds: 0,
    cpuSeconds: 0,
    threads: Number(threads),
    ranks,
    date: new Date(t0).toISOString(),
    code: null,
    ...meta,
  };
  wall.runs.push(entry);
  const record = () => {
    const to = checkpoints(run).at(-1);
    entry.seconds = (Date.now() - t0) / 1000;
    entry.to = to ? stepOf(to) : 0;
    wall.seconds = base + entry.seconds;
    wall.cpuSeconds = cpuBase + entry.cpuSeconds;
    writeFileSync(path.join(dir, 'wall.json'), `${JSON.stringify(wall, null, 2)}\n`);
  };
  record();
  const ticker = setInterval(record, 60000);
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, stdio: ['ignore', 'inherit', stderr ? 'pipe' : 'inherit'] });
    if (stderr) p.stderr.pipe(stderr);
    const stop = () => (ranks > 1 ? spawnSync('pkill', ['-INT', '-P', String(p.pid)]) : p.kill('SIGINT'));
    const timer = Number.isFinite(seconds) ? setTimeout(stop, seconds * 1000) : null;
    let stopped = false;
    const cpuTimer = setInterval(() => {
      const used = cpuSecondsOf(p.pid);
      if (used === null) return;
      entry.cpuSeconds = used;
      if (used >= cpuSeconds && !stopped) {
        stopped = true;
        stop();
      }
    }, 2000);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    p.on('error', (e) => {
      clearInterval(ticker);
      clearInterval(cpuTimer);
      reject(e);
    });
    p.on('close', (exitCode, signal) => {
      const code = exitCode ?? 128 + (os.constants.signals[signal] ?? 0);
      clearTimeout(timer);
      clearInterval(cpuTimer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      clearInterval(ticker);
      entry.code = code;
      record();
      resolve(code);
    });
  });
}
