// Reproduces, in small and natively, the findings of Bahdanau et al. 2015 (RNNsearch vs.
// RNNencdec, alignment) and Vinyals et al. 2015 / 2016 (Ptr-Net on convex hull, TSP, sorting)
// with the engine's own `attn` command, over several seeds, and prints a table: paper | ours
// (mean ± sd over the seeds, and the worst seed) | met? | training cost.
// Long because: every reproduction row's run, table and report in one script with one CLI;
// the rows' data are apart (presets.json, presets.mjs).
// Each row is `attn train <the preset's flags> --seed <s>`: the recipe is the row's preset, data in
// experiments/presets.json (read through presets.mjs); `--list` prints each row's command, so the
// table's figure can be trained by hand. A row's target counts as met only when its worst seed
// meets it.
//   npm run reproduce                  every row, seeds 1-3 (hours on 2 cores: hull10 alone ~2 h
//                                      a seed)
//   npm run reproduce -- --only hull5  rows whose id contains the word (or one of a,b,c)
//   npm run reproduce -- --only luong-vs-rnnsearch   RNNsearch vs Luong dot/general/concat on
//                                      dates and phrases 2–30 (its own table in docs/reproduction.md and
//                                      docs/reproduce/luong-length-curve.svg)
//   npm run reproduce -- --seeds 5     seeds 1-5
//   npm run reproduce -- --jobs 2      two runs at a time (one core each)
//   npm run reproduce -- --fresh       retrain runs whose results are already kept
//   npm run reproduce -- --readme      train nothing: the rows of build/reproduce/results.json
//                                      become docs/reproduce/results/*.json and docs/reproduction.md's
//                                      reproduction tables are written from those files
//   npm run reproduce -- --only translate-de-en   the guide's German→English translator, from
//                                      data to the page's model (experiments/translator.mjs; its
//                                      own flags follow, e.g. --skip-train)
//   npm run reproduce -- --only translate-sweep   the translator's configurations trained for the
//                                      same wall time side by side (experiments/translate-sweep.mjs;
//                                      its own flags follow, e.g. --minutes 110)
//   npm run reproduce -- --only lm-prose   §1's subword language model on Moby-Dick and the World
//                                      English Bible, trained in sittings (experiments/lm.mjs; its
//                                      own flags follow, e.g. --background, --skip-train)
//   npm run reproduce -- --select      score on the selection sets instead (choosing a recipe)
//   npm run reproduce -- --allow-stale print kept results of another recipe or engine, marked
//   npm run reproduce -- --list        train nothing: each row's `attn train` command (seed S);
//                                      with --json, one object: row id -> its argument list
// Held-out sets: a recipe is chosen on the selection sets (SELECTION_SEED, attn eval's default
// seed and the presets' --eval-seed; kept apart under build/reproduce/select/); the table
// reports on the report sets (REPORT_SEED), which no recipe was chosen on.
// Each run's result is kept in build/reproduce/<id>-seed<s>.json (a link to the user's cache,
// where a result outlives the checkout) with its recipe (the resolved
// flags of `attn train --show-recipe`, and the attn eval runs after it) and the engine's commit
// (the last commit that changed cpp/, CMakeLists.txt or cmake/; "+dirty" with uncommitted
// changes there). A kept result is reused by later runs (so a table can be completed over
// several sittings) only when both match; otherwise the run is trained again, or with
// --allow-stale the kept result is printed marked "stale". The table,
// build/reproduce/results.json and, when both phrase rows ran, the length curve
// docs/reproduce/length-curve.svg are rewritten.
// A recurrent or pointer run trains in sittings: it writes its whole state every SAVE_EVERY steps
// (attn train --save-every, beside its checkpoint in <id>-seed<s>.safetensors.ckpt/) with its own
// copy of attn and its recipe in <id>-seed<s>.run/, so a run killed with its machine continues
// from its newest state when the same command runs again, on the engine it started with (whose
// commit its result names), to the same bits; its result lists the sittings.
// Needs build/native/attn (npm run build:engine).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lengthCurveSvg } from './lib/length-curve.mjs';
import { flagArgs, presetFlags } from './presets.mjs';
import { machineInfo } from '../bench/peers/machine.mjs';
import { cpuName, keepBinary, linkRun, runsRoot } from './lib/run-store.mjs';
import { checkpoints } from './lib/translate-run.mjs';
import os from 'node:os';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const attn = path.join(root, 'build', 'native', 'attn');
const SELECTION_SEED = 12345;
const REPORT_SEED = 424242;
const select = process.argv.includes('--select');
const evalSeed = select ? SELECTION_SEED : REPORT_SEED;
const keepLink = path.join(root, 'build', 'reproduce', ...(select ? ['select'] : []));
const pct = (x) => `${(100 * x).toFixed(1)}%`;

