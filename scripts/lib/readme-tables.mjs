// The measured blocks of the repository's Markdown pages, written from committed source files,
// never typed in:
//   bench      docs/bench/bench.json ({meta, rows}: `npm run bench` writes build/bench.json,
//              `npm run bench -- --readme` copies it here and rewrites the table)
//   reproduce  docs/reproduce/results/*.json (one file per row, `npm run reproduce -- --readme`
//              writes them from build/reproduce/, keeping rows it has no new run for); rows of
//              table "seeds" form the main table, "seeds:<name>" and "single:<name>" their own
//              table reproduce-<name>
//   scaling    docs/bench/bench.json's scaling rows (Amdahl's fit and its predictions past 2 cores)
//   pool       docs/bench/pool-before.json and pool-after.json (`node bench/pool-bench.mjs --out
//              FILE`: the thread pool's 1 vs 2 threads beside neighbours, an older build's
//              binaries via --bin for "before"; `npm run bench -- --readme` rewrites the table)
//   translate  docs/translate/shipped.json (`node experiments/translate-shipped.mjs`: the shipped
//              file and the copy baseline scored by attn eval, the file's training record) and
//              web/public/models/index.json (the shipped file's time, threads and size)
//   translate-v2  docs/translate/v2-run.json (the corpus v2 run, from its report.json)
//   translate-sweep-rnn, translate-split  docs/translate/sweep-rnnsearch.json (RNNsearch against
//              the shipped Transformer recipe at equal CPU time: the sweep's sweep.json and
//              wall.json files; the test split's unseen words, the sweep's coverage)
//   lm         docs/lm/lm-prose.report.json (`node experiments/lm.mjs --skip-train` writes it)
//   dist-paper docs/distributed/on-paper.json (the assumptions of the multi-GPU estimate; the
//              figures are computed by scripts/lib/dist-estimate.mjs)
// Each block sits between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in one Markdown file of
// the repository (README.md, docs/**/*.md, ...: whichever holds its markers; markdownFiles lists
// them). `writeDocs` rewrites every block in the file that holds it, and
// tests/node/readme-figures.test.mjs checks that each file holds exactly what this writes.
// Long because: one writer per generated block, all sharing the block markers and the number
// formatting.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { onPaperTables } from './dist-estimate.mjs';

export const BENCH_SOURCE = 'docs/bench/bench.json';
export const REPRODUCE_SOURCES = 'docs/reproduce/results';
export const POOL_SOURCES = ['docs/bench/pool-before.json', 'docs/bench/pool-after.json'];
export const TRANSLATE_SOURCES = ['docs/translate/shipped.json', 'web/public/models/index.json'];
export const TRANSLATE_V2_SOURCE = 'docs/translate/v2-run.json';
export const TRANSLATE_RNN_SWEEP_SOURCE = 'docs/translate/sweep-rnnsearch.json';
export const LM_SOURCE = 'docs/lm/lm-prose.report.json';
export const DIST_PAPER_SOURCE = 'docs/distributed/on-paper.json';

// Folders whose Markdown is not the project's pages: dependencies, build outputs, copies.
const SKIP_DIRS = new Set(['node_modules', 'third_party', 'build', 'dist', 'test-results', 'pkg', '.git']);

// Every Markdown file of the repository, relative to root, sorted.
export function markdownFiles(root) {
  const out = [];
  const walk = (rel) => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(p);
      } else if (e.isFile() && e.name.endsWith('.md')) out.push(p);
    }
  };
  walk('');
  return out.sort();
}

// name -> the Markdown file (relative) holding that block's markers; an error when two do.
export function blockFiles(root) {
  const where = new Map();
  for (const f of markdownFiles(root)) {
    const text = readFileSync(path.join(root, f), 'utf8');
    for (const m of text.matchAll(/^<!-- ([\w-]+):begin -->$/gm)) {
      if (where.has(m[1]) && where.get(m[1]) !== f)
        throw new Error(`the block ${m[1]} is marked in both ${where.get(m[1])} and ${f}`);
      where.set(m[1], f);
    }
  }
  return where;
}

const marks = (name) => [`<!-- ${name}:begin -->`, `<!-- ${name}:end -->`];

