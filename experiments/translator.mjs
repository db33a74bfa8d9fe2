// The German→English translator of the guide (§7), from a clean checkout to the page:
//   npm run reproduce -- --only translate-de-en      (or: node experiments/translator.mjs)
// 1. data: build/data/de-en from the Debian package trans-de-en (npm run data)
// 2. train: attn train --task parallel (the recipe below, 2 threads), checkpoints every
//    SAVE_EVERY steps; an interrupted run continues from its newest checkpoint
// 3. average the last AVERAGE checkpoints (attn average)
// 4. export: the average's float16 copy (attn export --half), the file the page ships
// 5. BLEU on the test split (beam 4, alpha 0.6, sacreBLEU's 13a tokenisation): the shipped
//    float16 file (the figure index.json and docs/translator.md give), the float32 average it came from
//    (also greedy), the best single checkpoint (chosen on the validation split), and the
//    untranslated source as a baseline; hypotheses written beside the run for any BLEU tool
// 6. the shipped file copied, byte for byte, to web/public/models/translate-de-en.safetensors,
//    the first EXAMPLES test pairs for the page, the training data's German words (the page
//    marks the words it never saw), index.json's entry (with the shipped file's BLEU and the
//    training time)
// 7. fixture: the native translations (beam 4) of the first 100 test sentences, which the wasm
//    engine must reproduce token for token (tests/node/translate.test.mjs)
// The run lives under the user's cache folder (experiments/lib/run-store.mjs:
// $ATTNLAB_RUNS/NAME, else $XDG_CACHE_HOME/attnlab/runs/NAME, else ~/.cache/attnlab/runs/NAME)
// with its own copy of the attn binary; build/translate links to it, so a new checkout continues
// the same run. --background starts the same command detached at nice 19 (output in the run's
// log.txt) and returns; run it again at any time: a sitting in progress is left alone, an
// interrupted one continues from the newest checkpoint. A background run trains and scores but
// ships nothing (as --no-export): the same command with --skip-train exports its model.
// Options: --steps N (default the recipe's), --name NAME (the run's folder; default
// translate-de-en-CORPUS), --out DIR (a plain folder instead of the cache's), --fresh
// (start over), --skip-train (evaluate and export an existing run), --threads N,
// --set k=v,... (recipe flags, for a sweep), --no-export (evaluate only: leave the page's model),
// --corpus v1|v2|v2-ablation (v1, the sentences: the shipped recipe; v2, the sentences
// --sentence-copies K times (default 4) and the dictionary's 350,177 items, with the v2 recipe;
// v2-ablation, without the items of the held-out sentences' entries), --ranks N (mpirun -np N,
// one thread a rank), --save-every N, --limit N (score only the first N test pairs: a quick check),
// --curve (score every kept checkpoint on the validation split: report.json's curve).
// Long because: the translator's whole recipe, from data to the shipped file and its report,
// as one script a reader follows top to bottom (sittings: lib/translate-run.mjs).
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuName, detach, lockRun, openRun, runningPid } from './lib/run-store.mjs';
import {
  RECIPE_FLAGS as SHIPPED_RECIPE,
  RECIPE_V2_FLAGS,
  checkpoints,
  readWall,
  stepOf,
  trainSitting,
  trainingFile,
} from './lib/translate-run.mjs';
import { trainingWords } from '../web/demos/translate/words.js';
import { writeDocs } from '../scripts/lib/readme-tables.mjs';