// The longest source lengths of the length experiment (Bahdanau et al., Fig. 2 in small).
const LONG = [26, 27, 28, 29, 30];
const bucket = (r) => {
  const v = LONG.map((n) => r.per_length?.[String(n)]).filter((x) => x !== undefined);
  return v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
};

// The rows of luong-vs-rnnsearch: every model on every task, equal steps per task.
const LVR = {
  tasks: [
    { id: 'dates', what: 'dates → ISO', args: ['--task', 'dates', '--hidden', '64', '--steps', '600'] },
    {
      id: 'phrases30',
      what: 'phrases of 2–30 words',
      args: ['--task', 'phrases', '--n-min', '2', '--n-max', '30', '--hidden', '48', '--steps', '1000'],
    },
  ],
  models: [
    { id: 'additive', what: 'RNNsearch', args: ['--model', 'rnnsearch'] },
    { id: 'dot', what: 'Luong dot', args: ['--model', 'luong', '--score', 'dot'] },
    { id: 'general', what: 'Luong general', args: ['--model', 'luong', '--score', 'general'] },
    { id: 'concat', what: 'Luong concat', args: ['--model', 'luong', '--score', 'concat'] },
  ],
  order: (t, k) => 10 * LVR.tasks.indexOf(t) + LVR.models.indexOf(k),
};

