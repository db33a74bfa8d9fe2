// docs/widgets.md: a `threads` widget whose files come from another origin that sends CORS but no
// Cross-Origin-Resource-Policy trains on one thread. The pthread engine's worker script is a
// classic script (importScripts, no CORS), which a cross-origin isolated page refuses without
// CORP: the widget used to hang at "building the model…" forever; now it loads the single-thread
// engine, trains, and names the build it runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, usePage, serveDir } from './harness.mjs';

const { browser } = usePage({ server: false });
let hostDir, files, host;
before(async () => {
  hostDir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-host-'));
  files = await serveDir(path.join(root, 'dist'), { headers: { 'Access-Control-Allow-Origin': '*' } });
  writeFileSync(
    path.join(hostDir, 'index.html'),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>course</title>
<script type="module" src="${files.url}embed.js"></script></head>
<body><attnlab-demo id="align" name="bahdanau" task="reverse" steps="200" threads></attnlab-demo></body></html>`
  );
  host = await serveDir(hostDir, {
    headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
  });
});
after(async () => {
  await files?.close();
  await host?.close();
  if (hostDir) rmSync(hostDir, { recursive: true, force: true });
});

test('threads from a CORS-only origin on an isolated page: one thread trains', async () => {
  const page = await browser.newPage();
  await page.goto(host.url);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  await page.waitForSelector('#align[data-ready="1"]', { timeout: 60000 });
  const progress = page.evaluate(
    () =>
      new Promise((resolve) => {
        document.getElementById('align').addEventListener('progress', (e) => {
          if (e.detail.step >= 3) resolve(e.detail);
        });
      })
  );
  await page.click('#align [name=run-toggle]');
  const got = await Promise.race([progress, new Promise((r) => setTimeout(r, 60000, null))]);
  assert.ok(got, `no training after 60 s: "${(await page.textContent('#align .run-status'))?.trim()}"`);
  assert.ok(Number.isFinite(got.loss));
  assert.match(await page.getAttribute('#align', 'data-engine'), /^wasm(-relaxed)?$/);
  assert.equal(await page.getAttribute('#align', 'data-threads'), '1');
  await page.click('#align [name=run-toggle]');
  await page.close();
});
