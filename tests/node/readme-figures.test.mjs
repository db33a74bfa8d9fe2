// Every figure in the repository's Markdown comes from a file a command wrote, and every page is
// findable:
//   - each generated block (between <!-- NAME:begin --> and <!-- NAME:end -->, in whichever
//     Markdown file holds it) is exactly what scripts/lib/readme-tables.mjs writes from its
//     committed source files, and each marked block has a generator;
//   - in the pages that carry figures, every table is generated or marked as holding none;
//   - no Markdown file (README.md, docs/**, examples/**, web/**; not node_modules, third_party or
//     build outputs) holds a measurement-shaped number outside a generated block
//     (scripts/lib/typed-figures.mjs), unless tests/fixtures/typed-figures.json lists it as a
//     quoted paper figure or a fixed fact;
//   - every relative link of README.md and docs/**/*.md reaches a file, and a #fragment a heading
//     of that file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  between,
  benchTable,
  blockFiles,
  markdownFiles,
  replaceBetween,
  reproduceTable,
  tables,
  writeTables,
} from '../../scripts/lib/readme-tables.mjs';
import { NO_MEASUREMENTS, typedFigures, unallowed } from '../../scripts/lib/typed-figures.mjs';
import { estimate } from '../../scripts/lib/dist-estimate.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (f) => readFileSync(path.join(root, f), 'utf8');
const files = markdownFiles(root);
const allowed = JSON.parse(read('tests/fixtures/typed-figures.json')).entries;

// The pages whose tables are figures.
const FIGURE_PAGES = [
  'docs/benchmarks.md',
  'docs/browser.md',
  'docs/reproduction.md',
  'docs/translator.md',
  'docs/distributed.md',
  'docs/lm.md',
];

// Tables of a text (their header lines) that are neither generated nor marked.
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

