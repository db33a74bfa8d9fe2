// The README's measured tables, written from committed source files, never typed in:
//   bench      docs/bench/bench.json ({meta, rows}: `npm run bench` writes build/bench.json,
//              `npm run bench -- --readme` copies it here and rewrites the table)
//   reproduce  docs/reproduce/results/*.json (one file per row, `npm run reproduce -- --readme`
//              writes them from build/reproduce/, keeping rows it has no new run for); rows of
//              table "seeds" form the main table, "seeds:<name>" and "single:<name>" their own
//              table reproduce-<name>
//   pool       docs/bench/pool-before.json and pool-after.json (`node bench/pool-bench.mjs --out
//              FILE`: the thread pool's 1 vs 2 threads beside neighbours, an older build's
//              binaries via --bin for "before"; `npm run bench -- --readme` rewrites the table)
// Each table sits between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in README.md;
// tests/node/readme-figures.test.mjs checks that the README holds exactly what this writes.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const BENCH_SOURCE = 'docs/bench/bench.json';
export const REPRODUCE_SOURCES = 'docs/reproduce/results';
export const POOL_SOURCES = ['docs/bench/pool-before.json', 'docs/bench/pool-after.json'];

const marks = (name) => [`<!-- ${name}:begin -->`, `<!-- ${name}:end -->`];

// The text between a table's markers (null when the README has none).
export function between(text, name) {
  const [b, e] = marks(name);
  const i = text.indexOf(b),
    j = text.indexOf(e);
  if (i < 0 || j < i) return null;
  return text.slice(i + b.length, j);
}

// The README with `body` between the markers of `name`; an error when they are missing.
export function replaceBetween(text, name, body) {
  const [b, e] = marks(name);
  const i = text.indexOf(b),
    j = text.indexOf(e);
  if (i < 0 || j < i) throw new Error(`README.md has no ${b} ... ${e} markers`);
  return `${text.slice(0, i + b.length)}\n${body.trimEnd()}\n${text.slice(j)}`;
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
  const over = rows.filter((r) => r.over_peak);
  lines.push(
    over.length
      ? `Rows above 100% of their peak: ${over.map((r) => r.name).join('; ')}.`
      : 'No row exceeded 100% of its peak.',
    ''
  );
  lines.push('| row | unit | attnlab | % peak | peer | peer value | ratio | cpu ratio | goal | notes |');
  lines.push('| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |');
  for (const r of rows) {
    const goal = r.goal ? `${r.goal} ${r.goal_met ? 'met' : '**missed**'}` : '';
    const cpu = r.cpu_ratio ?? (r.cpu_pct_peak != null ? `${r.cpu_pct_peak}% of peak per CPU-s` : null);
    lines.push(
      `| ${[
        r.name,
        r.unit,
        num(r.attnlab),
        num(r.pct_peak),
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

// One metric of a seeds row: "label mean ± sd (worst w)".
const seedsMetric = (m) =>
  `${m.label} ${format(m.fmt, m.mean)} ± ${format(m.sd_fmt, m.sd)} (worst ${format(m.fmt, m.worst)})`;
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
    lines.push(`| ${r.what} | ${r.paper} | ${r.metrics.map(seedsMetric).join('; ')} | ${met(r)} | ${cost(r)} |`);
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

// Every generated table: its marker name, the source files it is written from, its text.
export function tables(root) {
  const out = [];
  const benchFile = path.join(root, BENCH_SOURCE);
  if (existsSync(benchFile))
    out.push({ name: 'bench', sources: [BENCH_SOURCE], text: benchTable(JSON.parse(readFileSync(benchFile, 'utf8'))) });
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

// README.md's text with every generated table rewritten (the tables it wrote, by name).
export function writeTables(root, readme, only = null) {
  let text = readme;
  const done = [];
  for (const t of tables(root)) {
    if (only && !only(t.name)) continue;
    text = replaceBetween(text, t.name, t.text);
    done.push(t.name);
  }
  return { text, done };
}
