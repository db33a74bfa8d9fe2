// A new release runs its own engine. A static host that lets browsers cache everything but the
// page for a year (Cache-Control: immutable) serves release A, then release B in the same place;
// B differs from A in its engine (each .wasm carries an extra custom section, so its bytes and
// content hash differ, and B's bundles name B's hashes, as a build of B would). After A twice
// (the second visit asks for no engine file: the cache is in force), a visit to B must fetch
// B's engine files, by B's hashes, and load them without an error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { usePage, serveDir, root } from './harness.mjs';
import { hashFiles } from '../../scripts/web/engine-hashes.mjs';

const { browser } = usePage({ server: false });
let tmp, server;
let current;
const A = () => path.join(tmp, 'A');
const B = () => path.join(tmp, 'B');

// A wasm custom section named attnlab-release holding `tag`: valid, and ignored by the engine.
function withSection(bytes, tag) {
  const name = Buffer.from('attnlab-release');
  const body = Buffer.concat([Buffer.from([name.length]), name, Buffer.from(tag)]);
  return Buffer.concat([bytes, Buffer.from([0, body.length]), body]);
}

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-release-'));
  cpSync(path.join(root, 'dist'), A(), { recursive: true });
  cpSync(A(), B(), { recursive: true });
  const engine = path.join(B(), 'engine');
  const hashesA = hashFiles(engine);
  assert.ok(Object.keys(hashesA).length >= 3, 'dist/engine has the engine files');
  for (const f of readdirSync(engine).filter((f) => f.endsWith('.wasm')))
    writeFileSync(path.join(engine, f), withSection(readFileSync(path.join(engine, f)), 'B'));
  const hashesB = hashFiles(engine);
  const bundles = [
    ...readdirSync(path.join(B(), 'assets'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => path.join(B(), 'assets', f)),
    path.join(B(), 'embed.js'),
  ];
  let named = 0;
  const changed = [];
  for (const file of bundles) {
    let text = readFileSync(file, 'utf8');
    for (const f of Object.keys(hashesA)) {
      if (hashesA[f] === hashesB[f]) continue;
      named += text.split(hashesA[f]).length - 1;
      text = text.replaceAll(hashesA[f], hashesB[f]);
    }
    if (text !== readFileSync(file, 'utf8')) changed.push(path.basename(file));
    writeFileSync(file, text);
  }
  assert.ok(named >= 3, `the built bundles name the engine's hashes (${named} found)`);
  // A chunk whose content changed gets a new name in a real build (Vite names chunks by content
  // hash): rename each one under assets/ and every reference to it.
  const renames = changed.filter((f) => f !== 'embed.js').map((f) => [f, f.replace(/\.js$/, 'b.js')]);
  const texts = [path.join(B(), 'index.html'), ...bundles];
  for (const file of texts) {
    let text = readFileSync(file, 'utf8');
    for (const [from, to] of renames) text = text.replaceAll(from, to);
    writeFileSync(file, text);
  }
  for (const [from, to] of renames) {
    cpSync(path.join(B(), 'assets', from), path.join(B(), 'assets', to));
    rmSync(path.join(B(), 'assets', from));
  }
  current = A();
  server = await serveDir(() => current, {
    headers: (p) => ({
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cache-Control': p === '/' || p.endsWith('.html') ? 'no-store' : 'public, max-age=31536000, immutable',
    }),
  });
});
after(async () => {
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const engineUrls = (from) => server.urls.slice(from).filter((u) => /^\/engine\/attnlab[\w-]*\.(wasm|mjs|js)/.test(u));

// Visits the guide (a new document) until it is ready: its engine has loaded, and every engine
// file it asked for has arrived with no new one asked for in the last QUIET ms (the threaded
// engine's may be asked for, and still be arriving, after the page is ready; on a loaded machine
// its request can start after the others have ended), so that leaving the page does not cut a
// download, or its entry in the cache, that a second visit would then fetch again.
const QUIET = 1500;
async function visit(page) {
  const pending = new Set();
  let last = Date.now();
  const engine = (r) => /\/engine\/attnlab[\w-]*\.(wasm|mjs|js)/.test(r.url());
  const started = (r) => engine(r) && pending.add(r) && (last = Date.now());
  const ended = (r) => pending.delete(r) && (last = Date.now());
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    await page.goto('about:blank'); // a new document each time, not a move within this one
    await page.goto(`${server.url}?lang=en`);
    await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 120000 });
    for (const t0 = Date.now(); (pending.size || Date.now() - last < QUIET) && Date.now() - t0 < 60000;)
      await new Promise((r) => setTimeout(r, 100));
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
}

test('release B served where A was: B runs its own engine files, fetched by their new hashes', async () => {
  const page = await browser.newPage();
  try {
    let from = server.urls.length;
    await visit(page);
    const first = engineUrls(from);
    assert.ok(
      first.some((u) => /\.wasm\?v=[0-9a-f]{12}$/.test(u)),
      `release A's engine is asked for by hash: ${first.join(' ')}`
    );
    from = server.urls.length;
    await visit(page);
    assert.deepEqual(
      engineUrls(from).filter((u) => u.includes('.wasm')),
      [],
      'a second visit to A takes its engine from the cache'
    );
    current = B();
    const hashesB = hashFiles(path.join(B(), 'engine'));
    from = server.urls.length;
    await visit(page);
    const second = engineUrls(from);
    const wasm = second.filter((u) => u.includes('.wasm'));
    assert.ok(wasm.length >= 1, `release B's page asked for its engine: ${second.join(' ') || 'nothing'}`);
    for (const u of second) {
      const [file, v] = u.slice('/engine/'.length).split('?v=');
      assert.equal(v, hashesB[file], `${u} carries B's hash`);
    }
    // the engine that loaded is B's: its wasm holds B's section
    const loaded = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((n) => /\/engine\/.*\.wasm/.test(n))
    );
    assert.ok(
      loaded.some((n) => wasm.some((u) => n.endsWith(u))),
      `the page's resources include B's wasm: ${loaded.join(' ')}`
    );
    assert.deepEqual(
      page.errors.filter((e) => !/favicon/.test(e)),
      []
    );
  } finally {
    await page.close();
  }
});