// Where a block's markers are, each on a line of its own ([begin start, begin end, end start]),
// or null; a marker quoted inside a line of prose does not count.
function markers(text, name) {
  const [b, e] = marks(name);
  const find = (m, from) => {
    for (let i = text.indexOf(m, from); i >= 0; i = text.indexOf(m, i + 1)) {
      const lineStart = i === 0 || text[i - 1] === '\n';
      const lineEnd = i + m.length === text.length || text[i + m.length] === '\n';
      if (lineStart && lineEnd) return i;
    }
    return -1;
  };
  const i = find(b, 0);
  const j = i < 0 ? -1 : find(e, i);
  return i < 0 || j < 0 ? null : [i, i + b.length, j];
}

// The text between a block's markers (null when the text has none).
export function between(text, name) {
  const at = markers(text, name);
  return at && text.slice(at[1], at[2]);
}

// The text with `body` between the markers of `name`; an error when they are missing.
export function replaceBetween(text, name, body) {
  const at = markers(text, name);
  if (!at) throw new Error(`no ${marks(name)[0]} ... ${marks(name)[1]} markers`);
  return `${text.slice(0, at[1])}\n${body.trimEnd()}\n${text.slice(at[2])}`;
}

const cell = (x) => (x == null || x === '' ? '—' : String(x).replaceAll('|', '\\|'));
const num = (x) => (x == null ? '—' : String(x));

// --- bench ---------------------------------------------------------------------------------

// The Benchmarks block: where and when it was measured, the goals' outcome, every row.
export function benchTable({ meta, rows }) {
  if (!meta || !Array.isArray(rows)) throw new Error(`${BENCH_SOURCE}: expected {meta, rows}`);
  const kernels = [...new Set(rows.map((r) => r.peer_blas_core).filter(Boolean))];
  const load = (l) => (Array.isArray(l) ? l.join(', ') : num(l));
  const lines = [
    `Measured by \`${meta.command}\` on ${meta.date.slice(0, 10)} at commit ${meta.commit}: ${meta.cpu}` +
      ` (${meta.cpus} CPUs${meta.simd ? `, ${meta.simd}` : ''}); PyTorch's OpenBLAS picked` +
      ` ${kernels.length ? kernels.map((k) => `\`${k}\``).join(', ') : 'no kernel (no PyTorch peer in this run)'};` +
      ` node ${meta.node}${meta.chromium ? `, Chromium ${meta.chromium}` : ''}.` +
      ` Load average (1, 5, 15 min) ${load(meta.load_start)} at the start and ${load(meta.load_end)} at the end.`,
    '',
  ];
  const goals = meta.goals ?? [];
  if (goals.length) {
    lines.push('Goals in this run:', '');
    for (const g of goals) lines.push(`- ${g.text}: ${g.status}`);
    lines.push('');
  }
  lines.push(
    meta.peak_basis === 'machine'
      ? '"% peak": native rows against the one-core peak (the largest of FMA chains, mul+add chains and the GEMM ' +
          "tile; times the threads), wasm rows against the machine's one-core FMA-chain ceiling" +
          `${meta.ceiling ? ` (${meta.ceiling.text})` : ''}; "kernel eff.": a wasm row against its own build's ` +
          'bound (SIMD128 chains and the GEMM tile on L1 data).'
      : '"% peak" in this run: each row against its own build\'s measured one-core bound (wasm rows against the ' +
          'wasm GEMM tile, not the machine); the run predates the machine-ceiling column, so "kernel eff." is empty.',
    ''
  );
  const over = rows.filter((r) => r.over_peak);
  lines.push(
    over.length
      ? `Rows above 100% of their peak: ${over.map((r) => r.name).join('; ')}.`
      : 'No row exceeded 100% of its peak.',
    ''
  );
  lines.push('| row | unit | attnlab | % peak | kernel eff. | peer | peer value | ratio | cpu ratio | goal | notes |');
  lines.push('| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |');
  for (const r of rows) {
    const goal = r.goal ? `${r.goal} ${r.goal_met ? 'met' : '**missed**'}` : '';
    const cpu = r.cpu_ratio ?? (r.cpu_pct_peak != null ? `${r.cpu_pct_peak}% of peak per CPU-s` : null);
    lines.push(
      `| ${[
        r.name,
        r.unit,
        num(r.attnlab),
        num(r.pct_peak),
        num(r.kernel_eff),
        cell(r.peer),
        num(r.peer_value),
        num(r.ratio),
        cell(cpu),
        goal,
        r.over_peak ? `**OVER PEAK**${r.note ? `; ${r.note}` : ''}` : (r.note ?? ''),
      ]
        .map((x, i) => (i === 0 ? cell(x) : x))
        .join(' | ')} |`
    );
  }
  return lines.join('\n');
}