// A failure is one line on stderr and exit 1 (an interrupted sitting: exit 130, run again).
process.on('uncaughtException', (e) => {
  console.error(`translator: ${e.message}`);
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

const NAME = 'translate-de-en';
const DATA = path.join(root, 'build', 'data', 'de-en');
const STEPS = Number(opt('steps', 20488)); // 110 minutes of the sweep's run on 1 thread
// One thread, as the shipped run trained (the other core free for a second run; --threads 2
// trains faster, with float sums in another order).
const RANKS = Number(opt('ranks', 1));
const THREADS = RANKS > 1 ? '1' : String(opt('threads', 1));
const CORPUS = opt('corpus', 'v1');
const COPIES = Number(opt('sentence-copies', 4));
if (has('fresh') && has('background')) throw new Error('--fresh with --background: start over in the foreground first');
if (!existsSync(built)) must('node', [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
// The run's folder: --out, or the named run in the user's cache (build/translate links to it).
const RUN_NAME = opt('name', `${NAME}-${CORPUS}`);
let store = opt('out', null)
  ? { dir: path.resolve(opt('out')), attn: built, binarySha256: null }
  : openRun({ name: RUN_NAME, binary: built, link: path.join(root, 'build', 'translate'), replace: has('fresh') });
const OUT = store.dir;
const RUN = path.join(OUT, 'de-en.safetensors');
let attn = store.attn;
if (has('background')) {
  const pid = runningPid(OUT);
  if (pid) console.log(`run ${OUT} is already training (process ${pid}); log: ${path.join(OUT, 'log.txt')}`);
  else {
    // the background trains and scores (report.json in the run's folder); shipping the model
    // into the checkout is a step of its own: the same command with --skip-train
    const again = [...args.filter((a) => a !== '--background'), ...(has('no-export') ? [] : ['--no-export'])];
    const child = detach({ dir: OUT, script: fileURLToPath(import.meta.url), args: again, cwd: root });
    console.log(
      `run ${OUT}: training in the background at nice 19 (process ${child}); log: ${path.join(OUT, 'log.txt')}`
    );
  }
  process.exit(0);
}
const SAVE_EVERY = Number(opt('save-every', 250)),
  KEEP = 12,
  AVERAGE = 5,
  EXAMPLES = 40,
  PARITY = 100;
const LIMIT = opt('limit', null);
// Ten sentences typed for the page and the report (none of them is in the corpus, checked when
// written): everyday German the reader might try first. The page lists them after the test
// pairs, without a reference; report.md gives the shipped file's translations.
const TYPED = Object.freeze([
  'Ich habe heute keine Zeit.',
  'Wo ist der Bahnhof?',
  'Der Hund schläft im Garten.',
  'Er trinkt jeden Morgen Kaffee.',
  'Das Wetter ist heute schön.',
  'Können Sie mir bitte helfen?',
  'Wir fahren morgen nach Berlin.',
  'Meine Schwester liest gern Bücher.',
  'Das Essen war sehr gut.',
  'Ich verstehe nicht, was du meinst.',
]);
// The training file of the corpus (v2: composed into OUT once per run, for training and for the
// words the page marks).
let composed = null;
const trainFile = () => (composed ??= trainingFile(CORPUS, DATA, OUT, COPIES));
if (!['v1', 'v2', 'v2-ablation'].includes(CORPUS))
  throw new Error(`--corpus ${CORPUS}: the corpora are v1, v2, v2-ablation`);
if (!(RANKS >= 1 && Number.isInteger(RANKS))) throw new Error(`--ranks ${opt('ranks')}: a whole number of at least 1`);
// The recipe (experiments/lib/translate-run.mjs): v1's is the best of the equal-time sweep.
const RECIPE_FLAGS = { ...(CORPUS === 'v1' ? SHIPPED_RECIPE : RECIPE_V2_FLAGS) };
// --set dropout=0.2,vocab-size=4000 changes recipe flags (for a sweep; use another --out)
for (const kv of (opt('set', '') || '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (!(k in RECIPE_FLAGS) || v === undefined)
    throw new Error(`--set ${kv}: the recipe's flags are ${Object.keys(RECIPE_FLAGS).join(', ')}`);
  RECIPE_FLAGS[k] = v;
}
const RECIPE = Object.entries(RECIPE_FLAGS).flatMap(([k, v]) => [`--${k}`, v]);
const MODELS = path.join(root, 'web', 'public', 'models');
const FIXTURE = path.join(root, 'tests', 'fixtures', `${NAME}-parity.jsonl`);

function must(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 28,
    ...opts,
  });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}`);
  return r.stdout;
}
const json = (out) => JSON.parse(out.trim().split('\n').pop());
const ckpts = () => checkpoints(RUN);

if (!existsSync(path.join(DATA, 'test.tsv')))
  must('bash', [path.join(root, 'scripts', 'data.sh')], { stdio: 'inherit' });
if (has('fresh')) {
  for (const f of ['de-en.safetensors', 'de-en.safetensors.ckpt', 'wall.json', 'report.json', 'report.md'])
    rmSync(path.join(OUT, f), { recursive: true, force: true });
}
mkdirSync(OUT, { recursive: true });

async function train() {
  const last = ckpts().at(-1);
  if (last && stepOf(last) >= STEPS) return;
  const argv = [
    'train',
    '--task',
    'parallel',
    '--steps',
    String(STEPS),
    '--save-every',
    String(SAVE_EVERY),
    '--keep',
    String(KEEP),
    // the newest checkpoint keeps Adam's moments (a resume reads it), the older ones weights only
    '--keep-optimizer',
    '1',
    '--log-every',
    '50',
    '--threads',
    THREADS,
    '--out',
    RUN,
  ];
  if (last) argv.push('--resume', last);
  else argv.push('--train', trainFile(), '--valid', path.join(DATA, 'valid.tsv'), ...RECIPE);
  console.error(`== ${RANKS > 1 ? `mpirun -np ${RANKS} ` : ''}${attn} ${argv.join(' ')}`);
  // wall time summed over sittings in OUT/wall.json (with the CPU and the binary of each); Ctrl-C
  // saves a checkpoint and stops
  const sitting = () =>
    trainSitting({
      attn,
      cwd: root,
      argv,
      run: RUN,
      dir: OUT,
      threads: THREADS,
      ranks: RANKS,
      meta: { cpu: cpuName(), binary: store.binarySha256?.slice(0, 12) ?? null },
    });
  let code = await sitting();
  if (code === 132 && store.binarySha256) {
    // SIGILL: the run's copy was built for another CPU (-march=native); this checkout's binary
    // takes over from the same checkpoint (float sums may then differ in the last bits)
    console.error(`${attn} cannot run on this CPU (${cpuName()}): continuing with ${built}`);
    store = openRun({ name: RUN_NAME, binary: built, link: path.join(root, 'build', 'translate'), replace: true });
    attn = store.attn;
    code = await sitting();
  }
  if (code !== 0)
    throw new Error(`attn train exited ${code}${code === 130 ? ' (interrupted; run again to continue)' : ''}`);
}

const limit = LIMIT ? ['--limit', String(LIMIT)] : [];
const evalTest = (ckpt, extra = []) =>
  json(
    must(attn, [
      'eval',
      '--checkpoint',
      ckpt,
      '--test',
      path.join(DATA, 'test.tsv'),
      '--threads',
      THREADS,
      ...limit,
      ...extra,
    ])
  );

if (!has('skip-train')) {
  const release = lockRun(OUT);
  await train();
  release();
}
const all = ckpts();
const TRAINED = all.length ? stepOf(all.at(-1)) : 0; // the steps taken (a run stopped early: fewer than --steps)
const wall = readWall(OUT);
if (all.length < AVERAGE) throw new Error(`need at least ${AVERAGE} checkpoints in ${RUN}.ckpt, found ${all.length}`);
const avg = path.join(OUT, 'average.safetensors');
must(attn, ['average', '--out', avg, '--dir', `${RUN}.ckpt`, '--last', String(AVERAGE)]);

// The best single checkpoint among the averaged ones, by greedy BLEU on the whole validation
// split (decoding steps the decoder with a key/value cache: about a second per checkpoint).
// --curve: every kept checkpoint (up to KEEP) is scored the same way, for the learning curve of
// report.json; the best is still chosen among the averaged ones.
let best = null;
const curve = [];
const averaged = new Set(all.slice(-AVERAGE));
for (const c of has('curve') ? all : all.slice(-AVERAGE)) {
  const v = json(
    must(attn, [
      'eval',
      '--checkpoint',
      c,
      '--test',
      path.join(DATA, 'valid.tsv'),
      '--beam',
      '1',
      '--threads',
      THREADS,
      ...limit,
    ])
  );
  console.error(`valid BLEU (greedy) at step ${stepOf(c)}: ${v.bleu.toFixed(2)}`);
  curve.push({ step: stepOf(c), validBleu: Number(v.bleu.toFixed(2)) });
  if (averaged.has(c) && (!best || v.bleu > best.valid)) best = { ckpt: c, step: stepOf(c), valid: v.bleu };
}
// The file the page ships: the average in float16. Its BLEU is the shipped model's.
const shipped = path.join(OUT, 'average-f16.safetensors');
must(attn, ['export', '--checkpoint', avg, '--out', shipped, '--half']);
const rows = {
  copy: json(
    must(attn, [
      'eval',
      '--test',
      path.join(DATA, 'test.tsv'),
      '--copy-source',
      ...limit,
      '--hyp',
      path.join(OUT, 'hyp.copy.txt'),
    ])
  ),
  single: evalTest(best.ckpt, ['--beam', '4', '--hyp', path.join(OUT, 'hyp.single.txt')]),
  averageGreedy: evalTest(avg, ['--beam', '1', '--hyp', path.join(OUT, 'hyp.greedy.txt')]),
  average: evalTest(avg, ['--beam', '4', '--hyp', path.join(OUT, 'hyp.beam4.txt')]),
  shipped: evalTest(shipped, ['--beam', '4', '--hyp', path.join(OUT, 'hyp.shipped.txt')]),
};

const b = (r) => r.bleu.toFixed(2);
const table = [
  `| system (test split, ${rows.average.sentences} pairs, sacreBLEU 13a) | BLEU |`,
  '| --- | --- |',
  `| copy the German source | ${b(rows.copy)} |`,
  `| best single checkpoint (step ${best.step}, chosen on valid), beam 4 | ${b(rows.single)} |`,
  `| average of the last ${AVERAGE} checkpoints, greedy | ${b(rows.averageGreedy)} |`,
  `| average of the last ${AVERAGE} checkpoints, beam 4, α 0.6 (float32) | ${b(rows.average)} |`,
  `| the shipped file: that average in float16, beam 4, α 0.6 | **${b(rows.shipped)}** |`,
].join('\n');
writeFileSync(
  path.join(OUT, 'report.json'),
  `${JSON.stringify(
    {
      recipe: RECIPE_FLAGS,
      corpus: CORPUS,
      sentenceCopies: CORPUS === 'v1' ? 1 : COPIES,
      ranks: RANKS,
      steps: TRAINED,
      limit: LIMIT ? Number(LIMIT) : null,
      rows,
      best,
      wall,
    },
    null,
    2
  )}\n`
);
if (LIMIT && !has('no-export'))
  throw new Error('--limit scores part of the test split: add --no-export (a quick check never ships)');
if (has('no-export')) {
  console.log(table);
  process.exit(0);
}

// The scored float16 file to the page, then the parity fixture from it (what the page loads).
const file = path.join(MODELS, `${NAME}.safetensors`);
copyFileSync(shipped, file);
writeFileSync(
  path.join(MODELS, `${NAME}.LICENSE.txt`),
  [
    `${NAME}.safetensors and ${NAME}.examples.json are derived from the example sentences of the Ding`,
    'German-English dictionary (Frank Richter, TU Chemnitz), as packaged by Debian in trans-de-en.',
    'They are distributed under the same licence, the GNU General Public License version 2 or later.',
    "The package's copyright file and the licence text follow.",
    '',
    readFileSync(path.join(DATA, 'COPYRIGHT.debian'), 'utf8'),
    readFileSync(path.join(DATA, 'GPL-2'), 'utf8'),
  ].join('\n')
);
const test = readFileSync(path.join(DATA, 'test.tsv'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.split('\t'));
// The typed sentences, translated natively by the shipped file (beam 4): the report's table; the
// page translates them itself when the reader picks one.
const inCorpus = new Set(
  [trainFile(), ...['valid.tsv', 'test.tsv'].map((f) => path.join(DATA, f))].flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .map((l) => l.split('\t')[0])
  )
);
const clash = TYPED.filter((de) => inCorpus.has(de));
if (clash.length) throw new Error(`typed sentences found in the corpus: ${clash.join(' | ')}`);
const typedFile = path.join(OUT, 'typed.txt');
writeFileSync(typedFile, `${TYPED.join('\n')}\n`);
const typed = must(attn, [
  'translate',
  '--checkpoint',
  shipped,
  '--input',
  typedFile,
  '--beam',
  '4',
  '--threads',
  THREADS,
])
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .map((r, i) => ({ de: TYPED[i], model: r.text }));
writeFileSync(
  path.join(MODELS, `${NAME}.examples.json`),
  `${JSON.stringify(
    {
      source: 'test split of build/data/de-en (Ding dictionary example sentences, Debian package trans-de-en, GPL-2+)',
      pairs: test.slice(0, EXAMPLES).map(([de, en]) => ({ de, en })),
      typed: TYPED,
    },
    null,
    1
  )}\n`
);
// The German words of the training data, for the page's unknown-word marks (the source side of
// the file the model trained on, tag tokens left out).
const words = trainingWords(readFileSync(trainFile(), 'utf8').split('\n').filter(Boolean));
writeFileSync(
  path.join(MODELS, `${NAME}.words.json`),
  `${JSON.stringify({
    source: `${path.relative(root, trainFile())} (source side)`,
    count: words.length,
    words,
  })}\n`
);
writeFileSync(
  FIXTURE,
  must(attn, [
    'translate',
    '--checkpoint',
    file,
    '--input',
    path.join(DATA, 'test.tsv'),
    '--limit',
    String(PARITY),
    '--beam',
    '4',
    '--threads',
    THREADS,
  ])
);

const trainPairs = readFileSync(path.join(DATA, 'train.tsv'), 'utf8').split('\n').filter(Boolean).length;
const lexiconItems =
  CORPUS === 'v1'
    ? 0
    : JSON.parse(readFileSync(path.join(DATA, 'counts.json'), 'utf8'))[
        CORPUS === 'v2' ? 'lexicon' : 'lexicon_ablation'
      ];
// the parameters the exported file holds: the element counts of its tensors (safetensors header)
const exported = readFileSync(file);
const header = JSON.parse(exported.subarray(8, 8 + Number(exported.readBigUInt64LE(0))).toString('utf8'));
const params = Object.entries(header)
  .filter(([k]) => k !== '__metadata__')
  .reduce((sum, [, t]) => sum + t.shape.reduce((a, c) => a * c, 1), 0);
const indexFile = path.join(MODELS, 'index.json');
const index = JSON.parse(readFileSync(indexFile, 'utf8'));
index[NAME] = {
  file: `models/${NAME}.safetensors`,
  examples: `models/${NAME}.examples.json`,
  licenceFile: `models/${NAME}.LICENSE.txt`,
  words: `models/${NAME}.words.json`,
  section: 'decoder',
  bytes: statSync(file).size,
  steps: TRAINED,
  seconds: Math.round(wall.seconds),
  params,
  // the training threads (a run trained in several sittings records each sitting's)
  threads: Math.max(...wall.runs.map((r) => r.threads ?? Number(THREADS)), 1),
  // the BLEU of this very file (float16), not of the float32 average it was rounded from
  bleu: Number(rows.shipped.bleu.toFixed(2)),
  testPairs: rows.shipped.sentences,
  trainPairs,
  // the model config of the file's header: the page's captions read it here, not from the file
  config: JSON.parse(header.__metadata__?.attnlab ?? '{}'),
  command: `npm run reproduce -- --only ${NAME}${CORPUS === 'v1' ? '' : ` --corpus ${CORPUS}`}${RANKS > 1 ? ` --ranks ${RANKS}` : ''}  (${RANKS > 1 ? `mpirun -np ${RANKS} ` : ''}attn train --task parallel ${RECIPE.join(' ')} --steps ${TRAINED} --threads ${THREADS}; attn average --last ${AVERAGE}; attn export --half)`,
  data:
    `example sentences of the Ding German–English dictionary (Debian package trans-de-en), ${trainPairs.toLocaleString('en')} training pairs` +
    (lexiconItems
      ? ` (${COPIES} times over) and ${lexiconItems.toLocaleString('en')} of its word and phrase items`
      : ''),
  lexiconItems,
  ranks: RANKS,
  licence: 'GPL-2+ (the corpus; see models/translate-de-en.LICENSE.txt)',
};
writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
// the shipped file's row of docs/translator.md comes from index.json
for (const f of writeDocs(root, (name) => name === 'translate').files)
  console.log(`translator: ${f} rewritten from index.json`);

const report = [
  table,
  '',
  '| typed sentence | the shipped file, beam 4 |',
  '| --- | --- |',
  ...typed.map((r) => `| ${r.de} | ${r.model} |`),
  '',
  `training: ${TRAINED} steps, ${(wall.seconds / 60).toFixed(1)} min wall on ${THREADS} thread${THREADS === '1' ? '' : 's'}; model ${(params / 1e6).toFixed(2)} M parameters, ` +
    `${(statSync(file).size / 2 ** 20).toFixed(1)} MiB as float16`,
].join('\n');
writeFileSync(path.join(OUT, 'report.md'), `${report}\n`);
console.log(report);
