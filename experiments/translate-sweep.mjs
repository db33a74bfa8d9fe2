// The sweep behind the translator's recipe: several German→English configurations trained for the
// same compute on the same machine (minutes of one core's CPU time each: on a shared machine other
// jobs stretch the wall time, not the CPU time), then scored the way experiments/translator.mjs
// scores the shipped model.
//   node experiments/translate-sweep.mjs [--only id,id] [--minutes 110] [--out build/sweep] [--skip-train]
//   node experiments/translate-sweep.mjs --coverage docs/translate/sweep-rnnsearch.json
// The configurations: three Transformer sizes, the Araabi–Monz low-resource settings (on the
// sentences alone, and on corpus v2: the sentences and the dictionary's items, with and without the
// items of the held-out sentences' entries) and two recurrent kinds (RNNsearch, Luong general).
// Every chosen configuration trains at once, one thread each, so they share the machine evenly;
// when its CPU minutes are spent attn train gets SIGINT, saves its step and exits (run the script
// again after an interruption and each run continues from its newest checkpoint until it has had
// its minutes; wall.json keeps both the wall and the CPU time of every sitting). OUT keeps its own
// copy of attn (OUT/bin/attn, taken the first time), so every sitting of every configuration runs
// the same code whatever the checkout has become; --fresh-binary takes the checkout's again.
// Then, for each run: greedy BLEU on the whole validation split every --curve-every steps, and the
// average of its last 5 checkpoints on the 836-pair test split (beam 4, alpha 0.6; greedy too),
// with the best single checkpoint among those 5 (by validation BLEU) beside it.
// Writes OUT/sweep.json, OUT/sweep.md and docs/reproduce/translate-sweep.svg (validation BLEU
// against training CPU minutes).
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lineChartSvg } from './lib/line-chart.mjs';
import { RECIPE_FLAGS, checkpoints, readWall, stepOf, trainSitting, trainingFile } from './lib/translate-run.mjs';
import { cpuName, keepBinary } from './lib/run-store.mjs';
import { writeDocs } from '../scripts/lib/readme-tables.mjs';
import { coverage } from './lib/translate-coverage.mjs';

process.on('uncaughtException', (e) => {
  console.error(`translate-sweep: ${e.message}`);
  process.exit(1);
});
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'build', 'native', 'attn');
const DATA = path.join(root, 'build', 'data', 'de-en');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const OUT = path.resolve(opt('out', path.join(root, 'build', 'sweep')));
const MINUTES = Number(opt('minutes', 110));
const CURVE_EVERY = Number(opt('curve-every', 1000));
const AVERAGE = 5,
  SAVE_EVERY = 250;
if (!(MINUTES > 0) || !(CURVE_EVERY > 0)) throw new Error('--minutes and --curve-every must be positive numbers');