// --- pool ----------------------------------------------------------------------------------

// 1 vs 2 threads of an older pool (before) and this one (after), quiet and beside each neighbour;
// PyTorch's 2T/1T from the after run's same slot. Rows ending in "ms" are times (lower is better).
export function poolTable(before, after) {
  const fmt = (x) => x.toFixed(1);
  const pair = (r) => (r ? `${fmt(r.t1)} / ${fmt(r.t2)} (${r.speedup_2t.toFixed(2)}×)` : '—');
  const find = (doc, nb, row) => doc.results.find((r) => r.neighbour === nb && r.row === row);
  const when = (d) =>
    `${d.date.slice(0, 16).replace('T', ' ')} UTC, load average ${d.loadavg_end.map((x) => x.toFixed(1)).join(', ')} at the end`;
  const lines = [
    `Measured on ${after.cpu} (${after.reps} alternating runs a row, medians): after ${when(after)}; before ${when(before)}.`,
    '',
    '| neighbour | row | before: 1T / 2T (2T/1T) | after: 1T / 2T (2T/1T) | PyTorch 2T/1T (after run) |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const [nb, what] of Object.entries(after.neighbours)) {
    for (const r of after.results.filter((x) => x.neighbour === nb && !x.row.endsWith(', PyTorch'))) {
      const torch = find(after, nb, `${r.row}, PyTorch`);
      lines.push(
        `| ${cell(what)} | ${r.row} | ${pair(find(before, nb, r.row))} | ${pair(r)} | ${torch ? `${torch.speedup_2t.toFixed(2)}×` : '—'} |`
      );
    }
  }
  return lines.join('\n');
}

// --- scaling past 2 cores ----------------------------------------------------------------

// The bench's scaling rows (bench/rows/scaling.mjs: Amdahl's serial share s fitted to the 1- and
// 2-thread steps, the engine's own split): per config, the 2-thread speedup the fit reproduces,
// 1 / (s + (1 - s) / 2), and the speedups it predicts (n x efficiency) at the threads it names.
export function scalingText({ meta, rows }) {
  const fits = [];
  for (const r of rows) {
    const m = r.name.match(/^Transformer training step, config (\S+): serial share s/);
    if (!m) continue;
    const at = rows
      .map((x) => [
        x,
        x.name.match(
          new RegExp(`^Transformer training step, config ${m[1]}: parallel efficiency predicted at (\\d+) threads`)
        ),
      ])
      .filter(([, p]) => p)
      .map(([x, p]) => ({ n: Number(p[1]), eff: x.attnlab }));
    fits.push({ config: m[1], s: r.attnlab, at });
  }
  if (!fits.length) return null;
  const ns = [...new Set(fits.flatMap((f) => f.at.map((a) => a.n)))].sort((a, b) => a - b);
  const lines = [
    `| config | serial share s | 2 threads (measured) | ${ns.map((n) => `${n} threads (predicted)`).join(' | ')} |`,
    `| --- | --- | --- | ${ns.map(() => '---').join(' | ')} |`,
  ];
  const x2 = (v) => `${v.toFixed(2)}×`;
  for (const f of fits) {
    const two = 1 / (f.s + (1 - f.s) / 2);
    const cells = ns.map((n) => {
      const a = f.at.find((x) => x.n === n);
      return a ? `${x2(n * a.eff)} (efficiency ${a.eff.toFixed(2)})` : '—';
    });
    lines.push(`| ${f.config} | ${f.s.toFixed(3)} | ${x2(two)} | ${cells.join(' | ')} |`);
  }
  const eight = ns.includes(8)
    ? fits.map((f) => `${x2(8 * f.at.find((a) => a.n === 8).eff)} at config ${f.config}`).join(', ')
    : null;
  lines.push(
    '',
    `From the run of the Benchmarks table above (\`${meta.command}\`, ${meta.date.slice(0, 10)}, ${meta.cpu}, ${meta.cpus} CPUs).` +
      (eight ? ` On 8 cores the fit predicts these speedups of a training step over one core: ${eight}.` : '')
  );
  return lines.join('\n');
}

