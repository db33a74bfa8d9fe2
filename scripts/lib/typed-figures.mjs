// Finds measurement-shaped numbers typed into Markdown: a figure a run measured (a time, a rate,
// a size, a ratio, a share, a BLEU score, an accuracy, a loss or perplexity) belongs in a block
// generated from the file the run wrote (scripts/lib/readme-tables.mjs), not in prose or a
// hand-made table. tests/node/readme-figures.test.mjs runs this over every Markdown file of the
// repository, with an allow-list (tests/fixtures/typed-figures.json) of the figures that are not
// measurements of this project: quoted paper figures ("paper") and fixed facts such as a limit,
// a setting or a goal ("fact").

const NUM = String.raw`(?<![\w.\-/])\d[\d,]*(?:\.\d+)?`;
// Each kind of figure: a pattern over one line. The number comes first unless the kind says.
const KINDS = [
  ['percent', String.raw`${NUM}\s?%`],
  ['time', String.raw`${NUM}\s?(?:ms|µs|ns|s|sec|seconds?|min|minutes?|h|hours?)(?![\w/])`],
  [
    'rate',
    String.raw`${NUM}\s?(?:k\s)?(?:tok(?:en)?s?/s|tokens? (?:a|per) second|[GT]FLOP/s|[GT]FLOPS|[KMGT]i?B/s|Gb/s|steps?/s)`,
  ],
  ['flops', String.raw`${NUM}\s?[GT]FLOP(?![\w/])`],
  ['size', String.raw`${NUM}\s?(?:[KMGT]iB|[KMGT]B)(?![\w/])`],
  ['ratio', String.raw`${NUM}\s?(?:×|x)(?![\w\d×])(?!\s?\d)|${NUM} times (?:as|faster|slower|more|fewer|the)`],
  ['bleu', String.raw`${NUM}\s(?:BLEU)|BLEU(?: score)?(?: of| =| is| was|:)?\s\**${NUM}`],
  [
    'score',
    String.raw`(?:accuracy|perplexity|AER|loss(?:es)?|efficiency)(?: of| is| was| =|:)?\s\**${NUM}|${NUM}\s(?:accuracy|perplexity|exact|right)\b`,
  ],
];
const PATTERN = new RegExp(KINDS.map(([k, p]) => `(?<${k}>${p})`).join('|'), 'g');

// A table column holds measurements when its header names one.
const MEASURED_HEADER =
  /BLEU|tok(?:en)?s\/s|\bms\b|FLOP|\bratio\b|accuracy|perplexity|efficiency|speed|\bloss\b|\btime\b|minutes|seconds|%|\bsteps in\b|latency|\bKiB\b|\bMiB\b|\bMB\b/i;
const NUMERIC_CELL = /^\**[~≈]?[+-]?\d[\d,]*(?:\.\d+)?\**(?:\s?(?:%|×|x|ms|s|min|M|k|GFLOP\/s|tokens\/s))?\**$/;

// The mark before a table that holds no measurements (goals stated before measuring, settings).
export const NO_MEASUREMENTS = /^<!-- no measurements: .+ -->$/;

const cells = (row) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

// Lines of a Markdown text outside its generated blocks, as [lineNumber (1-based), text].
export function linesOutsideBlocks(text) {
  const out = [];
  let open = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^<!-- ([\w-]+):(begin|end) -->$/);
    if (m) {
      open = m[2] === 'begin' ? m[1] : null;
      continue;
    }
    if (!open) out.push([i + 1, lines[i]]);
  }
  return out;
}

// The typed figures of a Markdown text: {line, kind, match, text} for each number in prose (or in
// a cell) that has a measurement's shape, and for each numeric cell of a table column whose
// header names a measurement. Generated blocks are left out.
export function typedFigures(text) {
  const found = [];
  const lines = linesOutsideBlocks(text);
  let header = null; // the measured columns of the table being read
  let marked = false; // the table being read is marked as holding no measurements
  for (let k = 0; k < lines.length; k++) {
    const [n, line] = lines[k];
    const isRow = line.trim().startsWith('|');
    if (!isRow) marked = false;
    if (NO_MEASUREMENTS.test(line.trim())) {
      // the next table, after blank lines, is a declared non-measurement (goals, settings)
      let j = k + 1;
      while (j < lines.length && lines[j][1].trim() === '') j++;
      if (lines[j]?.[1].trim().startsWith('|')) {
        marked = true;
        k = j - 1;
      }
      continue;
    }
    if (marked) continue;
    for (const m of line.matchAll(PATTERN)) {
      const kind = Object.entries(m.groups).find(([, v]) => v !== undefined)[0];
      found.push({ line: n, kind, match: m[0], text: line });
    }
    const next = lines[k + 1]?.[1] ?? '';
    if (isRow && /^\|( ?:?-+:? ?\|)+$/.test(next.trim())) {
      header = cells(line).map((h) => MEASURED_HEADER.test(h));
      k++; // the delimiter row
      continue;
    }
    if (!isRow) {
      header = null;
      continue;
    }
    if (!header) continue;
    cells(line).forEach((c, i) => {
      if (
        header[i] &&
        NUMERIC_CELL.test(c) &&
        !found.some((f) => f.line === n && f.match.includes(c.replace(/\*/g, '')))
      )
        found.push({ line: n, kind: 'table', match: c, text: line });
    });
  }
  return found;
}

// The figures no allow-list entry covers, and the entries that cover nothing (stale). entries:
// [{file, text | pattern, kind: 'paper' | 'fact', why}]: a figure is allowed when its line holds
// the entry's text and that text holds the figure, or when the entry's pattern (a regular
// expression) matches its line and the figure lies in that match.
const covers = (e, f) => {
  if (e.text !== undefined) return f.text.includes(e.text) && e.text.includes(f.match);
  const m = f.text.match(new RegExp(e.pattern));
  return Boolean(m && m[0].includes(f.match));
};
export function unallowed(file, figures, entries) {
  const mine = entries.filter((e) => e.file === file);
  const used = new Set();
  const left = figures.filter((f) => {
    const e = mine.find((x) => covers(x, f));
    if (e) used.add(e);
    return !e;
  });
  return { left, stale: mine.filter((e) => !used.has(e)) };
}
