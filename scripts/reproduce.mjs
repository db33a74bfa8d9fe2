// Reproduces, in small and natively, the findings of Bahdanau et al. 2015 (RNNsearch vs.
// RNNencdec, alignment) and Vinyals et al. 2015 / 2016 (Ptr-Net on convex hull, TSP, sorting)
// with the engine's own `attn` command, and prints a table: paper | ours | training cost.
//   npm run reproduce                  every run (tens of minutes on 2 cores)
//   npm run reproduce -- --only hull5  runs whose id contains the word (or one of a,b,c)
//   npm run reproduce -- --jobs 2      two runs at a time (one core each)
//   npm run reproduce -- --only translate-de-en   the guide's German→English translator, from
//                                      data to the page's model (scripts/translator.mjs; its
//                                      own flags follow, e.g. --skip-train)
// Needs build/native/attn (npm run build:engine). Fixed seeds: reruns give the same numbers.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const attn = path.join(root, 'build', 'native', 'attn');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-reproduce-'));
const pct = (x) => `${(100 * x).toFixed(1)}%`;

// The longest source lengths of the length experiment (Bahdanau et al., Fig. 2 in small).
const LONG = [26, 27, 28, 29, 30];
const bucket = (r) => {
  const v = LONG.map((n) => r.per_length[String(n)]).filter((x) => x !== undefined);
  return v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
};

const runs = [
  {
    id: 'dates', what: 'RNNsearch, dates → ISO (held-out)',
    paper: 'target: AER ≤ 10%, sequence accuracy ≥ 99%',
    args: ['--model', 'rnnsearch', '--task', 'dates', '--hidden', '64', '--steps', '600'],
    show: (r) => `sequence ${pct(r.sequence_accuracy)}, AER ${pct(r.aer)}`,
  },
  {
    id: 'search30', what: 'RNNsearch, phrases of 2–30 words',
    paper: 'RNNsearch holds up on long sentences (Fig. 2)',
    args: ['--model', 'rnnsearch', '--task', 'phrases', '--n-min', '2', '--n-max', '30', '--hidden', '64', '--steps', '1500'],
    show: (r) => `sequence ${pct(r.sequence_accuracy)}; lengths 26–30: ${pct(bucket(r))}`,
  },
  {
    id: 'encdec30', what: 'RNNencdec, phrases of 2–30 words',
    paper: 'RNNencdec degrades with length (Fig. 2)',
    args: ['--model', 'rnnencdec', '--task', 'phrases', '--n-min', '2', '--n-max', '30', '--hidden', '64', '--steps', '1500'],
    show: (r) => `sequence ${pct(r.sequence_accuracy)}; lengths 26–30: ${pct(bucket(r))}`,
  },
  {
    id: 'tsp5', what: 'Ptr-Net + glimpse, TSP n = 5 (optimal labels, beam 5)',
    paper: 'tour 2.12 vs optimal 2.12; target within 2%',
    args: ['--model', 'pointer', '--task', 'tsp', '--n', '5', '--hidden', '128', '--embed', '128', '--glimpse',
      '--steps', '6000', '--lr-final', '0.0001', '--decay-from', '4000', '--beam', '5', '--eval-every', '2000'],
    show: (r) => `tour ${r.tour_length.toFixed(3)} vs optimal ${r.optimal_tour_length.toFixed(3)} (+${pct(r.tour_length / r.optimal_tour_length - 1)}); exact ${pct(r.accuracy)}`,
  },
  {
    id: 'sort5', what: 'Read-Process-Write + glimpse, sorting 5 numbers',
    paper: '90% exact (Order Matters, with glimpses)',
    args: ['--model', 'pointer', '--task', 'sort', '--n', '5', '--hidden', '64', '--glimpse', '--encoder', 'rpw', '--steps', '1000', '--batch', '64', '--lr', '0.003'],
    show: (r) => `exact ${pct(r.accuracy)}`,
  },
  {
    id: 'hull5', what: 'Ptr-Net + glimpse, convex hull n = 5',
    paper: '92.0% accuracy (5–50 model, tested at n = 5); target ≥ 90%, area ≥ 99%',
    args: ['--model', 'pointer', '--task', 'convex-hull', '--n', '5', '--hidden', '128', '--embed', '128', '--glimpse',
      '--steps', '24000', '--lr-final', '0.0001', '--decay-from', '14000', '--eval-every', '4000'],
    show: (r) => `accuracy ${pct(r.accuracy)}, area ${pct(r.area_coverage)}, invalid ${pct(r.invalid_rate)}`,
  },
  {
    id: 'hull10', what: 'Ptr-Net + glimpse, convex hull n = 10',
    paper: '87.0% accuracy; target ≥ 80%',
    args: ['--model', 'pointer', '--task', 'convex-hull', '--n', '10', '--hidden', '128', '--embed', '128', '--glimpse',
      '--steps', '40000', '--lr-final', '0.0001', '--decay-from', '24000', '--eval-every', '4000'],
    show: (r) => `accuracy ${pct(r.accuracy)}, area ${pct(r.area_coverage)}, invalid ${pct(r.invalid_rate)}`,
  },
];

function run(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(attn, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`attn ${args.join(' ')} exited ${code}`))));
  });
}

if (!existsSync(attn)) {
  console.error(`${attn} is missing: run npm run build:engine first`);
  process.exit(1);
}
const flag = (name, def) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : def);
const only = flag('--only', '');
if (only === 'translate-de-en') {
  const rest = process.argv.slice(2).filter((a, i, all) => a !== '--only' && all[i - 1] !== '--only');
  const r = spawn(process.execPath, [path.join(root, 'scripts', 'translator.mjs'), ...rest], { stdio: 'inherit' });
  r.on('close', (code) => process.exit(code ?? 1));
  await new Promise(() => {});
}
const jobs = Math.max(1, Number(flag('--jobs', '1')));  // runs at once (each uses one core)
const todo = runs.filter((x) => only.split(',').some((w) => x.id.includes(w)));
const results = new Array(todo.length);
let next = 0;
async function worker() {
  while (next < todo.length) {
    const i = next++, r = todo[i];
    console.error(`\n== ${r.what}: attn train ${r.args.join(' ')}`);
    const res = await run(['train', ...r.args, '--seed', '1', '--out', path.join(tmp, `${r.id}.safetensors`), '--eval-samples', '1000', '--log-every', '1000']);
    results[i] = { ...r, res };
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
const rows = results;
const byId = Object.fromEntries(rows.map((r) => [r.id, r.res]));
console.log('\n| experiment | paper | ours | training cost |\n| --- | --- | --- | --- |');
for (const r of rows)
  console.log(`| ${r.what} | ${r.paper} | ${r.show(r.res)} | ${r.res.steps} steps, ${(r.res.train_seconds / 60).toFixed(1)} min |`);
if (byId.search30 && byId.encdec30) {
  const a = bucket(byId.search30), b = bucket(byId.encdec30);
  const ratio = b > 0 ? `${(a / b).toFixed(1)}×` : (a > 0 ? 'unbounded (RNNencdec got none right)' : 'undefined');
  console.log(`\nLongest bucket (26–30 words): RNNsearch ${pct(a)} vs RNNencdec ${pct(b)}; ratio ${ratio} (target ≥ 2×)`);
}
