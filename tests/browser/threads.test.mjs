// Threads for every reader: dist/ served as plain static files (no COOP/COEP headers, as most
// static hosts serve it). The page registers its service worker (web/public/coi-sw.js), reloads
// once when it takes control, and is then cross-origin isolated: the engine Worker built into
// dist/ loads the pthread build (info().build === 'wasm-mt', pool sized from
// navigator.hardwareConcurrency, at most 8) and the engine line names it. Framed by another
// page, the guide cannot be isolated by its worker: it runs one thread (the relaxed-SIMD FMA
// build where the browser has relaxed SIMD) and says why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { launch, usePage, root, shots } from './harness.mjs';
import { staticServer } from '../../bench/peers/static.mjs';

const dist = path.join(root, 'dist');
const { browser } = usePage({ server: false });
let server;
before(async () => {
  if (!existsSync(path.join(dist, 'index.html'))) throw new Error('dist/ is missing: run npm run build first');
  server = await staticServer(dist, {
    pages: {
      '/framed.html':
        '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><iframe id="f" src="index.html" width="900" height="700"></iframe>',
      '/other.html':
        '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><p>another page of the site</p>',
    },
  });
});
after(async () => {
  await server?.close();
});

// The Worker that dist/ ships (assets/worker-*.js), started by hand and asked for its engine.
function workerAsset() {
  const f = readdirSync(path.join(dist, 'assets')).find((n) => /^worker-.*\.js$/.test(n));
  assert.ok(f, 'dist/assets/worker-*.js');
  return `assets/${f}`;
}