// --- translator ----------------------------------------------------------------------------

const thousands = (n) => Math.round(n).toLocaleString('en-US');
const bleu2 = (x) => x.toFixed(2);

// The shipped float16 file and the copy baseline on the test split, measured by
// experiments/translate-shipped.mjs (docs/translate/shipped.json), and the training line from
// the file's own record and web/public/models/index.json.
export function translateTable(run, shipped) {
  if (!run?.shipped?.bleu || !run?.copy || !shipped?.bleu)
    throw new Error('translate: expected the shipped and copy scores and the index entry');
  const steps = run.training?.adamSteps ?? shipped.steps;
  return [
    `| system (test split, ${thousands(run.testPairs)} pairs, sacreBLEU 13a) | BLEU |`,
    '| --- | --- |',
    `| copy the German source | ${bleu2(run.copy.bleu)} |`,
    `| the shipped file (\`web/public/${run.file}\`: the average of the last 5 checkpoints in float16), beam ${run.shipped.beam}, α ${run.shipped.alpha} | **${bleu2(run.shipped.bleu)}** |`,
    '',
    `training: ${thousands(steps)} steps (the file's own record), ${(shipped.seconds / 60).toFixed(1)} min wall on ${shipped.threads} thread${shipped.threads === 1 ? '' : 's'}` +
      ` (\`index.json\`, written by the run); model ${(shipped.params / 1e6).toFixed(2)} M parameters, ${(shipped.bytes / 2 ** 20).toFixed(1)} MiB as float16.`,
    '',
    `\`attn eval\` of the shipped file: \`${run.shipped.detail}\`; of the copy baseline: \`${run.copy.detail}\`.`,
    '',
    `Measured by \`${run.source.command}\` at commit ${run.source.commit} on ${run.source.machine}, ${run.source.date.slice(0, 10)}` +
      ` (\`${TRANSLATE_SOURCES[0]}\`), with \`${TRANSLATE_SOURCES[1]}\`.`,
  ].join('\n');
}

const pct1 = (x) => `${(100 * x).toFixed(1)}%`;

// How many test words the training sentences never hold, per side (the sweep's coverage()).
// With corpus v2's counts (withLexicon, withAblation: a sweep since they were added), two more
// columns: the same shares once the dictionary's items (or its ablation's) count as seen.
export function translateSplitTable(sw, testPairs) {
  const v2 = sw.coverage.every((c) => c.withLexicon && c.withAblation);
  const lines = [
    `| test split${testPairs ? ` (${thousands(testPairs)} pairs)` : ''} | words | never in train.tsv | sentences with such a word | train.tsv word types seen once |${v2 ? ' never in train.tsv or the dictionary (its ablation) | sentences with such a word (ablation) |' : ''}`,
    `| --- | --- | --- | --- | --- |${v2 ? ' --- | --- |' : ''}`,
  ];
  for (const c of sw.coverage)
    lines.push(
      `| ${c.lang === 'de' ? 'German (source)' : 'English (reference)'} | ${thousands(c.testWords)} | ${pct1(c.unseenWords)} | ${pct1(c.sentencesWithUnseen)} | ${pct1(c.trainSingletons)} of ${thousands(c.trainTypes)} |` +
        (v2
          ? ` ${pct1(c.withLexicon.unseenWords)} (${pct1(c.withAblation.unseenWords)}) | ${pct1(c.withLexicon.sentencesWithUnseen)} (${pct1(c.withAblation.sentencesWithUnseen)}) |`
          : '')
    );
  lines.push(
    '',
    `Counted by \`${sw.coverageCommand ?? sw.source.command}\` (\`${TRANSLATE_RNN_SWEEP_SOURCE}\`, its coverage).`
  );
  return lines.join('\n');
}

