// The engine package in Chromium, served from web/ by Vite's dev server: createEngine() starts
// the Worker, which loads the single-thread (relaxed-SIMD) build on a plain page and the pthread build on a
// cross-origin isolated one (info.build says which); a session trains in the Worker with
// progress events and pause/resume, its checkpoint goes to IndexedDB and comes back after a
// reload with the same logits; a C++ error arrives as an Error and the engine stays usable.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { createServer } from 'vite';
import { usePage, root } from './harness.mjs';

const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const PAGE =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>engine</title><body>engine test</body>';

async function devServer(isolated) {
  const headers = isolated ? ISOLATION : {};
  const server = await createServer({
    configFile: path.join(root, 'vite.config.js'),
    logLevel: 'silent',
    server: { port: 0, host: '127.0.0.1', strictPort: false, headers, hmr: false },
    plugins: [
      {
        name: 'engine-test-page',
        configureServer(s) {
          s.middlewares.use('/engine-test.html', (req, res) => {
            for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
            res.setHeader('Content-Type', 'text/html');
            res.end(PAGE);
          });
        },
      },
    ],
  });
  await server.listen();
  return { url: `http://127.0.0.1:${server.httpServer.address().port}/engine-test.html`, close: () => server.close() };
}

const CONFIG = {
  model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout: 0 },
  task: 'reverse',
  task_options: { min_len: 2, max_len: 5, symbols: 6 },
  seed: 5,
  train: { batch: 16 },
};

before(async () => {
  for (const f of ['attnlab.mjs', 'attnlab-mt.mjs'])
    if (!existsSync(path.join(root, 'web', 'public', 'engine', f)))
      throw new Error(`web/public/engine/${f} is missing: run node scripts/build.mjs`);
});
const { browser } = usePage({ server: false });

// A plain page in Chromium (relaxed SIMD since 114) gets the relaxed-SIMD single-thread build.
for (const isolated of [false, true]) {
  const build = isolated ? 'wasm-mt' : 'wasm-relaxed';
  test(`worker runtime on a ${isolated ? 'cross-origin isolated' : 'plain'} page loads ${build} and trains`, async () => {
    const server = await devServer(isolated);
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      const r = await page.evaluate(async (config) => {
        const { createEngine, ModelStore } = await import('/core/index.js');
        const engine = await createEngine();
        const s = await engine.createSession(config);
        const progress = [],
          states = [];
        s.on('progress', (p) => progress.push(p.step));
        s.on('state', (e) => states.push(e.state));
        const paused = new Promise((res) => {
          const off = s.on('state', (e) => {
            if (e.state === 'paused') {
              off();
              res();
            }
          });
        });
        const run = s.train(40, { chunkMs: 5 });
        s.pause();
        await Promise.race([paused, new Promise((res) => setTimeout(res, 10000))]);
        const pausedState = s.state;
        const stepsWhilePaused = progress.length;
        await new Promise((res) => setTimeout(res, 100));
        const stillPaused = progress.length === stepsWhilePaused;
        s.resume();
        const done = await run;
        let error = null;
        try {
          await s.decode([[3, 999]]);
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
        }
        const ex = await s.examples(1);
        const logits = Array.from((await s.inspect(ex.src, ex.tgt)).logits.slice(0, 8));
        const store = new ModelStore(indexedDB, 'attnlab-browser-test');
        await store.save('reverse', await s.save(), { step: done.step });
        store.close();
        engine.terminate();
        return {
          info: engine.info,
          steps: done.steps,
          step: done.step,
          progress: progress.length,
          lastStep: progress.at(-1),
          pausedState,
          stillPaused,
          states,
          error,
          ex,
          logits,
          isolated: globalThis.crossOriginIsolated,
        };
      }, CONFIG);
      assert.equal(r.isolated, isolated);
      assert.equal(r.info.build, build);
      assert.equal(r.info.threads, isolated);
      assert.equal(r.steps, 40);
      assert.equal(r.lastStep, 40);
      assert.ok(r.progress >= 1);
      assert.equal(r.pausedState, 'paused');
      assert.ok(r.stillPaused, 'no progress while paused');
      assert.equal(r.states.at(-1), 'idle');
      assert.match(r.error, /token 999 is out of range/);

      await page.reload();
      const back = await page.evaluate(
        async ({ ex }) => {
          const { createEngine, ModelStore } = await import('/core/index.js');
          const store = new ModelStore(indexedDB, 'attnlab-browser-test');
          const rec = await store.load('reverse');
          const engine = await createEngine();
          const s = await engine.loadSession(rec.bytes);
          const logits = Array.from((await s.inspect(ex.src, ex.tgt)).logits.slice(0, 8));
          const info = await s.refreshInfo();
          await store.remove('reverse');
          engine.terminate();
          return { logits, step: info.step };
        },
        { ex: r.ex }
      );
      assert.equal(back.step, 40);
      assert.deepEqual(back.logits, r.logits);
      assert.deepEqual(page.errors, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
}
