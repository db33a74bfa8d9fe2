// The widget script served from another origin, as from a CDN or a course platform's file
// store: the course page is on one loopback server, embed.js with its engine and models on a
// second one (another port, so another origin) that sends Access-Control-Allow-Origin: *.
// Widgets mount in their own languages, Start trains in the engine's Worker (a same-origin Blob
// that imports the engine by absolute URL), and a missing or blocked file is named in the
// widget's box and in an `error` event, never a blank box.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, usePage, serveDir, shots } from './harness.mjs';

const CORS = { 'Access-Control-Allow-Origin': '*' };
const { browser } = usePage({ server: false });
let hostDir;
const servers = [];
before(async () => {
  hostDir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-host-'));
});
after(async () => {
  for (const s of servers) await s.close();
  if (hostDir) rmSync(hostDir, { recursive: true, force: true });
});

async function cdn(opts) {
  const s = await serveDir(path.join(root, 'dist'), opts);
  servers.push(s);
  return s;
}

// A course page on its own origin whose widgets come from `from` (an isolated one is served
// with COOP/COEP by a server of its own).
async function coursePage(from, body, name, { isolated = false } = {}) {
  writeFileSync(
    path.join(hostDir, name),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>course</title>
<script type="module" src="${from.url}embed.js"></script></head>
<body>${body}</body></html>`
  );
  const key = isolated ? 'isolatedHost' : 'host';
  if (!servers[key])
    servers.push(
      (servers[key] = await serveDir(
        hostDir,
        isolated
          ? { headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } }
          : {}
      ))
    );
  return `${servers[key].url}${name}`;
}

const settled = () =>
  [...document.querySelectorAll('attnlab-demo')].every((w) => w.dataset.ready === '1' || w.dataset.error === '1');

test('widgets from a second origin mount in their own languages and train on Start', async () => {
  const files = await cdn({ headers: CORS });
  const url = await coursePage(
    files,
    `
    <attnlab-demo id="align" name="bahdanau" steps="200"></attnlab-demo>
    <attnlab-demo id="sdpa" name="sdpa" lang="ko" dk="64"></attnlab-demo>
    <attnlab-demo id="sa" name="self-attention"></attnlab-demo>`,
    'ok.html'
  );
  assert.notEqual(new URL(url).origin, new URL(files.url).origin);
  const page = await browser.newPage({ width: 900, height: 1200 });
  await page.goto(url);
  await page.waitForFunction(settled, null, { timeout: 30000 });
  const state = await page.evaluate(() =>
    [...document.querySelectorAll('attnlab-demo')].map((w) => [w.id, w.dataset.ready, w.dataset.lang])
  );
  assert.deepEqual(state, [
    ['align', '1', 'en'],
    ['sdpa', '1', 'ko'],
    ['sa', '1', 'en'],
  ]);
  assert.match(await page.textContent('#sdpa'), /[가-힣]/, 'the Korean widget speaks Korean');
  assert.doesNotMatch(await page.textContent('#align'), /[가-힣]/, 'the English one does not');
  assert.equal(await page.evaluate(() => document.getElementById('sdpa').inputs.dk), 64);
  assert.ok(files.requests.includes('/models/transformer-phrases.safetensors'), 'models come from the second origin');

  const progress = page.evaluate(
    () =>
      new Promise((resolve) => {
        const got = [];
        document.getElementById('align').addEventListener('progress', (e) => {
          got.push(e.detail);
          if (got.length === 3) resolve(got);
        });
      })
  );
  await page.click('#align [name=run-toggle]');
  const got = await progress;
  assert.ok(
    got.every((d) => d.step > 0 && Number.isFinite(d.loss) && d.total === 200),
    JSON.stringify(got)
  );
  assert.match(await page.getAttribute('#align', 'data-engine'), /^wasm/);
  assert.ok(
    files.requests.some((p) => /^\/engine\/attnlab(-relaxed)?\.wasm$/.test(p)),
    'the engine comes from the second origin'
  );
  await page.click('#align [name=run-toggle]'); // pause
  await page.screenshot({ path: path.join(shots, 'embed-origin.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('threads from a second origin: an isolated host page trains on the pthread engine', async () => {
  const files = await cdn({ headers: { ...CORS, 'Cross-Origin-Resource-Policy': 'cross-origin' } });
  const page = await browser.newPage();
  await page.goto(
    await coursePage(
      files,
      '<attnlab-demo id="align" name="bahdanau" steps="200" threads></attnlab-demo>',
      'threads.html',
      { isolated: true }
    )
  );
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  await page.waitForFunction(settled, null, { timeout: 30000 });
  const progress = page.evaluate(
    () =>
      new Promise((resolve) => {
        document.getElementById('align').addEventListener('progress', (e) => {
          if (e.detail.step >= 3) resolve(e.detail);
        });
      })
  );
  await page.click('#align [name=run-toggle]');
  assert.ok(Number.isFinite((await progress).loss));
  // the pthread workers' script came from the other origin through a same-origin Blob
  assert.equal(await page.getAttribute('#align', 'data-engine'), 'wasm-mt');
  assert.ok(files.requests.includes('/engine/attnlab-mt.worker.js'));
  await page.click('#align [name=run-toggle]');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The message a failed widget shows, and its error event.
async function failure(page, id) {
  await page.waitForFunction(settled, null, { timeout: 30000 });
  return page.evaluate((wid) => {
    const w = document.getElementById(wid);
    return {
      error: w.dataset.error,
      text: w.textContent.trim(),
      role: w.querySelector('[role=alert]') !== null,
      event: window.widgetErrors?.[wid] ?? null,
    };
  }, id);
}

const listenErrors = `<script>window.widgetErrors = {};
  document.addEventListener('error', (e) => { if (e.target.localName === 'attnlab-demo') window.widgetErrors[e.target.id] = e.detail; }, true);</script>`;

test('a missing model or engine file is named in the widget, not a blank box', async () => {
  const noModel = await cdn({ headers: CORS, deny: (p) => p === '/models/transformer-phrases.safetensors' });
  let page = await browser.newPage();
  await page.goto(
    await coursePage(
      noModel,
      `${listenErrors}
    <attnlab-demo id="sa" name="self-attention"></attnlab-demo>
    <attnlab-demo id="cost" name="cost"></attnlab-demo>`,
      'no-model.html'
    )
  );
  let f = await failure(page, 'sa');
  assert.equal(f.error, '1');
  assert.ok(f.role, 'the message is an alert');
  assert.match(f.text, /models\/transformer-phrases\.safetensors/);
  assert.match(f.text, /HTTP 404/);
  assert.equal(f.event.url, `${noModel.url}models/transformer-phrases.safetensors`);
  assert.equal(await page.getAttribute('#cost', 'data-ready'), '1', 'a widget without that model still works');
  await page.screenshot({ path: path.join(shots, 'embed-missing-model.png'), fullPage: true });
  await page.close();

  const noEngine = await cdn({ headers: CORS, deny: (p) => p.startsWith('/engine/') });
  page = await browser.newPage();
  await page.goto(
    await coursePage(
      noEngine,
      `${listenErrors}
    <attnlab-demo id="sdpa" name="sdpa" lang="ko"></attnlab-demo>`,
      'no-engine.html'
    )
  );
  f = await failure(page, 'sdpa');
  assert.equal(f.error, '1');
  assert.match(f.text, /engine\/attnlab\.mjs/);
  assert.match(f.text, /HTTP 404/);
  assert.match(f.text, /[가-힣]/, "in the widget's language");
  await page.close();
});

test('a request the file server does not allow (no CORS header) is named too', async () => {
  const blocked = await cdn({ headers: (p) => (p.startsWith('/models/') ? {} : CORS) });
  const page = await browser.newPage();
  await page.goto(
    await coursePage(
      blocked,
      `${listenErrors}
    <attnlab-demo id="lm" name="lm"></attnlab-demo>`,
      'blocked.html'
    )
  );
  const f = await failure(page, 'lm');
  assert.equal(f.error, '1');
  assert.match(f.text, /models\/index\.json/);
  assert.match(f.text, /Access-Control-Allow-Origin/);
  await page.close();
});
