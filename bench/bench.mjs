// `npm run bench`: every benchmark row, measured side by side in one run, printed as one table
// and written to build/bench.json as {meta: {date, commit, cpu, ...}, rows: [{name, unit,
// attnlab, peer, peer_value, ratio, ...}]} (ratio > 1: attnlab is better). It builds nothing:
// build/native must exist; modules whose build (build/wasm, dist/) is missing are skipped.
// Rows come from the modules in bench/rows/*.mjs, run in file-name order; each exports
// `async function rows(ctx)` (or one function named *Rows) returning rows. ctx offers:
//   ctx.native(args)         run build/native/attnlab_bench with args, parse its JSON
//   ctx.wasm(engine, cases)  run bench/peers/wasm_runner.mjs (engine 'attnlab'|'tfjs')
//   ctx.torch(threads, gemm) PyTorch+OpenBLAS GEMM results, or null when the peer is missing
//   ctx.peak('native'|'wasm') the measured one-core SIMD peak (GFLOP/s), measured once per run
//   ctx.ceiling()            the machine's one-core FMA-chain ceiling (peers/machine.mjs), the
//                            bound of wasm rows' % peak; ctx.machine names the CPU
//   ctx.quick, ctx.root, ctx.log(line)
// Every peer runs at its best: bench/peers/env.mjs gives its command alone an
// environment without OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE, with OpenMP spinning bounded as our
// pool's (GOMP_SPINCOUNT; the passive figure beside it at 2 threads) and the thread counts
// pinned; each peer row names the OpenBLAS kernel the peer loaded.
// Rows may carry pct_peak (% of the measured peak: a row above 100% is flagged over_peak and
// the run ends with exit code 3, since a peak below what a kernel reaches is no upper bound)
// and goal / goal_met (the goals below, printed as a summary).
// Each run appends one line per row to build/bench-history.jsonl ({run, commit, date, load, row
// fields}); `--compare` prints each row's change since the previous run in that file.
// Flags: --install-peers (apt-get install python3-torch libopenblas0-pthread), --quick,
//        --only NAME[,NAME] (run the modules whose file name contains a NAME), --compare,
//        --readme (measure nothing: copy build/bench.json to docs/bench/bench.json and write the
//        Benchmarks table of docs/benchmarks.md from it, and the pool table from docs/bench/pool-*.json,
//        scripts/lib/readme-tables.mjs; without build/bench.json only the pool table).
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { run, must } from '../scripts/lib/run.mjs';
import { peerEnv, blasCore } from './peers/env.mjs';
import { GOALS, checkGoals, compareRuns } from './peers/report.mjs';
import { BENCH_SOURCE, blockFiles, writeDocs } from '../scripts/lib/readme-tables.mjs';
import { machineInfo, ceiling } from './peers/machine.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (f) => argv.includes(f);
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : null;
const PYTHON = '/usr/bin/python3';
// node < 22 runs relaxed-SIMD modules only behind a flag (later versions ship it).
const RELAXED_FLAG = Number(process.versions.node.split('.')[0]) < 22 ? ['--experimental-wasm-relaxed-simd'] : [];

