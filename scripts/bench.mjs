// `npm run bench`: every benchmark row, measured side by side in one run, printed as one table
// and written to build/bench.json as [{name, unit, attnlab, peer, peer_value, ratio, ...}]
// (ratio > 1: attnlab is better). It builds nothing: build/native and build/wasm must exist.
// Rows come from the modules in scripts/bench/*.mjs, run in file-name order; each exports
// `async function rows(ctx)` (or one function named *Rows) returning rows. ctx offers:
//   ctx.native(args)         run build/native/attnlab_bench with args, parse its JSON
//   ctx.wasm(engine, cases)  run scripts/bench/peers/wasm_runner.mjs (engine 'attnlab'|'tfjs')
//   ctx.torch(threads, gemm) PyTorch+OpenBLAS GEMM results, or null when the peer is missing
//   ctx.quick, ctx.root, ctx.log(line)
// Flags: --install-peers (apt-get install python3-torch libopenblas0-pthread), --quick,
//        --only NAME (run the modules whose file name contains NAME).
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { run, must } from './lib/run.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (f) => argv.includes(f);
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : null;
const PYTHON = '/usr/bin/python3';

if (flag('--install-peers')) {
  if (process.getuid && process.getuid() !== 0) {
    console.error('bench: --install-peers needs root: sudo apt-get install -y python3-torch libopenblas0-pthread');
    process.exit(1);
  }
  await must('apt-get', ['update', '-qq']);
  await must('apt-get', ['install', '-y', '-qq', 'python3-torch', 'libopenblas0-pthread'],
    { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

const need = [path.join(root, 'build', 'native', 'attnlab_bench'), path.join(root, 'build', 'wasm', 'attnlab-node.cjs')]
  .filter((f) => !existsSync(f));
if (need.length) {
  console.error(`bench: missing ${need.map((f) => path.relative(root, f)).join(', ')}; build first ` +
    '(npm run build:engine, or the cmake commands for build/native and build/wasm in the README)');
  process.exit(1);
}

async function json(cmd, args, what) {
  const r = await run(cmd, args, { capture: true, cwd: root });
  const last = r.out.trim().split('\n').pop();
  if (r.code !== 0) throw new Error(`${what} exited with ${r.code}: ${r.out.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(last);
}

const torchCache = new Map();
let torchNote = null;
const ctx = {
  root,
  quick: flag('--quick'),
  log: (line) => console.log(`  ${line}`),
  native: (args) => json(path.join(root, 'build', 'native', 'attnlab_bench'), args, 'attnlab_bench'),
  wasm: (engine, cases) => json(process.execPath,
    ['--no-experimental-fetch', '--no-liftoff', path.join(root, 'scripts', 'bench', 'peers', 'wasm_runner.mjs'), engine, JSON.stringify(cases)],
    `wasm_runner ${engine}`),
  // PyTorch GEMM on `threads` threads (OMP/OpenBLAS limited to the same), or null with a note.
  async torch(threads, cases) {
    if (!existsSync(PYTHON)) { torchNote ??= `${PYTHON} missing`; return null; }
    const key = `${threads}:${JSON.stringify(cases)}`;
    if (!torchCache.has(key)) {
      const env = { ...process.env, OMP_NUM_THREADS: String(threads), OPENBLAS_NUM_THREADS: String(threads) };
      const r = await run(PYTHON, [path.join(root, 'scripts', 'bench', 'peers', 'torch_gemm.py'), String(threads), JSON.stringify(cases)],
        { capture: true, cwd: root, env });
      let res = null;
      if (r.code === 0) res = JSON.parse(r.out.trim().split('\n').pop());
      else torchNote ??= `python3-torch not usable: ${r.out.trim().split('\n').pop()}`;
      if (res) {
        const blas = res.blas.join(', ') || 'none found';
        if (!torchNote) {
          const cfg = res.config.match(/BLAS_INFO=[^,]*/)?.[0] ?? 'BLAS_INFO unknown';
          console.log(`  pytorch ${res.torch}: ${cfg} (build); BLAS loaded at run time: ${blas}`);
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

const dir = path.join(root, 'scripts', 'bench');
const modules = readdirSync(dir).filter((f) => f.endsWith('.mjs') && (!only || f.includes(only))).sort();
const rows = [];
for (const file of modules) {
  console.log(`bench: ${file}`);
  const mod = await import(pathToFileURL(path.join(dir, file)).href);
  const fn = mod.rows ?? Object.entries(mod).find(([k, v]) => typeof v === 'function' && k.endsWith('Rows'))?.[1];
  if (!fn) { console.log('  no rows() export, skipped'); continue; }
  try {
    rows.push(...(await fn(ctx)));
  } catch (e) {
    console.log(`  skipped: ${e.message.split('\n')[0]}`);
  }
}
if (torchNote) console.log(`bench: PyTorch peer columns empty: ${torchNote}`);

const fmt = (x) => (x == null ? '—' : typeof x === 'number' ? String(x) : x);
const cols = [
  ['name', (r) => r.name], ['unit', (r) => r.unit], ['attnlab', (r) => fmt(r.attnlab)],
  ['% peak', (r) => fmt(r.pct_peak)], ['peer', (r) => fmt(r.peer)], ['peer value', (r) => fmt(r.peer_value)],
  ['ratio', (r) => fmt(r.ratio)],
];
const widths = cols.map(([h, f]) => Math.max(h.length, ...rows.map((r) => String(f(r)).length)));
const line = (cells) => cells.map((c, i) => (i >= 2 && i !== 4 ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' | ');
console.log(`\n${line(cols.map(([h]) => h))}`);
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const r of rows) console.log(line(cols.map(([, f]) => f(r))));

const file = path.join(root, 'build', 'bench.json');
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
console.log(`\nbench: ${rows.length} rows written to ${path.relative(root, file)}`);