// What every configuration shares: the shipped recipe's low-resource settings (a small shared
// BPE vocabulary and small batches, so more updates per pass over the 14,833 pairs); each
// configuration changes the size (l2-ff512 is the shipped recipe itself).
const { layers: _layers, 'd-ff': _dff, ...COMMON } = RECIPE_FLAGS;
const CONFIGS = [
  { id: 'l3-ff1024', label: '3+3 layers, d_ff 1024', flags: { layers: '3', 'd-ff': '1024' } },
  {
    id: 'l2-ff512',
    label: '2+2 layers, d_ff 512',
    flags: { layers: RECIPE_FLAGS.layers, 'd-ff': RECIPE_FLAGS['d-ff'] },
  },
  {
    id: 'earlier-recipe',
    label: '3+3 layers, d_ff 1024, 5,000 BPE, 4,096 tokens',
    flags: { layers: '3', 'd-ff': '1024', 'vocab-size': '5000', 'max-tokens': '4096', warmup: '1000' },
  },
  // Araabi & Monz 2020's settings for 5k-20k sentence pairs (2 heads, d_ff 512, attention and
  // activation dropout 0.3, decoder LayerDrop 0.3, source word dropout 0.1, high label smoothing),
  // at their depth and at the shipped one (LayerDrop needs layers to drop: none at 2).
  {
    id: 'am-l5',
    label:
      'Araabi–Monz: 5+5 layers, 2 heads, d_ff 512, attention/activation dropout 0.3, decoder LayerDrop 0.3, word dropout 0.1, smoothing 0.5',
    flags: {
      layers: '5',
      'd-ff': '512',
      heads: '2',
      'attention-dropout': '0.3',
      'activation-dropout': '0.3',
      'dec-layer-drop': '0.3',
      'word-dropout': '0.1',
      'label-smoothing': '0.5',
    },
  },
  {
    id: 'am-l2',
    label:
      'Araabi–Monz at 2+2 layers: 2 heads, d_ff 512, attention/activation dropout 0.3, word dropout 0.1, smoothing 0.5',
    flags: {
      layers: '2',
      'd-ff': '512',
      heads: '2',
      'attention-dropout': '0.3',
      'activation-dropout': '0.3',
      'word-dropout': '0.1',
      'label-smoothing': '0.5',
    },
  },
];
// The same 2+2 settings on corpus v2 (scripts/data/corpora.py): the sentences 4 times over and
// the dictionary's items, tagged <lex>, at a controlled share of 30% of every batch (their natural
// share would be 85%), with a 6,000-token vocabulary for the items' words; and the honest
// ablation, whose dictionary lacks every item of an entry that holds a held-out sentence.
const AM_L2 = CONFIGS.find((c) => c.id === 'am-l2');
for (const [corpus, what] of [
  ['v2', 'with the dictionary (corpus v2)'],
  ['v2-ablation', "with the dictionary less the held-out sentences' entries (corpus v2 ablation)"],
])
  CONFIGS.push({
    id: `am-l2-${corpus}`,
    label: `Araabi–Monz at 2+2 layers, ${what}, 30% dictionary items per batch, 6,000 BPE`,
    corpus,
    copies: 4,
    flags: { ...AM_L2.flags, 'vocab-size': '6000', 'lexicon-share': '0.3' },
  });
// The recurrent kinds at the same budget (RNN against Transformer at equal time): their own model
// flags on the same data, vocabulary, batches and label smoothing; each kind's own learning rate
// and clip (attn train's defaults for the kind).
const RNN_COMMON = {
  'vocab-size': RECIPE_FLAGS['vocab-size'],
  'max-tokens': RECIPE_FLAGS['max-tokens'],
  'label-smoothing': RECIPE_FLAGS['label-smoothing'],
  seed: RECIPE_FLAGS.seed,
};
CONFIGS.push(
  {
    id: 'rnnsearch',
    label: 'RNNsearch (additive), emb 256, hidden 256',
    base: RNN_COMMON,
    flags: { model: 'rnnsearch', emb: '256', hidden: '256' },
  },
  {
    id: 'luong-general',
    label: 'Luong (general), emb 256, hidden 256',
    base: RNN_COMMON,
    flags: { model: 'luong', score: 'general', emb: '256', hidden: '256' },
  }
);
const only = (opt('only', '') || '').split(',').filter(Boolean);
for (const id of only)
  if (!CONFIGS.some((c) => c.id === id))
    throw new Error(`--only ${id}: the configurations are ${CONFIGS.map((c) => c.id).join(', ')}`);
const chosen = CONFIGS.filter((c) => !only.length || only.includes(c.id));
if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build:engine first`);
if (!existsSync(path.join(DATA, 'test.tsv'))) throw new Error(`${DATA} is missing: run npm run data first`);
// --coverage FILE: train nothing; the test split's coverage (lib/translate-coverage.mjs) written anew into
// FILE (a sweep.json kept in docs/translate/) and the docs table made from it rewritten.
if (opt('coverage')) {
  const file = path.resolve(opt('coverage'));
  const kept = JSON.parse(readFileSync(file, 'utf8'));
  kept.coverage = coverage(DATA);
  kept.coverageCommand = `node experiments/translate-sweep.mjs --coverage ${path.relative(root, file)}`;
  writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`);
  for (const f of writeDocs(root, (name) => name === 'translate-split').files) console.log(`${f} rewritten`);
  process.exit(0);
}
let store = keepBinary(OUT, built, { replace: args.includes('--fresh-binary') });
let attn = store.attn;

const dir = (c) => path.join(OUT, c.id);
const runFile = (c) => path.join(dir(c), 'de-en.safetensors');
const ckpts = (c) => checkpoints(runFile(c));
const wallOf = (c) => readWall(dir(c));

