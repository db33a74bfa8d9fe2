// `npm run reproduce -- --readme`: the rows of build/reproduce/results.json (the last
// `npm run reproduce`) become docs/reproduce/results/<row>.json, the committed sources of the
// reproduction tables of docs/reproduction.md, and the tables are rewritten from them (readme-tables.mjs).
// Rows with no result here keep their committed file, so a table filled over several sittings,
// or on several machines, keeps every row and each row names where its figures come from.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPRODUCE_SOURCES, blockFiles, writeDocs } from '../../scripts/lib/readme-tables.mjs';

// The format name of a metric's printer (reproduce.mjs keeps functions; the files keep names).
function formatName(f, fallback) {
  if (!f) return fallback;
  const s = f(0.5);
  const known = { '50.0%': 'pct', '+50.0%': 'plus_pct', '0.500': 'fixed3', '50.0': 'points' };
  if (!known[s]) throw new Error(`reproduce --readme: no format name for a printer giving ${s}`);
  return known[s];
}

// What ran: the command, the engine commit and machine its runs recorded, their wall time and
// when they finished (runs from before the machine was recorded say so).
function measuredBy(id, result, { commit, date }) {
  const runs = result.runs ?? [];
  const uniq = (xs) => [...new Set(xs.filter(Boolean))];
  const engines = uniq(runs.map((r) => String(r.commit ?? '').slice(0, 12)));
  const cpus = uniq(runs.map((r) => r.cpu));
  const days = uniq(runs.map((r) => r.finished?.slice(0, 10)));
  const wall = runs.map((r) => r.wall_seconds).filter((x) => x > 0);
  // runs continued after an interruption (reproduce.mjs: sittings)
  const split = runs
    .map((r, i) => [result.seeds[i], r.sittings?.length ?? 1])
    .filter(([, n]) => n > 1)
    .map(([seed, n]) => `seed ${seed} in ${n} sittings`);
  return (
    `npm run reproduce -- --only ${id} (seeds ${result.seeds.join(', ')}), engine commit ` +
    `${engines.join(' and ') || 'not recorded'}; ${cpus.length ? cpus.join(' and ') : 'machine not recorded in its run files'}; ` +
    `${wall.length ? `wall ${wall.map((s) => `${(s / 60).toFixed(1)}`).join(', ')} min a seed; ` : ''}` +
    `${split.length ? `${split.join(', ')}; ` : ''}` +
    `${days.length ? `finished ${days.join(', ')}` : `results.json of ${date}`}; written by --readme at ${commit}`
  );
}

// One source file's object from a row of results.json and its definition in reproduce.mjs.
export function sourceRow(def, result, previous, { commit, date }) {
  const metrics = def.metrics.map((k) => {
    const m = result.metrics[k.label];
    if (!m) throw new Error(`reproduce --readme: ${def.id} has no metric ${k.label} in results.json`);
    const fmt = formatName(k.fmt, 'pct');
    return {
      label: k.label,
      fmt,
      sd_fmt: formatName(k.sdFmt, 'points'),
      mean: m.mean,
      sd: m.sd,
      worst: m.worst,
      values: m.values,
      value: m.mean,
    };
  });
  const single = previous?.table?.startsWith('single:');
  return {
    id: def.id,
    table: previous?.table ?? def.table ?? 'seeds',
    order: previous?.order ?? def.order ?? 99,
    seeds: result.seeds,
    what: single ? previous.what : def.what,
    paper: single ? previous.paper : def.paper,
    ...(previous?.prefix ? { prefix: previous.prefix } : {}),
    metrics,
    met: result.met,
    steps: result.steps,
    minutes: result.minutes,
    source: measuredBy(def.id, result, { commit, date }),
  };
}

export function reproduceReadme(root, runs) {
  const dir = path.join(root, REPRODUCE_SOURCES);
  mkdirSync(dir, { recursive: true });
  const file = path.join(root, 'build', 'reproduce', 'results.json');
  const updated = [];
  if (existsSync(file)) {
    const results = JSON.parse(readFileSync(file, 'utf8'));
    let commit = 'unknown';
    try {
      commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    } catch {
      /* no git */
    }
    const date = statSync(file).mtime.toISOString().slice(0, 10);
    for (const def of runs) {
      const result = results[def.id];
      if (!result) continue;
      const target = path.join(dir, `${def.id}.json`);
      const previous = existsSync(target) ? JSON.parse(readFileSync(target, 'utf8')) : null;
      writeFileSync(target, `${JSON.stringify(sourceRow(def, result, previous, { commit, date }), null, 1)}\n`);
      updated.push(def.id);
    }
  } else {
    console.log(
      `reproduce --readme: no ${path.relative(root, file)} on this machine: the tables are written from the committed files alone`
    );
  }
  const where = blockFiles(root);
  // every block but the benchmark's (npm run bench -- --readme): the reproductions, and the
  // translator's, the LM's and the multi-GPU estimate's from their committed files
  const { done } = writeDocs(root, (name) => name !== 'bench' && name !== 'pool');
  const files = [...new Set(done.map((n) => where.get(n)))].join(', ');
  console.log(
    `reproduce --readme: ${updated.length ? `rows ${updated.join(', ')} updated from results.json; ` : ''}tables ${done.join(', ')} written to ${files} from their committed sources (${REPRODUCE_SOURCES}/ for the reproductions)`
  );
}