// A metric: value(result), how to print it, and the target the worst seed must meet (min: at
// least, max: at most; none: reported only).
// lower: smaller is better (a max target implies it), so the worst seed is the largest value.
const m = (label, value, opt = {}) => ({
  label,
  value: typeof value === 'string' ? (r) => r[value] : value,
  fmt: pct,
  lower: opt.max !== undefined,
  ...opt,
});
// The sizes the 5–20 hull model is tested at (its row's evalAt).
const HULL_AT = [5, 10, 20, 50];
const runs = [
  {
    id: 'dates',
    what: 'RNNsearch, dates → ISO (held-out)',
    paper: 'target: AER ≤ 8%, sequence accuracy ≥ 99%',
    // AER with Och & Ney's possible links (the century digits, which the later year digit also
    // determines over 1950–2049: data/date_task.hpp), and the sure-only rate beside it.
    metrics: [
      m('sequence', 'sequence_accuracy', { min: 0.99 }),
      m('AER', 'aer', { max: 0.08 }),
      m('AER, sure links only', 'aer_sure', { lower: true }),
    ],
  },
  {
    id: 'search30',
    what: 'RNNsearch, phrases of 2–30 words',
    paper: 'RNNsearch holds up on long sentences (Fig. 2)',
    metrics: [m('sequence', 'sequence_accuracy'), m('lengths 26–30', bucket)],
  },
  {
    id: 'encdec30',
    what: 'RNNencdec, phrases of 2–30 words',
    paper: 'RNNencdec degrades with length (Fig. 2)',
    metrics: [m('sequence', 'sequence_accuracy'), m('lengths 26–30', bucket)],
  },
  {
    id: 'tsp5',
    what: 'Ptr-Net + glimpse, TSP n = 5 (optimal labels, beam 5)',
    paper: 'tour 2.12 vs optimal 2.12; target within 2%',
    metrics: [
      m('tour over optimal', (r) => r.tour_length / r.optimal_tour_length - 1, { max: 0.02, fmt: (x) => `+${pct(x)}` }),
      m('exact', 'accuracy'),
    ],
  },
  {
    id: 'sort5',
    what: 'Read-Process-Write + glimpse, sorting 5 numbers',
    paper: '90% exact (Order Matters, with glimpses)',
    metrics: [m('exact', 'accuracy', { min: 0.9 })],
  },
  {
    // scored on 10,000 held-out sets that are the same for every seed (the preset's --eval-seed)
    id: 'hull5',
    what: 'Ptr-Net + glimpse, convex hull n = 5 (10,000 held-out sets, the same for every seed)',
    paper: '92.0% accuracy (5–50 model, tested at n = 5); target ≥ 90%, area ≥ 99%',
    metrics: [
      m('accuracy', 'accuracy', { min: 0.9 }),
      m('area', 'area_coverage', { min: 0.99 }),
      m('invalid', 'invalid_rate', { lower: true }),
    ],
  },
  {
    // evalAt: after training, `attn eval --n K` for each K; its figures are kept under at[K].
    id: 'hull5-20',
    what: 'Ptr-Net + glimpse, convex hull trained on n = 5–20, tested at n = 5, 10, 20, 50',
    paper: 'trained and tested at n = 50: 72.6%; the 5–50 model keeps 99.2% area at n = 500',
    evalAt: HULL_AT,
    metrics: HULL_AT.map((n) => m(`n = ${n}`, (r) => r.at[n].accuracy)).concat([
      m('area at n = 50', (r) => r.at[50].area_coverage),
    ]),
  },
  {
    id: 'hull10',
    what: 'Ptr-Net + glimpse, convex hull n = 10',
    paper: '87.0% accuracy; target ≥ 80%',
    metrics: [
      m('accuracy', 'accuracy', { min: 0.8 }),
      m('area', 'area_coverage'),
      m('invalid', 'invalid_rate', { lower: true }),
    ],
  },
  // Luong et al. 2015 beside Bahdanau et al. 2015 (`--only luong-vs-rnnsearch`): the same bi-GRU
  // encoder (hidden per direction), data, steps and seeds; RNNsearch's additive score against
  // Luong's global attention with input feeding and its dot, general and concat scores. Rows
  // with `args` train from those flags instead of a preset; table: their own table in docs/reproduction.md.
  ...LVR.tasks.flatMap((t) =>
    LVR.models.map((k) => ({
      id: `luong-vs-rnnsearch-${t.id}-${k.id}`,
      what: `${k.what}, ${t.what}`,
      table: 'seeds:luong',
      order: LVR.order(t, k),
      paper:
        k.id === 'additive'
          ? 'Bahdanau et al. 2015 (additive score)'
          : `Luong et al. 2015, ${k.id} score (input feeding)`,
      args: [...k.args, ...t.args, '--emb', '32', '--eval-samples', '1000'],
      metrics: [
        m('sequence', 'sequence_accuracy'),
        m('AER', 'aer', { lower: true }),
        ...(t.id === 'phrases30' ? [m('lengths 26–30', bucket)] : []),
      ],
    }))
  ),
  ...[1, 4, 16, 32].map((h) => ({
    id: `heads${h}`,
    what: `Transformer, h = ${h} head${h > 1 ? 's' : ''} (d_k = ${64 / h}), phrases of 2–20 words`,
    paper:
      h === 1
        ? 'Table 3 (A): one head 0.9 BLEU below the best (h = 8)'
        : h === 32
          ? 'Table 3 (A): too many heads also lose quality'
          : 'Table 3 (A), same compute for every h',
    metrics: [
      m('held-out loss', 'loss', { lower: true, fmt: (x) => x.toFixed(3), sdFmt: (x) => x.toFixed(3) }),
      m('sequence', 'sequence_accuracy'),
    ],
  })),
];

// A row's `attn train` arguments before --seed: its own args, or its preset's flags.
const rowArgs = (r) => r.args ?? flagArgs(presetFlags(r.id));
if (process.argv.includes('--list')) {
  if (process.argv.includes('--json'))
    console.log(JSON.stringify(Object.fromEntries(runs.map((r) => [r.id, rowArgs(r)]))));
  else
    for (const r of runs)
      console.log(
        `${r.id}: attn train ${rowArgs(r)
          .map((a) => (/^[\w.,/:=+-]+$/.test(a) ? a : `'${a}'`))
          .join(' ')} --seed S --out ${r.id}.safetensors`
      );
  process.exit(0);
}

