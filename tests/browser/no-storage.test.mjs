// Readers whose browser keeps nothing: storage blocked ("block cookies and site data", some
// private modes: reading localStorage or sessionStorage throws a SecurityError, IndexedDB refuses
// to open) and a sandboxed frame (sandbox="allow-scripts", as some course platforms embed: an
// opaque origin, where even reading navigator.serviceWorker throws). The guide and a widget render,
// a demo trains, and the page says once, in its language, that nothing is kept; in the sandbox
// one thread runs and the engine line says why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { root, usePage, serveDir } from './harness.mjs';

const { server, browser } = usePage();
let files, host;
before(async () => {
  // dist/ as a file store that answers every origin (a sandboxed frame's origin is 'null')
  files = await serveDir(path.join(root, 'dist'), { headers: { 'Access-Control-Allow-Origin': '*' } });
  // a course page on a third origin that frames the guide or a widget
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-host-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>course</title><body></body>');
  host = await serveDir(dir);
});
after(async () => {
  await files?.close();
  await host?.close();
});

// What a browser with site data blocked does: every storage getter or open throws.
const BLOCK_STORAGE = () => {
  const refuse = () => {
    throw new DOMException('The operation is insecure.', 'SecurityError');
  };
  for (const name of ['localStorage', 'sessionStorage'])
    Object.defineProperty(window, name, { get: refuse, configurable: true });
  if (window.indexedDB) Object.defineProperty(Object.getPrototypeOf(window.indexedDB), 'open', { value: refuse });
};

const trains = async (page, demo, frame = page) => {
  const host = frame.locator(`[data-demo=${demo}]`);
  await host.scrollIntoViewIfNeeded();
  await frame.waitForSelector(`[data-demo=${demo}][data-ready="1"]`, { timeout: 60000 });
  await host.locator('[name=run-toggle]').click();
  await frame.waitForSelector(`[data-demo=${demo}] .run[data-state=done]`, { timeout: 120000 });
};

test('storage blocked: the guide renders, says once that nothing is kept, and a demo trains', async () => {
  const page = await browser.newPage();
  await page.addInitScript(BLOCK_STORAGE);
  await page.goto(`${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=100`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  assert.ok((await page.locator('section.guide-section').count()) > 5, 'the sections render');
  const note = page.locator('#storage-note');
  await note.waitFor({ timeout: 10000 });
  assert.match(await note.textContent(), /does not let the page keep anything/);
  assert.equal(await page.locator('.storage-note').count(), 1, 'said once');
  // the theme button still cycles (its choice lasts for the page)
  const theme = page.locator('#theme-toggle');
  const before = await theme.textContent();
  await theme.click();
  assert.notEqual(await theme.textContent(), before);
  await trains(page, 'bahdanau');
  assert.match(await page.locator('[data-demo=bahdanau] .run-status').textContent(), /step 100 \/ 100/);
  // in Korean, the same note in Korean
  await page.locator('#lang-toggle').click();
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  assert.match(await note.textContent(), /저장할 수 없습니다/);
  assert.deepEqual(
    page.errors.filter((e) => !/Failed to load resource/.test(e)),
    [],
    'no page error'
  );
  await page.close();
});

test('storage blocked: a widget mounts, trains and says that nothing is kept', async () => {
  const page = await browser.newPage();
  await page.addInitScript(BLOCK_STORAGE);
  await page.goto(`${server.url}examples/embed/index.html`);
  await page.waitForFunction(
    () => [...document.querySelectorAll('attnlab-demo')].every((w) => w.dataset.ready === '1'),
    null,
    { timeout: 60000 }
  );
  assert.equal(await page.locator('attnlab-demo .storage-note').count(), 1, 'one widget says it, once');
  await page.evaluate(() => document.getElementById('w-align').start());
  await page.waitForSelector('#w-align .run[data-state=done]', { timeout: 120000 });
  await page.close();
});

test('a sandboxed frame (allow-scripts only): the guide runs on one thread and a demo trains', async () => {
  const page = await browser.newPage();
  await page.goto(host.url); // a course page of another origin
  await page.evaluate((src) => {
    document.body.innerHTML = '';
    const f = Object.assign(document.createElement('iframe'), { src, width: 1000, height: 800 });
    f.setAttribute('sandbox', 'allow-scripts');
    document.body.append(f);
  }, `${files.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=100`);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await frame.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  assert.ok((await frame.locator('section.guide-section').count()) > 5, 'the sections render');
  await frame.waitForSelector('#engine-build[data-build]', { timeout: 60000 }).catch(() => {});
  await trains(page, 'bahdanau', frame);
  const build = frame.locator('#engine-build');
  assert.notEqual(await build.getAttribute('data-build'), 'wasm-mt');
  assert.equal(await build.getAttribute('data-reason'), 'sandbox');
  assert.match(await build.textContent(), /sandboxed frame/);
  assert.match(await frame.locator('#storage-note').textContent(), /does not let the page keep anything/);
  await page.close();
});

test('a sandboxed frame: a widget from another origin mounts and trains', async () => {
  const page = await browser.newPage();
  await page.goto(host.url);
  await page.evaluate((script) => {
    document.body.innerHTML = '';
    const f = Object.assign(document.createElement('iframe'), { width: 900, height: 700 });
    f.setAttribute('sandbox', 'allow-scripts');
    f.srcdoc = `<!doctype html><html lang="en"><body>
      <attnlab-demo id="w" name="bahdanau" task="reverse" steps="100"></attnlab-demo>
      <script type="module" src="${script}"></script></body></html>`;
    document.body.append(f);
  }, `${files.url}embed.js`);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await frame.waitForSelector('#w[data-ready="1"]', { timeout: 60000 });
  await frame.locator('#w [name=run-toggle]').click();
  await frame.waitForSelector('#w .run[data-state=done]', { timeout: 120000 });
  assert.equal(await frame.locator('#w .storage-note').count(), 1);
  await page.close();
});