// RNNsearch against the Transformer at equal CPU time (experiments/translate-sweep.mjs's
// sweep.json, each configuration's sittings from its wall.json).
export function translateRnnSweepText(sw) {
  const rows = sw.results;
  const lines = [
    `| configuration | parameters | steps in ${Math.round(rows[0].minutes)} CPU min (wall min) | train loss at the end | test BLEU, average of last 5, beam 4 | greedy | best single, beam 4 (step) |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const best = Math.max(...rows.map((r) => r.test.averageBeam4));
  for (const r of rows) {
    const avg = r.test.averageBeam4 === best ? `**${bleu2(r.test.averageBeam4)}**` : bleu2(r.test.averageBeam4);
    lines.push(
      `| ${r.label} | ${(r.params / 1e6).toFixed(2)} M | ${thousands(r.steps)} (${Math.round(r.wallMinutes)}) | ${r.trainLoss.toFixed(2)} | ${avg} | ${bleu2(r.test.averageGreedy)} | ${bleu2(r.test.bestSingleBeam4)} (${thousands(r.test.bestStep)}) |`
    );
  }
  lines.push(
    '',
    `Run on ${sw.source.machine}; \`${sw.source.command}\`, from ${sw.source.started}. Shared by both rows: ${Object.entries(
      sw.common
    )
      .filter(([k]) => !['seed', 'warmup', 'd-model', 'heads', 'dropout'].includes(k))
      .map(([k, v]) => `--${k} ${v}`)
      .join(', ')}, seed ${sw.common.seed}.`
  );
  return lines.join('\n');
}

// The corpus v2 run, from its report.
export function translateV2Text(v2) {
  const r = v2.rows;
  return (
    `The first ${v2.ranks}-rank run on corpus ${v2.corpus} (\`${TRANSLATE_V2_SOURCE}\`, written from the run's \`report.json\`)` +
    ` stopped at step ${thousands(v2.steps)} after ${(v2.wallSeconds / 60).toFixed(1)} min: on the test split its 5-checkpoint` +
    ` average scores ${bleu2(r.average)} BLEU (beam 4; greedy ${bleu2(r.averageGreedy)}), the best single checkpoint` +
    ` ${bleu2(r.single)}, and copying the source ${bleu2(r.copy)}.`
  );
}

// --- language model ------------------------------------------------------------------------

// Where the §1 language model's run stands: its step, held-out loss and perplexity, samples.
export function lmText(rep) {
  const s = rep.samples;
  const seeds = s.seeds.length > 1 ? `seeds ${s.seeds[0]}–${s.seeds.at(-1)}` : `seed ${s.seeds[0]}`;
  const cut = s.topK === 0 && s.topP === 1 ? 'no cut' : `top-k ${s.topK}, top-p ${s.topP}`;
  return [
    `From \`${LM_SOURCE}\` (written by \`node experiments/lm.mjs --skip-train --no-export\`):` +
      ` step ${thousands(rep.step)} of the run's ${thousands(rep.lastStep)}, after ${rep.sittings} sitting${rep.sittings === 1 ? '' : 's'}` +
      ` (${rep.hours} hours of training); held-out loss ${rep.validLoss} nats per token over ${rep.evalSentences}` +
      ` sentences, perplexity **${rep.validPerplexity}**. ${s.text.length} samples at T ${s.temperature} (${cut}), ${seeds}:`,
    '',
    ...s.text.map((t, i) => `${i + 1}. ${t}`),
  ].join('\n');
}

// --- reproduce -----------------------------------------------------------------------------

const FORMATS = {
  pct: (x) => `${(100 * x).toFixed(1)}%`,
  plus_pct: (x) => `+${(100 * x).toFixed(1)}%`,
  fixed3: (x) => x.toFixed(3),
  points: (x) => (100 * x).toFixed(1),
};
const format = (name, x) => {
  if (!FORMATS[name]) throw new Error(`unknown format ${name}`);
  return FORMATS[name](x);
};

// One metric of a seeds row: "label mean ± sd (worst w)"; a row measured on one seed of the
// table's several says so instead ("label v (seed 1 only)"): no spread to give.
const seedsMetric = (m, only = null) =>
  only != null
    ? `${m.label} ${format(m.fmt, m.mean)} (seed ${only} only)`
    : `${m.label} ${format(m.fmt, m.mean)} ± ${format(m.sd_fmt, m.sd)} (worst ${format(m.fmt, m.worst)})`;
const cost = (r) =>
  `${r.steps} steps${r.cost_detail ? ` ${r.cost_detail}` : ''}, ${r.minutes.toFixed(1)} min${r.cost_note ? ` (${r.cost_note})` : ''}`;
