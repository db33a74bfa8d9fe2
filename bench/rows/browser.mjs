// Bench rows for the engine flavours in the browser (headless Chromium, dist/ on loopback).
// Threads: ms per training step of config M (bench/rows/configs.mjs
// CONFIGS.M: d_model 128, d_ff 512, 2+2 layers, lengths 32, batch 32) in headless Chromium, in the
// engine Worker that dist/ ships, on the pthread build (dist/ served with COOP/COEP, as the
// service worker makes it on a static host), with the kernels limited to 1 thread and then to 2
// (setThreads), in the same page; ratio = 1-thread time / 2-thread time (goal >= 1.6, see
// peers/report.mjs). The same step on 2 thread ranks (a session of train.threads 2,
// thread_split 'ranks': two replicas on 16 rows each, api/model_session.hpp) against the 1-thread
// time and against 2 threads splitting kernels. Also the single-thread build (wasm) at 1 thread,
// for reference.
// FMA: the relaxed-SIMD build (wasm-relaxed, f32x4.relaxed_madd) against the plain SIMD128
// build (wasm), both single-thread: GEMM GFLOP/s (benchGemm of each module on the page's main
// thread) and ms per training step of config M (in the Worker). Needs npm run build (dist/).
// Run alone: `node bench/rows/browser.mjs`.
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, root } from '../../tests/browser/harness.mjs';
import { staticServer } from '../peers/static.mjs';
import { CONFIGS, flopsOf, sessionConfig } from './configs.mjs';
import { pctOf } from '../peers/machine.mjs';

const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

// In the page: starts dist/'s Worker, loads `threads` ('auto' -> wasm-mt when isolated, false ->
// wasm), and times `steps` training steps per kernel thread count (best of `reps` runs). With
// `split` ('ranks', 'kernels'), each count n trains a session of its own whose train.threads is
// n and train.thread_split `split`; its plan (info().threads) comes back beside the time.
async function timeInWorker(page, { asset, threads, relaxed = 'auto', counts, steps, reps, config, split = null }) {
  return page.evaluate(
    async ({ asset, threads, relaxed, counts, steps, reps, config, split }) => {
      const worker = new Worker(asset, { type: 'module' });
      let next = 1;
      const pending = new Map();
      worker.onmessage = (e) => {
        const p = pending.get(e.data.id);
        if (!p) return;
        pending.delete(e.data.id);
        if (e.data.ok) p.resolve(e.data.result);
        else p.reject(new Error(e.data.error.message));
      };
      const request = (msg) =>
        new Promise((resolve, reject) => {
          const id = next++;
          pending.set(id, { resolve, reject });
          worker.postMessage({ ...msg, id });
        });
      const info = await request({ type: 'init', base: document.baseURI, threads, relaxed });
      const shared = split ? null : (await request({ type: 'create', config })).session;
      const out = {};
      for (const n of counts) {
        const used = info.build === 'wasm-mt' ? await request({ type: 'call', fn: 'setThreads', args: [n] }) : 1;
        const own = { ...config, train: { ...config.train, threads: n, thread_split: split } };
        const session = shared ?? (await request({ type: 'create', config: own })).session;
        await request({ type: 'train', session, steps: 2, chunkMs: 1e6 });
        let best = Infinity;
        for (let r = 0; r < reps; r++) {
          const t0 = performance.now();
          await request({ type: 'train', session, steps, chunkMs: 1e6 });
          best = Math.min(best, (performance.now() - t0) / steps);
        }
        out[n] = { ms: best, threads: used };
        if (split) {
          out[n].plan = (await request({ type: 'session', session, method: 'info', args: [] })).threads;
          await request({ type: 'dispose', session });
        }
      }
      worker.terminate();
      return { info, out };
    },
    { asset, threads, relaxed, counts, steps, reps, config, split }
  );
}

// benchGemm / benchSimdPeak of one module flavour, loaded on the page's main thread.
async function gemmInPage(page, name, shapes, seconds) {
  return page.evaluate(
    async ({ name, shapes, seconds }) => {
      const base = document.baseURI;
      const ns = await import(new URL(`engine/${name}.mjs`, base).href);
      const mod = await ns.default({ locateFile: (f) => new URL(`engine/${f}`, base).href });
      // Chromium starts wasm in its baseline compiler (Liftoff) and switches a function to the
      // optimizing one at its next call: the peak sweep is one call, so it is called once to warm
      // up (the GEMM kernels are called many times within each timing and tier up on their own).
      mod.benchSimdPeak(seconds / 2);
      const runs = [mod.benchSimdPeakParts(seconds * 2), mod.benchSimdPeakParts(seconds * 2)];
      const best = (key) => Math.max(...runs.map((r) => r[key]));
      const gemm = shapes.map(([M, K, N]) => mod.benchGemm(M, N, K, false, false, 1, seconds));
      return { gemm, peak: best('gflops'), chains: Math.max(best('mulAdd'), best('fma')), tile: best('tile') };
    },
    { name, shapes, seconds }
  );
}

