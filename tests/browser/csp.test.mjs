// A strict Content-Security-Policy, with no 'unsafe-eval' and no inline script: the guide ships one
// (web/index.html's meta tag), and a course page may send one of its own. The engine is linked with
// DYNAMIC_EXECUTION=0 (Embind's invokers are closures, not new Function) so it runs under them.
// Checked: the guide mounts every demo and trains one, and a course page served with the header
// mounts a widget and trains it through start(), each with no CSP violation reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { usePage, serveDir, root } from './harness.mjs';

const POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self' data: blob:";

const { server, browser } = usePage({ bypassCSP: false }); // the policy in force, as readers get it
let tmp;
before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-csp-'));
});
after(async () => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// Every CSP violation the page (or its Workers, through the console) reports.
async function watch(page) {
  const seen = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Content-Security-Policy/.test(m.text())) seen.push(m.text());
  });
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`)
    );
  });
  return async () => [...seen, ...(await page.evaluate(() => window.__csp))];
}

test('the guide under its own policy: every demo mounts and one trains, no violation', async () => {
  const page = await browser.newPage();
  const violations = await watch(page);
  await page.goto(`${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=50`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const policy = await page.evaluate(
    () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? ''
  );
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'(;|$)/, 'no unsafe-eval, no inline script');
  const names = await page.evaluate(() => [...document.querySelectorAll('[data-demo]')].map((e) => e.dataset.demo));
  for (const name of names) {
    await page.locator(`[data-demo="${name}"]`).scrollIntoViewIfNeeded();
    await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 90000 });
  }
  const demo = page.locator('[data-demo=bahdanau]');
  await demo.scrollIntoViewIfNeeded();
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=idle]', { timeout: 5000 }).catch(() => {});
  await page.waitForFunction(
    () => Number(document.querySelector('[data-demo=bahdanau] .run progress')?.value) >= 50,
    null,
    { timeout: 180000 }
  );
  assert.doesNotMatch(await page.textContent('body'), /Engine error|EvalError/);
  assert.deepEqual(await violations(), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a course page with a strict policy header: a widget mounts and trains through start()', async () => {
  const site = path.join(tmp, 'site');
  cpSync(path.join(root, 'dist'), site, { recursive: true });
  writeFileSync(
    path.join(site, 'course.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="./embed.js"></script><script type="module" src="./course.js"></script></head>
<body><attnlab-demo id="w" name="bahdanau" task="reverse" steps="100"></attnlab-demo><pre id="log"></pre></body></html>`
  );
  writeFileSync(
    path.join(site, 'course.js'),
    `await customElements.whenDefined('attnlab-demo');
const w = document.getElementById('w');
w.addEventListener('progress', (e) => { document.getElementById('log').textContent += JSON.stringify(e.detail) + '\\n'; });
`
  );
  const host = await serveDir(site, { headers: { 'Content-Security-Policy': POLICY } });
  const page = await browser.newPage();
  try {
    const violations = await watch(page);
    await page.goto(`${host.url}course.html`);
    await page.waitForFunction(() => document.getElementById('w')?.dataset.ready === '1', null, {
      timeout: 60000,
    });
    const got = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const w = document.getElementById('w');
          const seen = [];
          w.addEventListener('progress', (e) => {
            seen.push(e.detail);
            if (seen.length === 3) resolve(seen);
          });
          w.start().catch(reject);
          setTimeout(() => reject(new Error(`${seen.length} progress events in 120 s`)), 120000);
        })
    );
    assert.ok(
      got.every((d) => Number.isFinite(d.loss) && d.step > 0),
      JSON.stringify(got)
    );
    assert.deepEqual(await violations(), []);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    await host.close();
  }
});