function run(argv) {
  return new Promise((resolve, reject) => {
    const p = spawn(attn, argv, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`attn ${argv.join(' ')} exited ${code}`))));
  });
}
const lastJson = (out) => JSON.parse(out.trim().split('\n').pop());

// Train one configuration until it has had MINUTES of CPU time (summed over resumed runs).
async function train(c) {
  mkdirSync(dir(c), { recursive: true });
  const left = MINUTES * 60 - wallOf(c).cpuSeconds;
  if (left < 30) return;
  const last = ckpts(c).at(-1);
  const argv = [
    'train',
    '--task',
    'parallel',
    '--steps',
    '1000000',
    '--save-every',
    String(SAVE_EVERY),
    '--keep',
    '1000',
    '--log-every',
    '50',
    '--threads',
    '1',
    '--out',
    runFile(c),
  ];
  if (last) argv.push('--resume', last);
  else {
    // v1: the sentences as they are; v2 and its ablation: composed into the configuration's
    // folder, which a resumed run reads again
    const file = c.corpus ? trainingFile(c.corpus, DATA, dir(c), c.copies) : path.join(DATA, 'train.tsv');
    argv.push('--train', file, '--valid', path.join(DATA, 'valid.tsv'));
    for (const [k, v] of Object.entries({ ...(c.base ?? COMMON), ...c.flags })) argv.push(`--${k}`, v);
  }
  console.error(`== ${c.id}: attn ${argv.join(' ')} (${(left / 60).toFixed(1)} CPU min)`);
  const stderr = createWriteStream(path.join(dir(c), 'train.log'), { flags: 'a' });
  const sitting = () =>
    trainSitting({
      attn,
      cwd: root,
      argv,
      run: runFile(c),
      dir: dir(c),
      threads: 1,
      cpuSeconds: MINUTES * 60 - wallOf(c).cpuSeconds,
      stderr,
      meta: { cpu: cpuName(), binary: store.binarySha256.slice(0, 12) },
    });
  let code = await sitting();
  if (code === 132) {
    // SIGILL: OUT's copy was built for another CPU (-march=native); the checkout's binary takes
    // over from the same checkpoint (float sums may then differ in the last bits)
    console.error(`${attn} cannot run on this CPU (${cpuName()}): continuing with ${built}`);
    store = keepBinary(OUT, built, { replace: true });
    attn = store.attn;
    code = await sitting();
  }
  if (code !== 0 && code !== 130) throw new Error(`${c.id}: attn train exited ${code}`);
}

// At most two attn processes at a time, one thread each.
async function pool(tasks, width = 2) {
  const results = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    })
  );
  return results;
}

if (!args.includes('--skip-train')) await Promise.all(chosen.map(train));

const valid = path.join(DATA, 'valid.tsv'),
  test = path.join(DATA, 'test.tsv');
