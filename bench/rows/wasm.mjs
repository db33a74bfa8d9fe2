// Bench rows for the engine in the browser's runtime (node stands in for the browser):
//   .wasm size and gzipped size (single-thread and pthread builds); instantiate time in node;
//   ms per training step (forward + backward + Adam) for the Transformer issue's configs
//   S (vocab 32, d_model 64, 4 heads, d_ff 256, 2+2 layers, lengths 16, batch 32) and
//   M (d_model 128, d_ff 512, lengths 32): attnlab-wasm (1 thread) vs the same model in TF.js
//   ops on TF.js's wasm backend (1 thread), and attnlab-wasm vs attnlab-native (`attn train`,
//   1 thread, the same task and shapes).
// Rows follow build/bench.json's shape {name, unit, attnlab, peer, peer_value, ratio}; ratio is
// the peer's time over attnlab-wasm's (speed-up), except in the wasm-vs-native rows where it is
// wasm's time over native's (the slowdown, goal <= 3). Run alone: `node bench/rows/wasm.mjs` prints the rows and
// merges them into build/bench.json.
import { existsSync, readFileSync, writeFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapModule } from '../../web/core/api.js';
import { loadTfjsWasm, tfjsTransformer } from './tfjs_transformer.mjs';
import { CONFIGS, flopsOf, sessionConfig } from './configs.mjs';
import { pctOf } from '../peers/machine.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const now = () => performance.now();

function row(name, unit, attnlab, peer = null, peerValue = null, lowerIsBetter = true) {
  const ratio =
    peerValue == null ? null : Number((lowerIsBetter ? peerValue / attnlab : attnlab / peerValue).toFixed(2));
  return {
    name,
    unit,
    attnlab: Number(attnlab.toFixed(unit === 'KiB' ? 0 : 1)),
    peer,
    peer_value: peerValue == null ? null : Number(peerValue.toFixed(1)),
    ratio,
  };
}

function sizeRows() {
  const rows = [];
  for (const [dir, file, label] of [
    ['wasm', 'attnlab.wasm', 'single-thread'],
    ['wasm-mt', 'attnlab-mt.wasm', 'pthreads'],
  ]) {
    const p = path.join(root, 'build', dir, file);
    if (!existsSync(p)) continue;
    const bytes = readFileSync(p);
    rows.push(row(`wasm: ${file} size (${label})`, 'KiB', bytes.length / 1024));
    rows.push(row(`wasm: ${file} gzipped (${label})`, 'KiB', gzipSync(bytes, { level: 9 }).length / 1024));
  }
  return rows;
}

async function instantiateRow(samples = 5) {
  const require = createRequire(import.meta.url);
  const create = require(path.join(root, 'build', 'wasm', 'attnlab-node.cjs'));
  const wasmBinary = readFileSync(path.join(root, 'build', 'wasm', 'attnlab-node.wasm'));
  const times = [];
  for (let i = 0; i < samples; i++) {
    const t0 = now();
    const mod = await create({ wasmBinary });
    times.push(now() - t0);
    mod.info();
  }
  return row('wasm: compile + instantiate in node (median of 5)', 'ms', median(times));
}

async function attnlabWasmMs(c) {
  const require = createRequire(import.meta.url);
  const create = require(path.join(root, 'build', 'wasm', 'attnlab-node.cjs'));
  const engine = wrapModule(
    await create({ wasmBinary: readFileSync(path.join(root, 'build', 'wasm', 'attnlab-node.wasm')) })
  );
  const s = engine.createSession(sessionConfig(c));
  s.train(2);
  const t0 = now();
  s.train(c.steps);
  const ms = (now() - t0) / c.steps;
  s.dispose();
  return ms;
}