test('static dist/ without headers: the service worker isolates the page and the Worker runs wasm-mt', async () => {
  const res = await fetch(server.url);
  assert.equal(res.headers.get('cross-origin-opener-policy'), null, 'the server itself sends no COOP');
  assert.equal(res.headers.get('cross-origin-embedder-policy'), null, 'the server itself sends no COEP');
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(
    () => globalThis.crossOriginIsolated === true && document.body.dataset.ready === '1',
    null,
    { timeout: 60000 }
  );
  const state = await page.evaluate(async (asset) => {
    const worker = new Worker(asset, { type: 'module' });
    const info = await new Promise((resolve, reject) => {
      worker.onmessage = (e) => {
        if (e.data.id === 1) e.data.ok ? resolve(e.data.result) : reject(new Error(e.data.error.message));
      };
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage({ id: 1, type: 'init', base: document.baseURI, threads: 'auto' });
    });
    worker.terminate();
    const badge = document.getElementById('engine-build');
    return {
      isolated: crossOriginIsolated,
      sab: typeof SharedArrayBuffer,
      controlled: Boolean(navigator.serviceWorker.controller),
      hw: navigator.hardwareConcurrency,
      info,
      badge: { build: badge?.dataset.build, text: badge?.textContent },
    };
  }, workerAsset());
  assert.equal(state.isolated, true);
  assert.equal(state.sab, 'function');
  assert.equal(state.controlled, true, 'the page is served through coi-sw.js');
  assert.equal(state.info.build, 'wasm-mt');
  assert.equal(state.info.threads, true);
  assert.equal(state.info.poolSize, Math.min(8, Math.max(1, state.hw)));
  assert.equal(state.badge.build, 'wasm-mt');
  assert.match(state.badge.text, new RegExp(`${state.info.poolSize} thread`));
  await page.screenshot({ path: path.join(shots, 'threads-static.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The reader's choice of how the threads share a step (the engine line's Threads menu, shown
// with the pthread build): 'exact' splits every kernel call (the same numbers on any number of
// cores, the default), 'fast' lets the cost model pick (thread ranks for a Transformer); the
// choice reaches models created afterwards and survives a reload.
test('the Threads menu: exact splits kernels, fast trains a Transformer on thread ranks, and a reload keeps the choice', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en`);
  await page.waitForFunction(
    () => globalThis.crossOriginIsolated === true && document.body.dataset.ready === '1',
    null,
    { timeout: 60000 }
  );
  await page.evaluate(() => localStorage.removeItem('attnlab:thread-split'));
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const menu = page.locator('#engine-threads');
  assert.equal(await menu.inputValue(), 'kernels', 'exact by default');
  assert.deepEqual(await menu.locator('option').allTextContents(), [
    'exact (same numbers anywhere)',
    'fast (batch split over threads)',
  ]);
  // a Transformer of the bench's config S: 32 rows, so two ranks keep 16 each
  const plan = () =>
    page.evaluate(async () => {
      const engine = await window.attnlab.engine();
      const s = await engine.createSession({
        model: { model: 'transformer', d_model: 64, heads: 4, d_ff: 256, enc_layers: 2, dec_layers: 2, dropout: 0 },
        task: 'copy',
        task_options: { min_len: 16, max_len: 16, symbols: 29 },
        seed: 1,
        train: { batch: 32, schedule: 'constant', lr: 1e-3 },
      });
      const r = await s.train(2);
      const info = await s.call('info');
      await s.dispose();
      return { threads: info.threads, losses: Array.from(r.losses), pool: engine.info.poolSize };
    });
  const exact = await plan();
  assert.ok(Number.isInteger(exact.pool) && exact.pool >= 1, `the pool: ${exact.pool}`);
  assert.notEqual(exact.threads.mode, 'ranks', JSON.stringify(exact.threads));
  await menu.selectOption('auto');
  const fast = await plan();
  if (exact.pool >= 2) {
    assert.equal(fast.threads.mode, 'ranks', JSON.stringify(fast.threads));
    assert.ok(fast.threads.ranks >= 2, JSON.stringify(fast.threads));
  }
  assert.ok(fast.losses.every(Number.isFinite), String(fast.losses));
  assert.equal(await page.evaluate(() => localStorage.getItem('attnlab:thread-split')), 'auto');
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  assert.equal(await page.locator('#engine-threads').inputValue(), 'auto', 'the choice survives a reload');
  const again = await plan();
  if (exact.pool >= 2) assert.equal(again.threads.mode, 'ranks');
  await page.locator('#engine-threads').selectOption('kernels');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the service worker isolates the guide's page only: another page of the site is left as served", async () => {
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForFunction(
    () => globalThis.crossOriginIsolated === true && document.body.dataset.ready === '1',
    null,
    { timeout: 60000 }
  );
  for (const url of [`${server.url}index.html?lang=en`, server.url]) {
    await page.goto(url);
    assert.equal(await page.evaluate(() => crossOriginIsolated), true, `${url} is the guide, isolated`);
  }
  await page.goto(`${server.url}other.html`);
  const other = await page.evaluate(() => ({
    isolated: crossOriginIsolated,
    controlled: Boolean(navigator.serviceWorker.controller),
  }));
  assert.equal(other.isolated, false, 'another page in the folder is not made cross-origin isolated');
  assert.equal(other.controlled, true, 'though the worker controls it (it is in scope)');
  await page.close();
});

test('framed by another page: no isolation, one thread, and the page says why', async () => {
  const fresh = await launch(); // no service worker registered yet in this profile
  try {
    const page = await fresh.newPage();
    await page.goto(`${server.url}framed.html`);
    const frame = page.frame({ url: /index\.html$/ });
    assert.ok(frame);
    await frame.waitForFunction(() => document.getElementById('engine-build')?.dataset.build, null, { timeout: 60000 });
    const s = await frame.evaluate(() => {
      const b = document.getElementById('engine-build');
      const relaxed = WebAssembly.validate(
        Uint8Array.from([
          0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 13,
          1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11,
        ])
      );
      return {
        isolated: crossOriginIsolated,
        build: b.dataset.build,
        reason: b.dataset.reason,
        text: b.textContent,
        relaxed,
      };
    });
    // One thread: the relaxed-SIMD (FMA) build where Chromium validates relaxed SIMD, else plain.
    assert.deepEqual([s.isolated, s.build, s.reason], [false, s.relaxed ? 'wasm-relaxed' : 'wasm', 'iframe']);
    assert.match(s.text, s.relaxed ? /1 thread · FMA/ : /1 thread/);
    assert.match(s.text, /frame|프레임/, 'the line says why (ko or en)');
  } finally {
    await fresh.close();
  }
});
