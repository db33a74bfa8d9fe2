// Bench rows for the kernels: measured SIMD peaks (FMA and mul+add chains, the GEMM tile), the
// attention slice (wasm vs. native, ms per call), and GEMM GFLOP/s side by side with peers:
// attnlab-wasm vs. TF.js's wasm backend (XNNPACK, 1 thread), attnlab-native vs. PyTorch CPU on
// OpenBLAS at 1 and 2 threads (when /usr/bin/python3 has torch and OpenBLAS is what it loads;
// started at full strength by peers/env.mjs, the OpenBLAS kernel it picked named in the row).
// Shapes are (M,K,N) as in issue 3; "A·Bᵀ" and "Aᵀ·B" are the transposed variants, "×4 heads"
// a strided-batched product.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pctOf } from '../peers/machine.mjs';

const PLAIN = [
  [32, 64, 64],
  [256, 128, 128],
  [256, 128, 512],
  [512, 512, 512],
  [1024, 1024, 1024],
];
const VARIANT_SHAPES = [
  [256, 128, 128],
  [512, 512, 512],
];
const HEADS = 4;

function gemmCases(seconds) {
  const cases = [];
  const add = (s, ta, tb, batch, label) => cases.push({ M: s[0], K: s[1], N: s[2], ta, tb, batch, seconds, label });
  for (const s of PLAIN) add(s, false, false, 1, `${s.join('×')}`);
  for (const s of VARIANT_SHAPES) {
    add(s, false, true, 1, `${s.join('×')} A·Bᵀ`);
    add(s, true, false, 1, `${s.join('×')} Aᵀ·B`);
    add(s, false, false, HEADS, `${s.join('×')} ×${HEADS} heads`);
  }
  return cases;
}

const round = (x, d = 2) => (x == null || Number.isNaN(x) ? null : Number(x.toFixed(d)));
const row = (name, unit, attnlab, peer, peerValue, ratio, pct) => ({
  name,
  unit,
  attnlab: round(attnlab),
  peer,
  peer_value: round(peerValue),
  ratio: round(ratio),
  pct_peak: round(pct, 1),
});

// TF.js's wasm backend runs XNNPACK's fast GEMM only for plain, unbatched products; transposed
// or batched ones take its slow generic batched path (about 1 GFLOP/s here, against ~20).
const tfSlowPath = (c) => c.ta || c.tb || c.batch > 1;
const peakNote = (p) =>
  Object.entries(p.parts)
    .filter(([, v]) => v != null)
    .map(([k, v]) => `${k} ${round(v)}`)
    .join('; ');

export async function rows(ctx) {
  const out = [];
  const seconds = ctx.quick ? 0.1 : 0.4;

  // Peaks: the largest of FMA and mul+add chains, each the best of 8..24 chains, and the GEMM's
  // register tile on L1-resident panels (cpp/bench/bench.cpp; in wasm the plain and the relaxed
  // build, bench/bench.mjs peakDetail), so that latency x pipes is covered and no engine's
  // scheduling of a kernel beats its bound; every row's % of peak must stay <= 100 (flagged).
  const native = await ctx.peakDetail('native');
  const nativePeak = native.gflops;
  const top = await ctx.ceiling();
  out.push({
    ...row(
      `SIMD peak, native: largest of FMA chains, mul+add chains and the GEMM tile on L1 data (1 core of ${ctx.machine.cpu}, ${ctx.machine.isa ?? 'ISA unknown'})`,
      'GFLOP/s',
      nativePeak,
      null,
      null,
      null,
      100
    ),
    note: `${peakNote(native)}; ${top.text}`,
  });
  const cases = gemmCases(seconds);
  const hasWasm = existsSync(path.join(ctx.root, 'build', 'wasm', 'attnlab-node.cjs'));
  if (hasWasm) await wasmRows(ctx, out, cases, seconds, top.gflops);
  else ctx.log('kernels: build/wasm is missing: no wasm rows');
  await nativeGemmRows(ctx, out, cases, seconds, nativePeak);
  return out;
}