if (flag('--install-peers')) {
  if (process.getuid && process.getuid() !== 0) {
    console.error('bench: --install-peers needs root: sudo apt-get install -y python3-torch libopenblas0-pthread');
    process.exit(1);
  }
  await must('apt-get', ['update', '-qq']);
  await must('apt-get', ['install', '-y', '-qq', 'python3-torch', 'libopenblas0-pthread'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

if (flag('--readme')) {
  const from = path.join(root, 'build', 'bench.json');
  if (!existsSync(from)) {
    const { files } = writeDocs(root, (name) => name === 'pool');
    console.log(
      `bench --readme: build/bench.json is missing (run npm run bench first): only the pool table was written${files.length ? ` (${files.join(', ')})` : ''}`
    );
    process.exit(0);
  }
  const doc = JSON.parse(readFileSync(from, 'utf8'));
  if (!doc.meta || !Array.isArray(doc.rows)) {
    console.error(
      'bench --readme: build/bench.json has no {meta, rows} (written by an older bench): run npm run bench again'
    );
    process.exit(1);
  }
  mkdirSync(path.join(root, path.dirname(BENCH_SOURCE)), { recursive: true });
  writeFileSync(path.join(root, BENCH_SOURCE), `${JSON.stringify(doc, null, 1)}\n`);
  const where = blockFiles(root);
  writeDocs(root, (name) => name === 'bench' || name === 'scaling' || name === 'pool');
  console.log(
    `bench --readme: ${doc.rows.length} rows of the run of ${doc.meta.date} (commit ${doc.meta.commit}) copied to ${BENCH_SOURCE} and written to ${where.get('bench')}`
  );
  process.exit(0);
}

const need = [path.join(root, 'build', 'native', 'attnlab_bench')].filter((f) => !existsSync(f));
if (need.length) {
  console.error(
    `bench: missing ${need.map((f) => path.relative(root, f)).join(', ')}; build first ` +
      '(npm run build:engine, or the cmake commands for build/native and build/wasm in docs/tests.md)'
  );
  process.exit(1);
}

async function json(cmd, args, what) {
  const r = await run(cmd, args, { capture: true, cwd: root });
  const last = r.out.trim().split('\n').pop();
  if (r.code !== 0) throw new Error(`${what} exited with ${r.code}: ${r.out.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(last);
}

const load = () => os.loadavg().map((x) => Number(x.toFixed(2)));
const loadAtStart = load();
const runStart = new Date().toISOString();
// The commit measured, taken at the start (edits during the run are not what ran).
let commit = null;
try {
  commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  if (execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).trim())
    commit += '+dirty';
} catch {
  /* not a git checkout */
}
let chromiumVersion = null;
console.log(`bench: load average at start ${loadAtStart.join(' ')} (1, 5, 15 min; ${os.cpus().length} CPUs)`);
console.log('bench: the goals, stated before measuring:');
for (const g of GOALS) console.log(`  ${g.text}`);

const torchCache = new Map();
const peaks = new Map();
let torchNote = null;
const ctx = {
  root,
  quick: flag('--quick'),
  log: (line) => console.log(`  ${line}`),
  native: (args) => json(path.join(root, 'build', 'native', 'attnlab_bench'), args, 'attnlab_bench'),
  wasm: (engine, cases) =>
    json(
      process.execPath,
      [
        '--no-experimental-fetch',
        '--no-liftoff',
        ...(engine === 'attnlab-relaxed' ? RELAXED_FLAG : []),
        path.join(root, 'bench', 'peers', 'wasm_runner.mjs'),
        engine,
        JSON.stringify(cases),
      ],
      `wasm_runner ${engine}`
    ),
  // The one-core SIMD peak as an upper bound, with its parts: natively the largest of FMA and
  // mul+add chains and the GEMM's register tile on L1 data (attnlab_bench peak); in wasm the
  // same for the plain build (SIMD128 mul+add chains, tile) and the relaxed build (relaxed_madd,
  // i.e. FMA, and mul+add chains, tile), since an engine may run a SIMD128 GEMM faster than
  // separate chains (node on an AVX-512 EPYC: GEMM 55.9 GFLOP/s, mul+add chains 37.6, relaxed
  // chains 52.6: V8 spills a dozen chain accumulators), never faster than its own inner loop.
  // Resolves to {gflops, parts: {label: GFLOP/s or null}}.
  peakDetail(kind) {
    if (!peaks.has(kind)) {
      const seconds = ctx.quick ? 0.4 : 1.5;
      peaks.set(
        kind,
        kind === 'native'
          ? ctx.native(['peak', String(seconds)]).then((r) => ({
              gflops: r.peak_gflops,
              parts: {
                'FMA chains': r.fma_gflops || null,
                'mul+add chains': r.mul_add_gflops ?? r.peak_gflops,
                'GEMM tile on L1 data': r.tile_gflops ?? null,
              },
            }))
          : (async () => {
              const [plain] = await ctx.wasm('attnlab', [{ kind: 'peak', seconds }]);
              let fma = null;
              if (existsSync(path.join(root, 'build', 'wasm-relaxed', 'attnlab-relaxed-node.cjs'))) {
                try {
                  fma = (await ctx.wasm('attnlab-relaxed', [{ kind: 'peak', seconds }]))[0];
                } catch (e) {
                  ctx.log(`relaxed-SIMD peak not measured: ${e.message.split('\n')[0]}`);
                }
              } else
                ctx.log(
                  'relaxed-SIMD peak not measured: no build/wasm-relaxed node module (the wasm peak is the plain build: chains and tile alone)'
                );
              return {
                gflops: Math.max(plain.gflops, fma?.gflops ?? 0),
                parts: {
                  'SIMD128 mul+add chains': plain.mulAdd,
                  'GEMM tile on L1 data': plain.tile,
                  'relaxed build, larger of relaxed_madd and mul+add chains': fma
                    ? Math.max(fma.fma, fma.mulAdd)
                    : null,
                  'relaxed build, GEMM tile': fma?.tile ?? null,
                },
              };
            })()
      );
    }
    return peaks.get(kind);
  },
  peak: (kind) => ctx.peakDetail(kind).then((p) => p.gflops),
  machine: machineInfo(),
  // The machine's ceiling: one core's native FMA chains (mul+add chains where the build has no
  // FMA), the bound that wasm rows' % peak is taken against.
  ceiling: () =>
    ctx
      .peakDetail('native')
      .then((p) => ceiling(p.parts['FMA chains'] ?? p.parts['mul+add chains'] ?? p.gflops, ctx.machine)),
  // PyTorch GEMM on `threads` threads (peers/env.mjs: OMP/OpenBLAS pinned to the same, no
  // inherited OPENBLAS_CORETYPE, passive OpenMP waits), or null with a note. The result's
  // `core` is the OpenBLAS kernel it loaded.
  // wait: 'spin' (bounded, GOMP_SPINCOUNT) or 'passive' (peers/env.mjs).
  async torch(threads, cases, { wait = 'spin' } = {}) {
    if (!existsSync(PYTHON)) {
      torchNote ??= `${PYTHON} missing`;
      return null;
    }
    const key = `${threads}:${wait}:${JSON.stringify(cases)}`;
    if (!torchCache.has(key)) {
      const env = peerEnv(threads, process.env, { wait });
      const r = await run(
        PYTHON,
        [path.join(root, 'bench', 'peers', 'torch_gemm.py'), String(threads), JSON.stringify(cases)],
        { capture: true, cwd: root, env }
      );
      let res = null;
      if (r.code === 0) {
        res = JSON.parse(r.out.trim().split('\n').pop());
        res.core = res.openblas?.corename ?? blasCore(r.out);
      } else torchNote ??= `python3-torch not usable: ${r.out.trim().split('\n').pop()}`;
      if (res) {
        const blas = res.blas.join(', ') || 'none found';
        if (!torchNote) {
          const cfg = res.config.match(/BLAS_INFO=[^,]*/)?.[0] ?? 'BLAS_INFO unknown';
          console.log(
            `  pytorch ${res.torch}: ${cfg} (build); BLAS loaded at run time: ${blas}; ` +
              `OpenBLAS kernel ${res.core ?? 'unknown'} (${res.openblas?.config ?? 'no config'}), ${res.openblas?.num_threads ?? '?'} threads`
          );
        }
        if (!res.blas.some((p) => /openblas/i.test(p))) {
          torchNote = `pytorch loads ${blas}, not OpenBLAS (run npm run bench -- --install-peers)`;
          res = null;
        }
      }
      torchCache.set(key, res);
    }
    return torchCache.get(key);
  },
};

const dir = path.join(root, 'bench', 'rows');
const onlyWords = only ? only.split(',').filter(Boolean) : null;
const modules = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && (!onlyWords || onlyWords.some((w) => f.includes(w))))
  .sort();
const rows = [];
for (const file of modules) {
  console.log(`bench: ${file}`);
  const mod = await import(pathToFileURL(path.join(dir, file)).href);
  const fn = mod.rows ?? Object.entries(mod).find(([k, v]) => typeof v === 'function' && k.endsWith('Rows'))?.[1];
  if (!fn) {
    console.log('  no rows() export, skipped');
    continue;
  }
  try {
    const got = await fn(ctx);
    const l = load();
    for (const r of got) r.load = l[0];
    rows.push(...got);
  } catch (e) {
    console.log(`  skipped: ${e.message.split('\n')[0]}`);
  }
}
if (torchNote) console.log(`bench: PyTorch peer columns empty: ${torchNote}`);

for (const r of rows) {
  if ((r.pct_peak ?? 0) > 100 || (r.kernel_eff ?? 0) > 100) r.over_peak = true;
}
checkGoals(rows);
const fmt = (x) => (x == null ? '—' : typeof x === 'number' ? String(x) : x);
const cols = [
  ['name', (r) => r.name],
  ['unit', (r) => r.unit],
  ['attnlab', (r) => fmt(r.attnlab)],
  ['% peak', (r) => fmt(r.pct_peak)],
  ['kernel eff.', (r) => fmt(r.kernel_eff)],
  ['peer', (r) => fmt(r.peer)],
  ['peer value', (r) => fmt(r.peer_value)],
  ['ratio', (r) => fmt(r.ratio)],
  ['cpu ratio', (r) => fmt(r.cpu_ratio ?? (r.cpu_pct_peak != null ? `${r.cpu_pct_peak}% pk/cpu-s` : null))],
  ['goal', (r) => (r.goal ? `${r.goal} ${r.goal_met ? 'met' : 'MISSED'}` : '')],
  ['flag', (r) => (r.over_peak ? 'OVER PEAK' : '')],
  ['notes', (r) => r.note ?? ''],
];
const widths = cols.map(([h, f]) => Math.max(h.length, ...rows.map((r) => String(f(r)).length)));
const line = (cells) =>
  cells
    .map((c, i) => (i >= 2 && i !== 5 && i < 9 ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i])))
    .join(' | ');
console.log(`\n${line(cols.map(([h]) => h))}`);
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const r of rows) console.log(line(cols.map(([, f]) => f(r))));

const loadAtEnd = load();
console.log(
  `\nbench: load average at start ${loadAtStart.join(' ')}, at end ${loadAtEnd.join(' ')} (${os.cpus().length} CPUs; ` +
    'a load above the CPU count means other work shared the cores: numbers are then low and noisy)'
);

console.log('\ngoals (stated before measuring; a miss is reported, not hidden):');
for (const g of GOALS) {
  const mine = rows.filter((r) => r.goal_id === g.id);
  const missed = mine.filter((r) => !r.goal_met);
  const status = !mine.length
    ? 'not measured in this run'
    : missed.length
      ? `MISSED in ${missed.length} of ${mine.length} rows`
      : `met in all ${mine.length} rows`;
  console.log(`  ${g.text}: ${status}`);
  for (const r of missed) console.log(`      ${r.name}: ${fmt(r.goal_value)}${g.unit ?? 'x'}`);
}

const over = rows.filter((r) => r.over_peak);
if (over.length) {
  console.log(
    `\nbench: WARNING: ${over.length} row(s) above 100% of their measured peak: the peak is no upper bound there`
  );
  for (const r of over) console.log(`  ${r.name}: ${r.pct_peak}%`);
  process.exitCode = 3;
}

const runId = runStart;
chromiumVersion = rows.find((r) => r.browser_version)?.browser_version ?? null;
const cpuInfo = ctx.machine.isa;
// Measured already when a kernels or training row ran; otherwise not measured here.
const machineCeiling = peaks.has('native') ? await ctx.ceiling().catch(() => null) : null;
const meta = {
  command: `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
  date: runStart,
  commit,
  cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
  cpus: os.cpus().length,
  simd: cpuInfo,
  mhz: ctx.machine.mhz,
  // What "% peak" is taken against: natively the largest of FMA chains, mul+add chains and
  // the GEMM tile (≈ the FMA ceiling); wasm rows against the native FMA-chain ceiling.
  peak_basis: 'machine',
  ceiling: machineCeiling,
  node: process.versions.node,
  chromium: chromiumVersion,
  load_start: loadAtStart,
  load_end: loadAtEnd,
  goals: GOALS.map((g) => {
    const mine = rows.filter((r) => r.goal_id === g.id),
      missed = mine.filter((r) => !r.goal_met);
    return {
      text: g.text,
      status: !mine.length
        ? 'not measured in this run'
        : missed.length
          ? `missed in ${missed.length} of ${mine.length} rows (${missed.map((r) => `${r.name}: ${fmt(r.goal_value)}${g.unit ?? 'x'}`).join('; ')})`
          : `met in all ${mine.length} rows`,
    };
  }),
};
const file = path.join(root, 'build', 'bench.json');
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify({ meta, rows }, null, 2)}\n`);
console.log(
  `\nbench: ${rows.length} rows written to ${path.relative(root, file)} (npm run bench -- --readme puts them in docs/benchmarks.md)`
);

// History: one line per row; a run is identified by its start date.
const historyFile = path.join(root, 'build', 'bench-history.jsonl');
const previous = existsSync(historyFile)
  ? readFileSync(historyFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return null;
        }
      })
      .filter(Boolean)
  : [];
appendFileSync(
  historyFile,
  rows.map((r) => `${JSON.stringify({ run: runId, commit, date: runId, load: loadAtEnd, ...r })}\n`).join('')
);
console.log(
  `bench: ${rows.length} history lines appended to ${path.relative(root, historyFile)} (commit ${commit ?? 'unknown'})`
);

if (flag('--compare')) {
  const lines = compareRuns(previous, rows);
  console.log(
    lines.length ? '\nchange since the previous run of each row:' : '\nbench --compare: no earlier run in the history'
  );
  for (const l of lines) console.log(`  ${l}`);
}