const results = [];
for (const c of chosen) {
  const all = ckpts(c);
  if (all.length < AVERAGE) {
    console.error(`${c.id}: fewer than ${AVERAGE} checkpoints, not scored`);
    continue;
  }
  const wall = wallOf(c);
  const lastStep = stepOf(all.at(-1));
  const curveFile = path.join(dir(c), 'curve.json');
  const curve = existsSync(curveFile) ? JSON.parse(readFileSync(curveFile, 'utf8')) : {};
  const wanted = all.filter((f, i) => stepOf(f) % CURVE_EVERY === 0 || i >= all.length - AVERAGE);
  await pool(
    wanted
      .filter((f) => curve[stepOf(f)] === undefined)
      .map((f) => async () => {
        curve[stepOf(f)] = lastJson(
          await run(['eval', '--checkpoint', f, '--test', valid, '--beam', '1', '--threads', '1'])
        ).bleu;
        console.error(`${c.id}: step ${stepOf(f)}, validation BLEU (greedy) ${curve[stepOf(f)].toFixed(2)}`);
      })
  );
  writeFileSync(curveFile, `${JSON.stringify(curve, null, 1)}\n`);
  const lastFive = all.slice(-AVERAGE);
  const best = lastFive.reduce((a, f) => (curve[stepOf(f)] > curve[stepOf(a)] ? f : a));
  const avg = path.join(dir(c), 'average.safetensors');
  await run(['average', '--out', avg, '--inputs', lastFive.join(',')]);
  const [beam, greedy, single] = await pool([
    () =>
      run([
        'eval',
        '--checkpoint',
        avg,
        '--test',
        test,
        '--beam',
        '4',
        '--threads',
        '1',
        '--hyp',
        path.join(dir(c), 'hyp.beam4.txt'),
      ]),
    () => run(['eval', '--checkpoint', avg, '--test', test, '--beam', '1', '--threads', '1']),
    () => run(['eval', '--checkpoint', best, '--test', test, '--beam', '4', '--threads', '1']),
  ]);
  const log = existsSync(path.join(dir(c), 'train.log')) ? readFileSync(path.join(dir(c), 'train.log'), 'utf8') : '';
  const losses = [...log.matchAll(/step (\d+)\/\d+ loss ([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  results.push({
    id: c.id,
    label: c.label,
    flags: { ...(c.base ?? COMMON), ...c.flags },
    corpus: c.corpus ?? 'v1',
    minutes: wall.cpuSeconds / 60,
    wallMinutes: wall.seconds / 60,
    steps: lastStep,
    params: Number(log.match(/(\d+) parameters/)?.[1] ?? 0),
    trainLoss: losses.at(-1)?.[1] ?? null,
    curve: Object.entries(curve)
      .map(([s, b]) => ({ step: Number(s), minutes: ((Number(s) / lastStep) * wall.cpuSeconds) / 60, validBleu: b }))
      .sort((a, b) => a.step - b.step),
    test: {
      averageBeam4: lastJson(beam).bleu,
      averageGreedy: lastJson(greedy).bleu,
      bestSingleBeam4: lastJson(single).bleu,
      bestStep: stepOf(best),
    },
  });
}
if (!results.length) throw new Error('no run has enough checkpoints to score');

const cover = coverage(DATA);

const f2 = (x) => x.toFixed(2);
const table = [
  '| configuration | parameters | steps in the time | train loss at the end | test BLEU: average of last 5, beam 4 | greedy | best single (step), beam 4 |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...results.map(
    (r) =>
      `| ${r.label} | ${(r.params / 1e6).toFixed(2)} M | ${r.steps} (${r.minutes.toFixed(0)} CPU min, ${r.wallMinutes.toFixed(0)} wall min, 1 thread) | ${r.trainLoss ?? '—'} | ` +
      `**${f2(r.test.averageBeam4)}** | ${f2(r.test.averageGreedy)} | ${f2(r.test.bestSingleBeam4)} (${r.test.bestStep}) |`
  ),
  '',
  '| test split (836 pairs) | words | unseen in train.tsv | sentences with an unseen word | train.tsv word types seen once | unseen with the dictionary (its ablation) | sentences with one (ablation) |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...cover.map(
    (c) =>
      `| ${c.lang === 'de' ? 'German (source)' : 'English (reference)'} | ${c.testWords} | ${(100 * c.unseenWords).toFixed(1)}% | ` +
      `${(100 * c.sentencesWithUnseen).toFixed(1)}% | ${(100 * c.trainSingletons).toFixed(1)}% of ${c.trainTypes} | ` +
      (c.withLexicon
        ? `${(100 * c.withLexicon.unseenWords).toFixed(1)}% (${(100 * c.withAblation.unseenWords).toFixed(1)}%) | ` +
          `${(100 * c.withLexicon.sentencesWithUnseen).toFixed(1)}% (${(100 * c.withAblation.sentencesWithUnseen).toFixed(1)}%) |`
        : '— | — |')
  ),
].join('\n');
writeFileSync(
  path.join(OUT, 'sweep.json'),
  `${JSON.stringify({ common: COMMON, results, coverage: cover }, null, 2)}\n`
);
writeFileSync(path.join(OUT, 'sweep.md'), `${table}\n`);
mkdirSync(path.join(root, 'docs', 'reproduce'), { recursive: true });
writeFileSync(
  path.join(root, 'docs', 'reproduce', 'translate-sweep.svg'),
  lineChartSvg(
    results.map((r) => ({
      label: `${r.label} (${(r.params / 1e6).toFixed(1)} M)`,
      points: r.curve.map((p) => [p.minutes, p.validBleu]),
    })),
    {
      title: 'German→English: validation BLEU (greedy) against training CPU time, 1 thread each',
      xLabel: 'training CPU minutes',
      yLabel: 'validation BLEU',
    }
  )
);
console.log(table);
console.log('curve: docs/reproduce/translate-sweep.svg');