// wasm rows: % peak against the machine's FMA-chain ceiling (`top`, what the core can do);
// kernel_eff against the wasm build's own bound (its chains and GEMM tile on L1 data, what a
// SIMD128 kernel can do there).
async function wasmRows(ctx, out, cases, seconds, top) {
  const wasm = await ctx.peakDetail('wasm');
  let wasmPeak = wasm.gflops;
  const peakRow = {
    ...row(
      'SIMD peak, wasm: largest of SIMD128 mul+add chains, relaxed_madd chains and the GEMM tiles on L1 data (1 core)',
      'GFLOP/s',
      wasmPeak,
      null,
      null,
      null,
      pctOf(wasmPeak, top)
    ),
    kernel_eff: 100,
    note: peakNote(wasm),
  };
  out.push(peakRow);

  for (const [B, H, T, D] of [
    [1, 4, 64, 32],
    [2, 8, 128, 64],
    [1, 8, 256, 64],
  ]) {
    const c = { kind: 'attention', B, H, T, S: T, D, causal: 1, seconds };
    const [w] = await ctx.wasm('attnlab', [c]);
    const n = await ctx.native(['attention', B, H, T, T, D, 1, 1, seconds].map(String));
    out.push(
      row(
        `attention slice B${B} H${H} T=S=${T} hs${D} causal: wasm vs native (1 thread)`,
        'ms',
        w.ms,
        'attnlab-native',
        n.ms,
        n.ms / w.ms,
        null
      )
    );
  }

  // wasm GEMM: timed inside wasm (benchGemm) and, by the rule TF.js is timed with, one JS call
  // per product (percall); the ratio and the goal use the per-call figure.
  // Each of the two runs measures the peak again before and after its rows, in the same process
  // (the same compiled code and clock speed as the rows): the bound is the largest figure seen.
  const peakCase = { kind: 'peak', seconds: ctx.quick ? 0.4 : 1.5 };
  const around = (list) => [peakCase, ...list, peakCase];
  const innerRun = await ctx.wasm('attnlab', around(cases));
  const perCallRun = await ctx.wasm('attnlab', around(cases.map((c) => ({ ...c, percall: true }))));
  const inner = innerRun.slice(1, -1),
    perCall = perCallRun.slice(1, -1);
  const again = [innerRun, perCallRun].flatMap((r) => [r[0], r.at(-1)]);
  const tileAgain = Math.max(...again.map((p) => p.tile));
  if (tileAgain > wasmPeak) {
    wasmPeak = tileAgain;
    peakRow.attnlab = round(wasmPeak);
    peakRow.pct_peak = pctOf(wasmPeak, top);
    peakRow.note += `; GEMM tile again beside the GEMM rows ${round(tileAgain)} (the bound)`;
  }
  let tf = null;
  try {
    tf = await ctx.wasm('tfjs', cases);
    ctx.log(`tfjs-core ${tf.version} wasm backend, SIMD ${tf.simd}, 1 thread`);
  } catch (e) {
    ctx.log(`TF.js peer skipped: ${e.message.split('\n')[0]} (npm install)`);
  }
  const tfName = (c) =>
    tf
      ? `tfjs-wasm ${tf.version} (XNNPACK${tf.simd ? ' SIMD' : ''}, 1 thread)` +
        `${tfSlowPath(c) ? ', its slow batched/transposed path' : ''}`
      : null;
  cases.forEach((c, i) => {
    const p = tf ? tf.results[i].gflops : null;
    const mine = perCall[i].gflops;
    const best = Math.max(mine, inner[i].gflops);
    out.push({
      ...row(`gemm ${c.label} wasm`, 'GFLOP/s', mine, tfName(c), p, p ? mine / p : null, pctOf(best, top)),
      kernel_eff: pctOf(best, wasmPeak),
      attnlab_inner: round(inner[i].gflops),
      peer_slow_path: tf ? tfSlowPath(c) : null,
      note: `one JS call per product, as TF.js; timed inside wasm ${round(inner[i].gflops)}`,
    });
  });
}

async function nativeGemmRows(ctx, out, cases, seconds, nativePeak) {
  // native GEMM against PyTorch: the peer's better of one Python call per product and a
  // TorchScript loop (peers/torch_gemm.py), with bounded OpenMP spinning; at 2 threads the
  // passive-wait figure beside it.
  for (const threads of [1, 2]) {
    const torch = await ctx.torch(threads, cases);
    const passive = threads > 1 ? await ctx.torch(threads, cases, { wait: 'passive' }) : null;
    for (const c of cases) {
      const r = await ctx.native(['gemm', c.M, c.N, c.K, +c.ta, +c.tb, c.batch, threads, seconds].map(String));
      c.native = r.gflops;
    }
    cases.forEach((c, i) => {
      const t = torch?.results[i],
        p = t?.gflops ?? null;
      const pp = passive?.results[i]?.gflops;
      const parts = t
        ? [`peer per Python call ${round(t.gflops_per_call)}, TorchScript loop ${round(t.gflops_batched)}`]
        : [];
      if (pp != null) parts.push(`peer with passive waits ${round(pp)}`);
      out.push({
        ...row(
          `gemm ${c.label} native ${threads}T`,
          'GFLOP/s',
          c.native,
          torch ? `pytorch ${torch.torch} + OpenBLAS (${torch.core ?? 'kernel unknown'}), ${threads}T` : null,
          p,
          p ? c.native / p : null,
          (100 * c.native) / (threads * nativePeak)
        ),
        peer_blas_core: torch?.core ?? null,
        peer_threads: torch?.threads ?? null,
        peer_per_call: round(t?.gflops_per_call),
        peer_batched: round(t?.gflops_batched),
        peer_passive: round(pp),
        note: parts.join('; ') || null,
      });
    });
  }
}