test('the Markdown files read: README.md and the docs, no dependencies or build outputs', () => {
  for (const f of ['README.md', 'docs/benchmarks.md', 'docs/widgets.md', 'docs/screenshots/README.md'])
    assert.ok(files.includes(f), f);
  assert.ok(!files.some((f) => /(^|\/)(node_modules|third_party|build|dist)\//.test(f)));
});

test('every generated block is what its source files give, in the Markdown file that holds it', () => {
  const all = tables(root);
  const where = blockFiles(root);
  for (const name of ['bench', 'pool', 'reproduce', 'translate', 'translate-v2', 'lm', 'dist-paper'])
    assert.ok(
      all.some((t) => t.name === name),
      `the ${name} block has a source`
    );
  for (const t of all) {
    const file = where.get(t.name);
    assert.ok(file, `no Markdown file has <!-- ${t.name}:begin/end --> markers`);
    assert.equal(
      between(read(file), t.name).trim(),
      t.text.trim(),
      `${file}: the ${t.name} block differs from what its sources give: run npm run ${t.name === 'bench' || t.name === 'pool' ? 'bench' : 'reproduce'} -- --readme`
    );
    assert.ok(t.sources.length > 0, `${t.name}: no source file`);
    for (const f of t.sources) assert.ok(existsSync(path.join(root, f)), `${t.name}: source ${f} is missing`);
  }
  assert.equal(where.get('bench'), 'docs/benchmarks.md');
  assert.equal(where.get('reproduce'), 'docs/reproduction.md');
});

test('every marked block has a generator and sources', () => {
  const names = new Set(tables(root).map((t) => t.name));
  const marked = [...blockFiles(root).entries()];
  assert.ok(marked.length >= 2);
  for (const [n, f] of marked) assert.ok(names.has(n), `${f} marks a block ${n} that no source file generates`);
});

test('in the pages with figures, every table is generated or marked as holding none', () => {
  for (const f of FIGURE_PAGES)
    assert.deepEqual(unsourcedTables(read(f).split('\n')), [], `${f}: tables without a source file`);
});

test('no measurement is typed into any Markdown file outside a generated block', () => {
  const left = [],
    stale = [];
  for (const f of files) {
    const r = unallowed(f, typedFigures(read(f)), allowed);
    left.push(...r.left.map((x) => `${f}:${x.line}: ${x.match} (${x.kind})  in: ${x.text.trim().slice(0, 120)}`));
    stale.push(...r.stale.map((e) => `${e.file}: ${e.text ?? e.pattern}`));
  }
  assert.deepEqual(left, [], 'typed figures: generate them (scripts/lib/readme-tables.mjs) or remove them');
  assert.deepEqual(stale, [], 'allow-list entries of tests/fixtures/typed-figures.json that cover nothing');
  for (const e of allowed) {
    assert.ok(['paper', 'fact'].includes(e.kind), `${e.file}: kind ${e.kind}`);
    assert.ok(e.why && (e.text || e.pattern), `${e.file}: an entry says what and why`);
  }
});

test('the figure finder: prose, units, tables, generated blocks and marked tables', () => {
  const text = [
    'Training ran at 11,251 tok/s and 6,423 tokens/s, each step 32.0 ms.',
    'It scores 7.29 BLEU; the average has BLEU 7.31 and perplexity **98.15**.',
    'Two threads run 1.8× faster and 62% of the types occur once; 1.8 times as many steps.',
    'A 256×128×128 GEMM at 52.3 GFLOP/s, a 209 MB file, held-out loss 0.081.',
    'Settings without units: --steps 600, d_model 256, 4 heads, 14,833 pairs, seed 1.',
    '',
    '| system | BLEU | tokens/s |',
    '| --- | --- | ---: |',
    '| copy | 0.20 | 6,684 |',
    '',
    '<!-- no measurements: goals -->',
    '| goal | rows |',
    '| --- | --- |',
    '| GEMM >= 1.1x PyTorch | gemm |',
    '',
    '<!-- x:begin -->',
    'Measured 99 ms, 50%.',
    '<!-- x:end -->',
  ].join('\n');
  const found = typedFigures(text).map((f) => `${f.line} ${f.kind} ${f.match}`);
  assert.deepEqual(found, [
    '1 rate 11,251 tok/s',
    '1 rate 6,423 tokens/s',
    '1 time 32.0 ms',
    '2 bleu 7.29 BLEU',
    '2 bleu BLEU 7.31',
    '2 score perplexity **98.15',
    '3 ratio 1.8×',
    '3 percent 62%',
    '3 ratio 1.8 times as',
    '4 rate 52.3 GFLOP/s',
    '4 size 209 MB',
    '4 score loss 0.081',
    '9 table 0.20',
    '9 table 6,684',
  ]);
  const figures = typedFigures(text);
  const entries = [
    { file: 'x.md', text: 'perplexity **98.15**', kind: 'paper', why: 'quoted' },
    { file: 'x.md', pattern: '^\\| copy \\| [\\d.]+ \\|', kind: 'fact', why: 'a row' },
    { file: 'x.md', text: 'no such text', kind: 'fact', why: 'stale' },
  ];
  const r = unallowed('x.md', figures, entries);
  assert.equal(r.left.length, figures.length - 2);
  assert.ok(!r.left.some((f) => f.match === '0.20' || f.match.includes('98.15')));
  assert.deepEqual(
    r.stale.map((e) => e.why),
    ['stale']
  );
});

test('the generators write into whichever text holds the markers; a table edited by hand is found', () => {
  const t = tables(root).find((x) => x.name === 'reproduce');
  const doc = `# Page\n\n<!-- reproduce:begin -->\nold\n<!-- reproduce:end -->\n`;
  const { text, done } = writeTables(root, doc);
  assert.deepEqual(done, ['reproduce'], 'only the blocks the text marks');
  assert.equal(between(text, 'reproduce').trim(), t.text.trim());
  const edited = replaceBetween(text, 'reproduce', t.text.replace(/\d+\.\d%/, '12.3%'));
  assert.notEqual(between(edited, 'reproduce').trim(), t.text.trim());
  assert.throws(() => replaceBetween('no markers here', 'bench', 'x'), /no <!-- bench:begin -->/);
  assert.deepEqual(unsourcedTables(['## x', '', '| row | value |', '| --- | ---: |', '| gemm | 51.2 |']), [
    '| row | value |',
  ]);
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

// GitHub's heading anchors: lower case, punctuation but - and _ dropped, spaces to -, repeats -1, -2.
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  let fence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = !fence && line.match(/^#{1,6} (.*)$/);
    if (!m) continue;
    const base = m[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

// The relative links of a Markdown text outside code: [text](target) and ![alt](target).
function links(text) {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

test('every relative link of README.md and docs/ reaches a file, and each #fragment a heading', () => {
  const bad = [];
  const pages = files.filter((f) => f === 'README.md' || f.startsWith('docs/'));
  assert.ok(pages.length >= 15);
  for (const f of pages) {
    for (const target of links(read(f))) {
      const [p, frag] = target.split('#');
      const dest = p ? path.posix.normalize(path.posix.join(path.posix.dirname(f), decodeURI(p))) : f;
      if (dest.startsWith('..') || !existsSync(path.join(root, dest))) {
        bad.push(`${f}: ${target} (no ${dest})`);
        continue;
      }
      if (frag !== undefined && (!statSync(path.join(root, dest)).isFile() || !anchors(read(dest)).has(frag)))
        bad.push(`${f}: ${target} (no heading #${frag} in ${dest})`);
    }
  }
  assert.deepEqual(bad, []);
});

test('the link check: a missing file and a missing heading are found', () => {
  assert.deepEqual(links('See [a](docs/x.md#b), ![c](img.png), [web](https://x.org), `[no](code.md)`.'), [
    'docs/x.md#b',
    'img.png',
  ]);
  assert.ok(
    anchors('# Why not 20 BLEU: the sweep\n## The `attn` command\n## Tests\n## Tests').has('why-not-20-bleu-the-sweep')
  );
  assert.ok(anchors('## The `attn` command').has('the-attn-command'));
  assert.ok(anchors('## Tests\n## Tests').has('tests-1'));
});

test('README.md is for newcomers: short, the two commands, and a link to each docs page', () => {
  const readme = read('README.md');
  assert.ok(readme.split('\n').length < 150, `README.md has ${readme.split('\n').length} lines`);
  assert.match(readme, /npm start/);
  assert.match(readme, /npm test/);
  const linked = new Set(links(readme).map((l) => l.split('#')[0]));
  for (const f of files.filter((x) => /^docs\/[^/]+\.md$/.test(x))) assert.ok(linked.has(f), `README.md links ${f}`);
});

test('the multi-GPU estimate: overlap never slows a step, one node beats two at the paper batch', () => {
  const a = JSON.parse(read('docs/distributed/on-paper.json'));
  const e = estimate(a);
  assert.ok(Math.abs(e.flops / 1e12 - 1.17) < 0.01, 'trainStepFlops of the base model, 96 × 32 tokens');
  for (const s of e.setups) {
    assert.ok(s.step <= s.serial && s.step >= s.single, `${s.nodes} × ${s.gpusPerNode}`);
    assert.ok(s.efficiency > 0 && s.efficiency <= 1);
  }
  const [two, twoBig, one] = e.setups;
  assert.ok(one.tokensPerS > two.tokensPerS, 'the network link sets the two-node step');
  assert.ok(twoBig.efficiency > two.efficiency, 'a larger batch hides the layers’ all-reduce');
  const slower = estimate({ ...a, networkGbs: a.networkGbs / 2 });
  assert.ok(slower.setups[0].step > two.step && slower.setups[2].step === one.step);
});
