// The page's attention heatmap is the engine's softmax(QKᵀ/√d_k), recomputed here in plain JS
// from the inputs the page used; both languages render; screenshots at desktop and phone width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { shots, usePage } from './harness.mjs';

const { server, browser } = usePage();

function softmaxRows(q, k, n, dk, causal) {
  const w = [];
  for (let i = 0; i < n; i++) {
    const s = [];
    for (let j = 0; j < n; j++) {
      let d = 0;
      for (let c = 0; c < dk; c++) d += q[i * dk + c] * k[j * dk + c];
      s.push(causal && j > i ? -Infinity : d / Math.sqrt(dk));
    }
    const mx = Math.max(...s),
      e = s.map((x) => Math.exp(x - mx)),
      z = e.reduce((a, b) => a + b);
    w.push(...e.map((x) => x / z));
  }
  return w;
}

async function heatmapState(page) {
  return page.evaluate(() => {
    const el = document.querySelector('[data-demo=sdpa]');
    const h = el.querySelector('al-heatmap');
    return {
      q: [...el.inputs.q],
      k: [...el.inputs.k],
      n: el.inputs.n,
      dk: el.inputs.dk,
      causal: el.inputs.causal,
      values: [...h.values],
      rows: h.rows,
      cols: h.cols,
    };
  });
}

test('heatmap shows the engine attention weights for random Q, K', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}#sdpa.n=10&sdpa.dk=32&sdpa.seed=3`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=sdpa]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=sdpa][data-ready="1"]');
  let s = await heatmapState(page);
  assert.equal(s.rows, 10);
  assert.equal(s.dk, 32);
  assert.equal(await page.textContent('[data-demo=sdpa] [name=nval]'), 'n = 10'); // the token count is shown
  const ref = softmaxRows(s.q, s.k, s.n, s.dk, s.causal);
  s.values.forEach((v, i) => assert.ok(Math.abs(v - ref[i]) < 1e-5, `cell ${i}: ${v} vs ${ref[i]}`));

  await page.check('[data-demo=sdpa] [name=causal]');
  await page.waitForFunction(() => document.querySelector('[data-demo=sdpa]').inputs.causal === true);
  s = await heatmapState(page);
  assert.equal(s.causal, true);
  const refc = softmaxRows(s.q, s.k, s.n, s.dk, true);
  s.values.forEach((v, i) => assert.ok(Math.abs(v - refc[i]) < 1e-5, `causal cell ${i}`));
  assert.match(page.url(), /sdpa\.causal=1/);
  await page.screenshot({ path: path.join(shots, 'sdpa-desktop.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
});

test('without the division by √d_k the softmax saturates as d_k grows', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#sdpa.dk=256&sdpa.scale=0&sdpa.n=16`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=sdpa]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=sdpa][data-ready="1"]');
  const s = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=sdpa]');
    return { sweep: el.sweep, scale: el.inputs.scale, w: [...el.result.weights] };
  });
  assert.equal(s.scale, false);
  const [scaledMax, rawMax] = s.sweep.max;
  const [scaledH, rawH] = s.sweep.entropy;
  const last = s.sweep.dk.length - 1;
  assert.equal(s.sweep.dk[last], 512);
  assert.ok(rawMax[last] > 0.9, `unscaled largest weight at d_k=512: ${rawMax[last]}`);
  assert.ok(scaledMax[last] < 0.6, `scaled largest weight at d_k=512: ${scaledMax[last]}`);
  assert.ok(rawH[last] < 0.3 && scaledH[last] > 2, `entropies ${rawH[last]} vs ${scaledH[last]}`);
  assert.ok(Math.abs(scaledMax[last] - scaledMax[3]) < 0.2, 'with scaling the largest weight barely depends on d_k');
  const rowMax = Math.max(...s.w.slice(0, 16));
  assert.ok(rowMax > 0.9, `first row of the unscaled d_k=256 heatmap is nearly one-hot: ${rowMax}`);
  assert.deepEqual(page.errors, []);
});
