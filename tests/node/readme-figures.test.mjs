// The README's measured tables come from files a command wrote (scripts/lib/readme-tables.mjs):
// each table between <!-- NAME:begin --> and <!-- NAME:end --> must be exactly what the
// generator writes from its committed source files (docs/bench/bench.json,
// docs/reproduce/results/*.json), and in the sections that carry figures every table must be
// such a generated one, or be marked as holding no measurements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { between, benchTable, replaceBetween, reproduceTable, tables } from '../../scripts/lib/readme-tables.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

// The sections whose tables are figures: heading line -> its text up to the next heading of
// the same or a higher level.
const FIGURE_SECTIONS = ['## Benchmarks', '## Threads and FMA in the browser', '### Reproduction'];
const NO_MEASUREMENTS = /^<!-- no measurements: .+ -->$/;

function section(text, heading) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  assert.ok(start >= 0, `README.md has no section ${heading}`);
  const level = heading.match(/^#+/)[0].length;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const m = lines[i].match(/^(#+) /);
    if (m && m[1].length <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end);
}

// Tables of a section (first line index of each) that are neither generated nor marked.
function unsourcedTables(lines) {
  const bad = [];
  let open = null;
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^<!-- ([\w-]+):(begin|end) -->$/);
    if (m) {
      open = m[2] === 'begin' ? m[1] : null;
      continue;
    }
    const isHeader = lines[i].startsWith('|') && /^\|( ?:?-+:? ?\|)+$/.test(lines[i + 1] ?? '');
    if (!isHeader || open) continue;
    let j = i - 1;
    while (j >= 0 && lines[j].trim() === '') j--;
    if (!NO_MEASUREMENTS.test(lines[j] ?? '')) bad.push(lines[i]);
  }
  return bad;
}

test('README: every generated table is what its source files give', () => {
  const all = tables(root);
  assert.ok(
    all.some((t) => t.name === 'bench'),
    'the Benchmarks table has a source (docs/bench/bench.json)'
  );
  assert.ok(
    all.some((t) => t.name === 'reproduce'),
    'the reproduction table has sources (docs/reproduce/results/)'
  );
  for (const t of all) {
    const inReadme = between(readme, t.name);
    assert.notEqual(inReadme, null, `README.md has no <!-- ${t.name}:begin/end --> markers`);
    assert.equal(
      inReadme.trim(),
      t.text.trim(),
      `README.md's ${t.name} table differs from what its sources give: run npm run ${t.name === 'bench' ? 'bench' : 'reproduce'} -- --readme`
    );
    assert.ok(t.sources.length > 0, `${t.name}: no source file`);
    for (const f of t.sources) assert.ok(existsSync(path.join(root, f)), `${t.name}: source ${f} is missing`);
  }
});

test('README: every marked table has a generator and sources', () => {
  const names = new Set(tables(root).map((t) => t.name));
  const marked = [...readme.matchAll(/<!-- ([\w-]+):begin -->/g)].map((m) => m[1]);
  assert.ok(marked.length >= 2);
  for (const n of marked) assert.ok(names.has(n), `README.md marks a table ${n} that no source file generates`);
});

test('README: in the sections with figures, every table is generated or marked as holding none', () => {
  for (const h of FIGURE_SECTIONS)
    assert.deepEqual(unsourcedTables(section(readme, h)), [], `${h}: tables without a source file`);
});

test('README check: a table without a source, or one edited by hand, is found', () => {
  const typed = ['## Benchmarks', '', '| row | value |', '| --- | ---: |', '| gemm | 51.2 |', ''];
  assert.deepEqual(unsourcedTables(typed), ['| row | value |']);
  const marked = ['<!-- no measurements: the goals -->', '', '| goal | rows |', '| --- | --- |', '| x | y |'];
  assert.deepEqual(unsourcedTables(marked), []);
  const t = tables(root).find((x) => x.name === 'reproduce');
  const edited = replaceBetween(readme, 'reproduce', t.text.replace(/\d+\.\d%/, '12.3%'));
  assert.notEqual(between(edited, 'reproduce').trim(), t.text.trim());
  assert.throws(() => replaceBetween('no markers here', 'bench', 'x'), /no <!-- bench:begin -->/);
});

test('README generator: bench rows above their peak and missed goals are shown', () => {
  const meta = {
    command: 'npm run bench',
    date: '2026-12-03T10:00:00.000Z',
    commit: 'abc',
    cpu: 'Some CPU',
    cpus: 2,
    node: '20',
    load_start: [1, 1, 1],
    load_end: [2, 2, 2],
    goals: [{ text: 'g', status: 'missed in 1 of 1 rows' }],
  };
  const text = benchTable({
    meta,
    rows: [
      {
        name: 'gemm 8×8×8 wasm',
        unit: 'GFLOP/s',
        attnlab: 50,
        pct_peak: 120,
        over_peak: true,
        ratio: 0.9,
        goal: '>= 1.1x',
        goal_met: false,
        peer_blas_core: 'Zen',
      },
    ],
  });
  assert.match(text, /\*\*OVER PEAK\*\*/);
  assert.match(text, />= 1\.1x \*\*missed\*\*/);
  assert.match(text, /`Zen`/);
  assert.match(text, /Some CPU/);
  assert.match(text, /commit abc/);
  const seeds = reproduceTable([
    {
      id: 'a',
      table: 'seeds',
      order: 1,
      seeds: [1, 2],
      what: 'w',
      paper: 'p',
      met: false,
      steps: 10,
      minutes: 1,
      metrics: [{ label: 'exact', fmt: 'pct', sd_fmt: 'points', mean: 0.5, sd: 0.1, worst: 0.4 }],
    },
  ]);
  assert.match(seeds, /\| w \| p \| exact 50\.0% ± 10\.0 \(worst 40\.0%\) \| no \| 10 steps, 1\.0 min \|/);
});