const met = (r) => (r.met == null ? '—' : `${r.met ? 'yes' : 'no'}${r.met_note ? ` (${r.met_note})` : ''}`);

// The ratio row of the two phrase rows, from their per-seed figures on lengths 26-30.
function lengthRow(search, encdec) {
  const s = search.metrics.find((m) => m.label === 'lengths 26–30');
  const e = encdec.metrics.find((m) => m.label === 'lengths 26–30');
  // Per-seed values, or (rows transcribed from an earlier README) the range it gave.
  const [sLo, sHi] = s.values ? [Math.min(...s.values), Math.max(...s.values)] : s.range;
  const [, eMax] = e.values ? [0, Math.max(...e.values)] : e.range;
  const lo = Math.round(100 * sLo),
    hi = Math.round(100 * sHi);
  // every seed's ratio >= 2 when the worst RNNsearch seed doubles the best RNNencdec one
  const ok =
    s.values && e.values
      ? s.values.every((v, i) => (e.values[i] > 0 ? v / e.values[i] >= 2 : v > 0))
      : eMax === 0
        ? sLo > 0
        : sLo / eMax >= 2;
  return (
    `| RNNsearch / RNNencdec on lengths 26–30 | target ≥ 2× | every seed: RNNsearch ${lo}–${hi}%, ` +
    `RNNencdec ${eMax === 0 ? 'none right' : `at most ${Math.round(100 * eMax)}%`} | ${ok ? 'yes' : 'no'} | — |`
  );
}

// The three-seed table (rows with table "seeds", in `order`; or another table of seeds rows,
// "seeds:<name>"), then the length-ratio row after the encdec row.
export function reproduceTable(results, table = 'seeds') {
  const seeds = results.filter((r) => r.table === table).sort((a, b) => a.order - b.order);
  const seedList = [...new Set(seeds.flatMap((r) => r.seeds))].sort((a, b) => a - b);
  const lines = [
    `| experiment | paper | ours: mean ± sd over seeds ${seedList.join(', ')} (worst seed) | target met by the worst seed | training cost per seed |`,
    '| --- | --- | --- | --- | --- |',
  ];
  const byId = Object.fromEntries(results.map((r) => [r.id, r]));
  for (const r of seeds) {
    const only = r.seeds.length === 1 && seedList.length > 1 ? r.seeds[0] : null;
    lines.push(
      `| ${r.what} | ${r.paper} | ${r.metrics.map((m) => seedsMetric(m, only)).join('; ')} | ${met(r)}${only != null && r.met != null ? ` (seed ${only} only)` : ''} | ${cost(r)} |`
    );
    if (r.id === 'encdec30' && byId.search30) lines.push(lengthRow(byId.search30, r));
  }
  return lines.join('\n');
}

// A one-seed table (rows with table "single:<name>").
export function singleTable(results, name) {
  const rows = results.filter((r) => r.table === `single:${name}`).sort((a, b) => a.order - b.order);
  const lines = [
    `| experiment | paper | ours (seed ${rows[0]?.seeds?.[0] ?? 1}) | training cost |`,
    '| --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const figures = r.metrics.map((m) => `${m.label} ${format(m.fmt, m.value)}`).join(r.join ?? ', ');
    lines.push(`| ${r.what} | ${r.paper} | ${r.prefix ?? ''}${figures} | ${cost(r)} |`);
  }
  return lines.join('\n');
}

export function readReproduceSources(root) {
  const dir = path.join(root, REPRODUCE_SOURCES);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
}