function attnlabNativeMs(c) {
  const cli = path.join(root, 'build', 'native', 'attn');
  if (!existsSync(cli)) return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-bench-'));
  const cfg = sessionConfig(c);
  writeFileSync(path.join(dir, 'model.json'), JSON.stringify(cfg.model));
  const run = (steps) => {
    const t0 = now();
    const p = spawnSync(
      cli,
      [
        'train',
        '--task',
        'copy',
        '--task-options',
        JSON.stringify(cfg.task_options),
        '--config',
        path.join(dir, 'model.json'),
        '--steps',
        String(steps),
        '--batch',
        String(c.batch),
        '--schedule',
        'constant',
        '--lr',
        '0.001',
        '--threads',
        '1',
        '--log-every',
        '1000000',
        '--out',
        path.join(dir, 'm.safetensors'),
      ],
      { encoding: 'utf8' }
    );
    if (p.status !== 0) throw new Error(`attn train failed: ${p.stderr}`);
    return now() - t0;
  };
  run(1);
  const short = median([run(2), run(2), run(2)]),
    long = median([run(2 + 2 * c.steps), run(2 + 2 * c.steps), run(2 + 2 * c.steps)]);
  rmSync(dir, { recursive: true, force: true });
  return (long - short) / (2 * c.steps);
}

async function tfjsMs(c) {
  const tf = await loadTfjsWasm();
  const model = tfjsTransformer({ V: c.V, C: c.C, H: c.H, F: c.F, layers: c.layers });
  const ids = (B, L) =>
    tf.tensor2d(
      Int32Array.from({ length: B * L }, (_, i) => 3 + ((i * 7919 + 13) % (c.V - 3))),
      [B, L],
      'int32'
    );
  const src = ids(c.batch, c.len),
    tgtIn = ids(c.batch, c.len + 1),
    tgtOut = ids(c.batch, c.len + 1);
  model.step(src, tgtIn, tgtOut);
  const steps = Math.max(2, c.steps >> 1);
  const t0 = now();
  for (let i = 0; i < steps; i++) model.step(src, tgtIn, tgtOut);
  const ms = (now() - t0) / steps;
  [src, tgtIn, tgtOut].forEach((t) => t.dispose());
  model.dispose();
  return ms;
}

export async function wasmRows(ctx = {}) {
  const rows = [...sizeRows(), await instantiateRow()];
  const wasmPeak = ctx.peak ? await ctx.peak('wasm') : null;
  const top = ctx.ceiling ? (await ctx.ceiling()).gflops : null;
  for (const [name, c] of Object.entries(CONFIGS)) {
    const wasm = await attnlabWasmMs(c);
    const peer = await tfjsMs(c);
    rows.push(
      row(`train step config ${name}: attnlab-wasm vs TF.js wasm backend (1 thread)`, 'ms', wasm, 'tfjs-wasm', peer)
    );
    // Model FLOP/s (peers/env.mjs trainStepFlops): % of the machine's one-core FMA ceiling, and
    // (kernel efficiency) of the wasm SIMD128 bound.
    const gflop = flopsOf(c) * 1e-9;
    const mfu = row(
      `model FLOP/s, training config ${name} (${gflop.toFixed(2)} GFLOP/step), wasm 1T`,
      'GFLOP/s',
      gflop / (wasm * 1e-3),
      'tfjs-wasm (same formula)',
      gflop / (peer * 1e-3),
      false
    );
    mfu.pct_peak = pctOf(gflop / (wasm * 1e-3), top);
    mfu.kernel_eff = pctOf(gflop / (wasm * 1e-3), wasmPeak);
    rows.push(mfu);
    const native = attnlabNativeMs(c);
    if (native != null)
      rows.push(
        row(
          `train step config ${name}: attnlab-wasm vs attnlab-native (1 thread, ratio = slowdown)`,
          'ms',
          wasm,
          'attnlab-native',
          native,
          false
        )
      );
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await wasmRows();
  for (const r of rows)
    console.log(
      `${r.name.padEnd(80)} ${String(r.attnlab).padStart(9)} ${r.unit}${r.peer ? `  ${r.peer} ${r.peer_value}  ratio ${r.ratio}` : ''}`
    );
  const out = path.join(root, 'build', 'bench.json');
  mkdirSync(path.dirname(out), { recursive: true });
  const doc = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null;
  const old = Array.isArray(doc) ? doc : (doc?.rows ?? []);
  const names = new Set(rows.map((r) => r.name));
  const merged = [...old.filter((r) => !names.has(r.name)), ...rows];
  writeFileSync(out, `${JSON.stringify(doc && !Array.isArray(doc) ? { ...doc, rows: merged } : merged, null, 2)}\n`);
  process.exit(0);
}