// For bench/rows/loaded.mjs: a page on dist/ (cross-origin isolated) whose measure() times
// the config M training step on wasm-mt at 1 and 2 threads splitting kernels and on 2 thread
// ranks ({1: ms, 2: ms, ranks2: ms}); close() ends it.
export async function threadTimer({ quick = false } = {}) {
  const dist = path.join(root, 'dist');
  const asset = `assets/${readdirSync(path.join(dist, 'assets')).find((n) => /^worker-.*\.js$/.test(n))}`;
  const server = await staticServer(dist, { headers: ISOLATION });
  const browser = await launch();
  const page = await browser.newPage();
  await page.goto(`${server.url}index.html`);
  const steps = quick ? 2 : 4,
    reps = quick ? 2 : 3;
  return {
    async measure() {
      const mt = await timeInWorker(page, {
        asset,
        threads: 'auto',
        counts: [1, 2],
        steps,
        reps,
        config: sessionConfig(CONFIGS.M),
      });
      if (mt.info.build !== 'wasm-mt') throw new Error(`the Worker loaded ${mt.info.build}, not wasm-mt`);
      const ranks = await ranksInWorker(page, { asset, steps, reps, config: sessionConfig(CONFIGS.M) });
      return { 1: mt.out[1].ms, 2: mt.out[2].ms, ranks2: ranks.ms };
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

// The config M step on 2 thread ranks in the wasm-mt Worker: {ms, plan} (throws unless the
// session planned 2 ranks).
async function ranksInWorker(page, { asset, steps, reps, config }) {
  const r = await timeInWorker(page, { asset, threads: 'auto', counts: [2], steps, reps, config, split: 'ranks' });
  const plan = r.out[2].plan;
  if (r.info.build !== 'wasm-mt' || plan?.mode !== 'ranks' || plan.ranks !== 2)
    throw new Error(`the ranks session planned ${JSON.stringify(plan)} on ${r.info.build}`);
  return { ms: r.out[2].ms, plan };
}

const GEMM_SHAPES = [
  [256, 128, 128],
  [512, 512, 512],
  [1024, 1024, 1024],
];

export async function rows(ctx = {}) {
  const dist = path.join(root, 'dist');
  if (!existsSync(path.join(dist, 'index.html'))) throw new Error('dist/ is missing: run npm run build first');
  const asset = `assets/${readdirSync(path.join(dist, 'assets')).find((n) => /^worker-.*\.js$/.test(n))}`;
  const c = CONFIGS.M;
  const steps = ctx.quick ? 2 : 4,
    reps = ctx.quick ? 2 : 3;
  const server = await staticServer(dist, { headers: ISOLATION });
  const browser = await launch();
  const log = ctx.log ?? console.log;
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}index.html`);
    const mt = await timeInWorker(page, {
      asset,
      threads: 'auto',
      counts: [1, 2],
      steps,
      reps,
      config: sessionConfig(c),
    });
    const ranks = await ranksInWorker(page, { asset, steps, reps, config: sessionConfig(c) });
    const st = await timeInWorker(page, {
      asset,
      threads: false,
      relaxed: false,
      counts: [1],
      steps,
      reps,
      config: sessionConfig(c),
    });
    const rx = await timeInWorker(page, {
      asset,
      threads: false,
      relaxed: 'auto',
      counts: [1],
      steps,
      reps,
      config: sessionConfig(c),
    });
    const relaxedOk = await page.evaluate(() =>
      WebAssembly.validate(
        Uint8Array.from([
          0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 13,
          1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11,
        ])
      )
    );
    const seconds = ctx.quick ? 0.2 : 0.5;
    const gPlain = await gemmInPage(page, 'attnlab', GEMM_SHAPES, seconds);
    const gRelaxed =
      relaxedOk && existsSync(path.join(dist, 'engine', 'attnlab-relaxed.wasm'))
        ? await gemmInPage(page, 'attnlab-relaxed', GEMM_SHAPES, seconds)
        : null;
    const version = browser.context.browser()?.version() ?? 'Chromium';
    log(
      `browser: Chromium ${version}, threaded worker engine ${mt.info.build} (pool ${mt.info.poolSize}), ` +
        `single-thread ${st.info.build}, FMA flavour ${rx.info.build} (relaxed SIMD ${relaxedOk ? 'validates' : 'not available'}), ${os.cpus().length} CPUs`
    );
    if (mt.info.build !== 'wasm-mt') throw new Error(`the Worker loaded ${mt.info.build}, not wasm-mt`);
    const gflop = flopsOf(c) * 1e-9;
    const bound = Math.max(gPlain.peak, gRelaxed?.peak ?? 0);
    // % peak against the machine's one-core FMA ceiling (measured natively); kernel efficiency
    // against the page's own SIMD128 bound.
    const top = ctx.ceiling ? (await ctx.ceiling()).gflops : null;
    const r1 = (x) => Number(x.toFixed(1)),
      r2 = (x) => Number(x.toFixed(2));
    return [
      {
        name: 'browser: train step config M, wasm-mt 2 threads vs 1 thread (Chromium, ratio = speed-up)',
        unit: 'ms',
        attnlab: r1(mt.out[2].ms),
        peer: 'wasm-mt at 1 thread',
        peer_value: r1(mt.out[1].ms),
        ratio: r2(mt.out[1].ms / mt.out[2].ms),
        model_gflops: r2(gflop / (mt.out[2].ms * 1e-3)),
        browser_version: version,
      },
      {
        name: 'browser: train step config M, wasm-mt 2 threads as ranks vs 1 thread (Chromium, ratio = speed-up)',
        unit: 'ms',
        attnlab: r1(ranks.ms),
        peer: 'wasm-mt at 1 thread',
        peer_value: r1(mt.out[1].ms),
        ratio: r2(mt.out[1].ms / ranks.ms),
        model_gflops: r2(gflop / (ranks.ms * 1e-3)),
        note: `a session of train.thread_split 'ranks': ${ranks.plan.why}`,
      },
      {
        name: 'browser: train step config M, wasm-mt 2 threads as ranks vs 2 threads splitting kernels (Chromium)',
        unit: 'ms',
        attnlab: r1(ranks.ms),
        peer: 'wasm-mt, 2 threads splitting kernels',
        peer_value: r1(mt.out[2].ms),
        ratio: r2(mt.out[2].ms / ranks.ms),
      },
      {
        name: 'browser: train step config M, wasm (single-thread build) vs wasm-mt at 1 thread (Chromium)',
        unit: 'ms',
        attnlab: r1(st.out[1].ms),
        peer: 'wasm-mt at 1 thread',
        peer_value: r1(mt.out[1].ms),
        ratio: r2(mt.out[1].ms / st.out[1].ms),
        model_gflops: r2(gflop / (st.out[1].ms * 1e-3)),
      },
      // One bound for every wasm row: the largest of the plain build's mul+add chains and GEMM
      // register tile on L1 data and the relaxed build's (FMA) chains and tile; an engine may
      // run a SIMD128 GEMM above separate mul+add chains (V8 spills their accumulators), never
      // above its own inner loop without memory traffic.
      {
        name: 'browser: SIMD peak, wasm: largest of SIMD128 mul+add chains, relaxed_madd chains and the GEMM tile on L1 data (1 core, Chromium)',
        unit: 'GFLOP/s',
        attnlab: r2(bound),
        peer: null,
        peer_value: null,
        ratio: null,
        pct_peak: pctOf(bound, top),
        kernel_eff: 100,
        note: `SIMD128 mul+add chains ${r2(gPlain.chains)}, GEMM tile ${r2(gPlain.tile)}${gRelaxed ? `; relaxed build: chains ${r2(gRelaxed.chains)}, GEMM tile ${r2(gRelaxed.tile)}` : '; relaxed build not measured'}`,
      },
      ...GEMM_SHAPES.map((s, i) => ({
        name: `browser: gemm ${s.join('×')} wasm (Chromium)`,
        unit: 'GFLOP/s',
        attnlab: r2(gPlain.gemm[i]),
        peer: null,
        peer_value: null,
        ratio: null,
        pct_peak: pctOf(gPlain.gemm[i], top),
        kernel_eff: pctOf(gPlain.gemm[i], bound),
      })),
      ...(gRelaxed
        ? GEMM_SHAPES.map((s, i) => ({
            name: `browser: gemm ${s.join('×')} wasm-relaxed (FMA) vs wasm (Chromium)`,
            unit: 'GFLOP/s',
            attnlab: r2(gRelaxed.gemm[i]),
            peer: 'wasm (SIMD128 mul+add)',
            peer_value: r2(gPlain.gemm[i]),
            ratio: r2(gRelaxed.gemm[i] / gPlain.gemm[i]),
            pct_peak: pctOf(gRelaxed.gemm[i], top),
            kernel_eff: pctOf(gRelaxed.gemm[i], bound),
          }))
        : []),
      ...(rx.info.build === 'wasm-relaxed'
        ? [
            {
              name: 'browser: train step config M, wasm-relaxed (FMA) vs wasm, 1 thread (Chromium)',
              unit: 'ms',
              attnlab: r1(rx.out[1].ms),
              peer: 'wasm (SIMD128 mul+add)',
              peer_value: r1(st.out[1].ms),
              ratio: r2(st.out[1].ms / rx.out[1].ms),
              model_gflops: r2(gflop / (rx.out[1].ms * 1e-3)),
              pct_peak: pctOf(gflop / (rx.out[1].ms * 1e-3), top),
              kernel_eff: pctOf(gflop / (rx.out[1].ms * 1e-3), bound),
            },
          ]
        : []),
    ];
  } finally {
    await browser.close();
    await server.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of await rows()) console.log(JSON.stringify(r));
}