// Every generated block: its marker name, the source files it is written from, its text.
export function tables(root) {
  const out = [];
  const json = (f) => JSON.parse(readFileSync(path.join(root, f), 'utf8'));
  if (TRANSLATE_SOURCES.every((f) => existsSync(path.join(root, f)))) {
    const [run, index] = TRANSLATE_SOURCES.map(json);
    const shipped = index['translate-de-en'];
    out.push({ name: 'translate', sources: TRANSLATE_SOURCES, text: translateTable(run, shipped) });
  }
  if (existsSync(path.join(root, TRANSLATE_RNN_SWEEP_SOURCE))) {
    const sw = json(TRANSLATE_RNN_SWEEP_SOURCE);
    out.push({ name: 'translate-sweep-rnn', sources: [TRANSLATE_RNN_SWEEP_SOURCE], text: translateRnnSweepText(sw) });
    const pairs = existsSync(path.join(root, TRANSLATE_SOURCES[0])) ? json(TRANSLATE_SOURCES[0]).testPairs : null;
    if (sw.coverage)
      out.push({
        name: 'translate-split',
        sources: [TRANSLATE_RNN_SWEEP_SOURCE, TRANSLATE_SOURCES[0]],
        text: translateSplitTable(sw, pairs),
      });
  }
  if (existsSync(path.join(root, TRANSLATE_V2_SOURCE)))
    out.push({
      name: 'translate-v2',
      sources: [TRANSLATE_V2_SOURCE],
      text: translateV2Text(json(TRANSLATE_V2_SOURCE)),
    });
  if (existsSync(path.join(root, LM_SOURCE)))
    out.push({ name: 'lm', sources: [LM_SOURCE], text: lmText(json(LM_SOURCE)) });
  if (existsSync(path.join(root, DIST_PAPER_SOURCE)))
    out.push({ name: 'dist-paper', sources: [DIST_PAPER_SOURCE], text: onPaperTables(json(DIST_PAPER_SOURCE)) });
  const benchFile = path.join(root, BENCH_SOURCE);
  if (existsSync(benchFile)) {
    const bench = JSON.parse(readFileSync(benchFile, 'utf8'));
    out.push({ name: 'bench', sources: [BENCH_SOURCE], text: benchTable(bench) });
    const scaling = scalingText(bench);
    if (scaling) out.push({ name: 'scaling', sources: [BENCH_SOURCE], text: scaling });
  }
  if (POOL_SOURCES.every((f) => existsSync(path.join(root, f)))) {
    const [before, after] = POOL_SOURCES.map((f) => JSON.parse(readFileSync(path.join(root, f), 'utf8')));
    out.push({ name: 'pool', sources: POOL_SOURCES, text: poolTable(before, after) });
  }
  const results = readReproduceSources(root);
  if (results.length) {
    const files = (pred) => results.filter(pred).map((r) => `${REPRODUCE_SOURCES}/${r.id}.json`);
    out.push({ name: 'reproduce', sources: files((r) => r.table === 'seeds'), text: reproduceTable(results) });
    for (const n of [...new Set(results.map((r) => r.table).filter((t) => t.startsWith('seeds:')))].map((t) =>
      t.slice(6)
    ))
      out.push({
        name: `reproduce-${n}`,
        sources: files((r) => r.table === `seeds:${n}`),
        text: reproduceTable(results, `seeds:${n}`),
      });
    for (const n of [...new Set(results.map((r) => r.table).filter((t) => t.startsWith('single:')))].map((t) =>
      t.slice(7)
    ))
      out.push({
        name: `reproduce-${n}`,
        sources: files((r) => r.table === `single:${n}`),
        text: singleTable(results, n),
      });
  }
  return out;
}

// Every block rewritten in the Markdown file that holds it (only: which names). Returns the
// names written and the files changed; a block with a source but no markers anywhere is an error.
export function writeDocs(root, only = null) {
  const where = blockFiles(root);
  const texts = new Map();
  const done = [];
  for (const t of tables(root)) {
    if (only && !only(t.name)) continue;
    const f = where.get(t.name);
    if (!f) throw new Error(`no Markdown file marks the block ${t.name} (<!-- ${t.name}:begin -->)`);
    if (!texts.has(f)) texts.set(f, readFileSync(path.join(root, f), 'utf8'));
    texts.set(f, replaceBetween(texts.get(f), t.name, t.text));
    done.push(t.name);
  }
  const files = [];
  for (const [f, text] of texts) {
    if (readFileSync(path.join(root, f), 'utf8') === text) continue;
    writeFileSync(path.join(root, f), text);
    files.push(f);
  }
  return { done, files };
}

// One text with every block it marks rewritten (the blocks it wrote, by name).
export function writeTables(root, readme, only = null) {
  let text = readme;
  const done = [];
  for (const t of tables(root)) {
    if ((only && !only(t.name)) || between(text, t.name) === null) continue;
    text = replaceBetween(text, t.name, t.text);
    done.push(t.name);
  }
  return { text, done };
}