if (process.argv.includes('--readme')) {
  const { reproduceReadme } = await import('./lib/readme-reproduce.mjs');
  reproduceReadme(root, runs);
  process.exit(0);
}

// The attn processes running now: Ctrl-C or SIGTERM reaches each (a training run saves the step
// it reached and exits 130), and this command records their sittings and exits 130 with one line.
const children = new Set();
let stopped = null;
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    stopped = sig;
    for (const p of children) p.kill(sig);
  });
let failed = false;
process.on('uncaughtException', (e) => {
  // one line; when stopped, the other runs are saving their step: wait for them (and their
  // sittings' records) before leaving
  if (!failed) console.error(`reproduce: ${stopped ? `${stopped}: ` : ''}${e.message}`);
  failed = true;
  if (!stopped) process.exit(1);
  const leave = () => (children.size ? setTimeout(leave, 100) : setTimeout(() => process.exit(130), 100));
  leave();
});
function run(args, bin = attn) {
  if (stopped) return Promise.reject(new Error(`${stopped} before attn ${args[0]}`));
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(p);
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => {
      children.delete(p);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()));
      else reject(new Error(`attn ${args.join(' ')} exited ${code}`));
    });
  });
}

if (!existsSync(attn)) {
  console.error(`${attn} is missing: run npm run build:engine first`);
  process.exit(1);
}
const flag = (name, def) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : def);
const only = flag('--only', '');
if (only === 'translate-de-en' || only === 'translate-sweep' || only === 'lm-prose') {
  const rest = process.argv.slice(2).filter((a, i, all) => a !== '--only' && all[i - 1] !== '--only');
  const script = {
    'translate-de-en': 'translator.mjs',
    'translate-sweep': 'translate-sweep.mjs',
    'lm-prose': 'lm.mjs',
  }[only];
  const r = spawn(process.execPath, [path.join(root, 'experiments', script), ...rest], { stdio: 'inherit' });
  r.on('close', (code) => process.exit(code ?? 1));
  await new Promise(() => {});
}
const jobs = Math.max(1, Number(flag('--jobs', '1'))); // runs at once (each uses one core)
const nSeeds = Math.max(1, Number(flag('--seeds', '3')));
const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
const fresh = process.argv.includes('--fresh');
// a word that is a row's id picks that row; any other word, the rows whose id contains it
const words = only.split(',').filter(Boolean);
const todo = runs.filter(
  (x) => !words.length || words.some((w) => (runs.some((y) => y.id === w) ? x.id === w : x.id.includes(w)))
);
if (!todo.length) {
  console.error(
    `--only ${only}: no such row (rows: ${runs.map((r) => r.id).join(', ')}, translate-de-en, translate-sweep, lm-prose)`
  );
  process.exit(1);
}
// The kept results live under the user's cache (experiments/lib/run-store.mjs: $ATTNLAB_RUNS,
// else $XDG_CACHE_HOME/attnlab/runs, else ~/.cache/attnlab/runs, in reproduce/), so that a table
// filled over several sittings survives a checkout laid anew; build/reproduce links to it (a real
// folder there is used as it is).
// The folder is resolved once: a run writes where it started even if the link moves meanwhile
// (another runs folder, ATTNLAB_RUNS, for a while).
linkRun(path.join(root, 'build', 'reproduce'), path.join(runsRoot(), 'reproduce'));
mkdirSync(keepLink, { recursive: true });
const keep = realpathSync(keepLink);
const allowStale = process.argv.includes('--allow-stale');
const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
const ENGINE = ['cpp', 'CMakeLists.txt', 'cmake'];
// The machine each run trained on, kept in its file (the results files name it).
const CPU = (() => {
  const m = machineInfo();
  return `${m.cpu}${m.isa ? `, ${m.isa}` : ''}, ${os.cpus().length} cores`;
})();
const engineCommit = `${git('log', '-1', '--format=%H', '--', ...ENGINE)}${git('status', '--porcelain', '--', ...ENGINE) ? '+dirty' : ''}`;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const checkpointOf = (j) => path.join(keep, `${j.r.id}-seed${j.seed}.safetensors`);
// A run in sittings: its folder (its attn, run.json), and its periodic states (attn's OUT.ckpt).
const runDirOf = (j) => path.join(keep, `${j.r.id}-seed${j.seed}.run`);
const statesOf = (j) => checkpoints(checkpointOf(j));
// steps between a sitting's saved states (ATTNLAB_REPRODUCE_SAVE_EVERY: a shorter one for trying it)
const SAVE_EVERY = Number(process.env.ATTNLAB_REPRODUCE_SAVE_EVERY) || 1000;
// The step a checkpoint's training state records (its safetensors metadata), -1 without one.
function savedStep(file) {
  const b = readFileSync(file);
  const header = JSON.parse(b.subarray(8, 8 + Number(b.readBigUInt64LE(0))).toString('utf8'));
  return JSON.parse(header.__metadata__?.attnlab_train ?? '{}').step ?? -1;
}
const RECURRENT = new Set(['rnnsearch', 'rnnencdec', 'luong', 'pointer']);
const recurrent = (argv) => RECURRENT.has(argv[argv.indexOf('--model') + 1]);
// The flags a resumed sitting gives again (the checkpoint holds the model, task and training
// flags): what is scored after training and how.
const AFTER = new Set(['--eval-every', '--eval-samples', '--eval-seed', '--beam']);
const afterFlags = (argv) => argv.flatMap((a, i) => (AFTER.has(a) ? [a, argv[i + 1]] : []));
// The preset's own --eval-seed (hull5's) gives way to the held-out set's, as a flag typed after a
// preset did.
const trainArgs = (j) => [
  'train',
  ...(j.r.args
    ? [...j.r.args, ...flagArgs({ seed: j.seed, 'eval-seed': evalSeed })]
    : flagArgs({ ...presetFlags(j.r.id), seed: j.seed, 'eval-seed': evalSeed })),
];
const evalArgs = (j, n) => [
  'eval',
  '--checkpoint',
  checkpointOf(j),
  '--n',
  String(n),
  '--samples',
  '1000',
  '--seed',
  String(evalSeed),
];
// What a run's figures depend on besides the engine: the flags attn resolves (--show-recipe),
// and the evaluations after training (their checkpoint path aside).
async function recipeOf(j) {
  return {
    train: await run([...trainArgs(j), '--show-recipe']),
    eval: (j.r.evalAt ?? []).map((n) => evalArgs(j, n).map((a) => (a === checkpointOf(j) ? '<checkpoint>' : a))),
  };
}
const jobsList = todo.flatMap((r) =>
  seeds.map((seed) => ({ r, seed, file: path.join(keep, `${r.id}-seed${seed}.json`) }))
);
const staleRuns = new Set(); // files printed although their recipe or engine differs
let next = 0;
async function worker() {
  while (next < jobsList.length) {
    const j = jobsList[next++];
    const recipe = await recipeOf(j);
    if (!fresh && existsSync(j.file)) {
      const kept = JSON.parse(readFileSync(j.file, 'utf8'));
      if (same(kept.recipe, recipe) && kept.commit === engineCommit) continue;
      const why = !same(kept.recipe, recipe) ? 'another recipe' : `engine ${String(kept.commit).slice(0, 12)}`;
      if (allowStale) {
        staleRuns.add(j.file);
        console.error(`   ${path.relative(root, j.file)}: stale (${why}), kept (--allow-stale)`);
        continue;
      }
      console.error(`   ${path.relative(root, j.file)}: from ${why}: training again`);
    }
    const full = trainArgs(j);
    let args = [...full, '--out', checkpointOf(j), '--log-every', '1000'];
    let bin = attn,
      commit = engineCommit,
      sittings = [],
      from = 0;
    const dir = runDirOf(j),
      runFile = path.join(dir, 'run.json');
    if (recurrent(full)) {
      // in sittings: continue the newest state of the same recipe, on the binary it started with
      const before = existsSync(runFile) ? JSON.parse(readFileSync(runFile, 'utf8')) : null;
      // the newest of its periodic states and the checkpoint an interrupted sitting saved (Ctrl-C,
      // SIGTERM: attn saves the step it reached to --out)
      const newest = [...statesOf(j), ...(existsSync(checkpointOf(j)) ? [checkpointOf(j)] : [])]
        .map((f) => [f, savedStep(f)])
        .reduce((a, b) => (b[1] > (a?.[1] ?? -1) ? b : a), null)?.[0];
      if (before && same(before.recipe, recipe) && newest) {
        ({ commit, sittings } = before);
        bin = keepBinary(dir, attn).attn;
        from = savedStep(newest);
        // a sitting killed outright (its process too) ended at the newest state, its time unknown
        for (const x of sittings) if (x.to === null) x.to = from;
        args = ['train', '--resume', newest, ...afterFlags(full), '--out', checkpointOf(j), '--log-every', '1000'];
        console.error(`   ${path.relative(root, newest)}: continuing that run (engine ${String(commit).slice(0, 12)})`);
      } else {
        rmSync(dir, { recursive: true, force: true });
        rmSync(`${checkpointOf(j)}.ckpt`, { recursive: true, force: true });
        rmSync(checkpointOf(j), { force: true }); // another run's: not a state of this one
        bin = keepBinary(dir, attn).attn;
        writeFileSync(runFile, `${JSON.stringify({ recipe, commit, sittings })}\n`);
      }
      args.push('--save-every', String(SAVE_EVERY), '--keep', '2');
    }
    console.error(`\n== ${j.r.what}, seed ${j.seed}: attn ${args.join(' ')}`);
    const t0 = Date.now();
    // the sitting is in run.json from its start (to and seconds null until it ends)
    const sitting = { from, to: null, seconds: null, cpu: cpuName(), date: new Date(t0).toISOString() };
    const record = () =>
      existsSync(runFile) &&
      writeFileSync(runFile, `${JSON.stringify({ recipe, commit, sittings: [...sittings, sitting] })}\n`);
    record();
    let res;
    try {
      res = await run(args, bin);
    } finally {
      sitting.seconds = (Date.now() - t0) / 1000;
      sitting.to = res
        ? res.steps
        : Math.max(from, ...[...statesOf(j), checkpointOf(j)].filter((f) => existsSync(f)).map(savedStep));
      record();
    }
    sittings = [...sittings, sitting];
    res.wall_seconds = sittings.reduce((t, x) => t + (x.seconds ?? 0), 0);
    if (sittings.length > 1) res.sittings = sittings;
    if (j.r.evalAt) {
      res.at = {};
      for (const n of j.r.evalAt) {
        res.at[n] = await run(evalArgs(j, n), bin);
        console.error(`   n = ${n}: ${JSON.stringify(res.at[n])}`);
      }
    }
    res.recipe = recipe;
    res.commit = commit;
    res.eval_seed = evalSeed;
    res.cpu = CPU;
    res.finished = new Date().toISOString();
    writeFileSync(j.file, `${JSON.stringify(res)}\n`);
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${checkpointOf(j)}.ckpt`, { recursive: true, force: true });
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
console.log(
  `\nHeld-out sets: ${select ? `the selection sets (seed ${SELECTION_SEED}): for choosing a recipe, not for reporting` : `the report sets (seed ${REPORT_SEED}), which no recipe was chosen on`}; engine ${engineCommit.slice(0, 12)}`
);

const stats = (xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, sd, min: Math.min(...xs), max: Math.max(...xs) };
};
const results = {};
console.log(
  `\n| experiment | paper | ours: mean ± sd over seeds ${seeds.join(', ')} (worst seed) | target met by the worst seed | training cost per seed |`
);
console.log('| --- | --- | --- | --- | --- |');
for (const r of todo) {
  const res = seeds.map((seed) => JSON.parse(readFileSync(path.join(keep, `${r.id}-seed${seed}.json`), 'utf8')));
  const cells = [],
    met = [];
  const stale = seeds.some((seed) => staleRuns.has(path.join(keep, `${r.id}-seed${seed}.json`)));
  const row = { id: r.id, seeds, metrics: {}, stale };
  for (const k of r.metrics) {
    const xs = res.map(k.value),
      st = stats(xs);
    const worst = k.lower ? st.max : st.min;
    cells.push(
      `${k.label} ${k.fmt(st.mean)} ± ${(k.sdFmt ?? ((x) => (100 * x).toFixed(1)))(st.sd)} (worst ${k.fmt(worst)})`
    );
    if (k.min !== undefined) met.push(worst >= k.min);
    if (k.max !== undefined) met.push(worst <= k.max);
    row.metrics[k.label] = {
      values: xs,
      ...st,
      worst,
      target: k.min !== undefined ? { min: k.min } : k.max !== undefined ? { max: k.max } : null,
    };
  }
  const secs = stats(res.map((x) => x.train_seconds ?? x.wall_seconds));
  row.steps = res[0].steps;
  row.minutes = secs.mean / 60;
  row.met = met.length ? met.every(Boolean) : null;
  results[r.id] = { ...row, runs: res };
  console.log(
    `| ${r.what}${stale ? ' (stale: kept from another recipe or engine)' : ''} | ${r.paper} | ${cells.join('; ')} | ${row.met === null ? '—' : row.met ? 'yes' : 'no'} | ${res[0].steps} steps, ${row.minutes.toFixed(1)} min |`
  );
}
if (results.search30 && results.encdec30) {
  const ratios = seeds.map((_, i) => {
    const a = bucket(results.search30.runs[i]),
      b = bucket(results.encdec30.runs[i]);
    return b > 0 ? a / b : a > 0 ? Infinity : 0;
  });
  const worst = Math.min(...ratios);
  const fmt = (x) => (x === Infinity ? '∞ (RNNencdec got none right)' : `${x.toFixed(1)}×`);
  console.log(
    `\nLongest bucket (26–30 words), RNNsearch / RNNencdec per seed: ${ratios.map(fmt).join(', ')}; ` +
      `worst ${fmt(worst)} (target ≥ 2×: ${worst >= 2 ? 'met' : 'not met'})`
  );
  results.length_ratio = { ratios: ratios.map((x) => (x === Infinity ? null : x)), met: worst >= 2 };
  const svg = lengthCurveSvg(
    [
      { label: 'RNNsearch', runs: results.search30.runs.map((x) => x.per_length) },
      { label: 'RNNencdec', runs: results.encdec30.runs.map((x) => x.per_length) },
    ],
    { title: `Exact match by source length, phrases of 2–30 words (seeds ${seeds.join(', ')})` }
  );
  mkdirSync(path.join(root, 'docs', 'reproduce'), { recursive: true });
  writeFileSync(path.join(root, 'docs', 'reproduce', 'length-curve.svg'), svg);
  console.log('length curve: docs/reproduce/length-curve.svg');
}
const lvrPhrases = LVR.models.map((k) => results[`luong-vs-rnnsearch-phrases30-${k.id}`]);
if (lvrPhrases.every(Boolean)) {
  const svg = lengthCurveSvg(
    LVR.models.map((k, i) => ({ label: k.what, runs: lvrPhrases[i].runs.map((x) => x.per_length) })),
    { title: `Exact match by source length, RNNsearch and Luong, phrases of 2–30 words (seeds ${seeds.join(', ')})` }
  );
  mkdirSync(path.join(root, 'docs', 'reproduce'), { recursive: true });
  writeFileSync(path.join(root, 'docs', 'reproduce', 'luong-length-curve.svg'), svg);
  console.log('length curve: docs/reproduce/luong-length-curve.svg');
}
// results.json gains this run's rows and keeps the others' (runs of other rows may finish in
// any order, and --readme reads every row here)
const resultsFile = path.join(keep, 'results.json');
const earlier = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
writeFileSync(resultsFile, `${JSON.stringify({ ...earlier, ...results }, null, 1)}\n`);
