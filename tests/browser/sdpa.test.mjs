// The page's attention heatmap is the engine's softmax(QKᵀ/√d_k), recomputed here in plain JS
// from the inputs the page used; both languages render; screenshots at desktop and phone width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, launch, shots } from './harness.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

function softmaxRows(q, k, n, dk, causal) {
  const w = [];
  for (let i = 0; i < n; i++) {
    const s = [];
    for (let j = 0; j < n; j++) {
      let d = 0;
      for (let c = 0; c < dk; c++) d += q[i * dk + c] * k[j * dk + c];
      s.push(causal && j > i ? -Infinity : d / Math.sqrt(dk));
    }
    const mx = Math.max(...s), e = s.map((x) => Math.exp(x - mx)), z = e.reduce((a, b) => a + b);
    w.push(...e.map((x) => x / z));
  }
  return w;
}

async function heatmapState(page) {
  return page.evaluate(() => {
    const el = document.querySelector('[data-demo=sdpa]');
    const h = el.querySelector('al-heatmap');
    return { q: [...el.inputs.q], k: [...el.inputs.k], n: el.inputs.n, dk: el.inputs.dk, causal: el.inputs.causal,
             values: [...h.values], rows: h.rows, cols: h.cols };
  });
}

test('heatmap shows the engine attention weights for random Q, K', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}#sdpa.n=10&sdpa.dk=32&sdpa.seed=3`);
  await page.waitForSelector('body[data-ready="1"]');
  let s = await heatmapState(page);
  assert.equal(s.rows, 10);
  assert.equal(s.dk, 32);
  const ref = softmaxRows(s.q, s.k, s.n, s.dk, s.causal);
  s.values.forEach((v, i) => assert.ok(Math.abs(v - ref[i]) < 1e-5, `cell ${i}: ${v} vs ${ref[i]}`));

  await page.check('[data-demo=sdpa] [name=causal]');
  s = await heatmapState(page);
  assert.equal(s.causal, true);
  const refc = softmaxRows(s.q, s.k, s.n, s.dk, true);
  s.values.forEach((v, i) => assert.ok(Math.abs(v - refc[i]) < 1e-5, `causal cell ${i}`));
  assert.match(page.url(), /sdpa\.causal=1/);
  await page.screenshot({ path: path.join(shots, 'sdpa-desktop.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
});

test('language toggle switches visible text; phone width renders', async () => {
  const page = await browser.newPage({ width: 375, height: 800 });
  await page.goto(`${server.url}?lang=en`);
  await page.waitForSelector('body[data-ready="1"]');
  assert.match(await page.textContent('#sdpa h2'), /Scaled dot-product attention/);
  await page.click('#lang-toggle');
  assert.match(await page.textContent('#sdpa h2'), /스케일드/);
  assert.doesNotMatch(page.url(), /lang=en/);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page overflows the phone width by ${overflow}px`);
  await page.screenshot({ path: path.join(shots, 'sdpa-phone-ko.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
});
