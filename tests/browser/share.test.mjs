// Sharing and exporting what a reader sees, and what a demo shows before any training:
//   - "Copy embed code" under a demo gives the <script> and an <attnlab-demo> tag with the demo's
//     current settings and language (a language switch rewrites it), shown in a labelled field;
//     that code, pasted into a fresh host page, renders the widget with the same settings;
//   - every heatmap and chart has PNG and CSV download buttons: the CSV holds the element's own
//     numbers with their labels, the PNG is a PNG of the drawn canvas's size (a chart's has its
//     legend under the plot);
//   - before the reader presses Start, the training demos show the untrained model (step 0) from
//     the engine: maps whose rows sum to 1, loss curves that start at a finite step-0 point, and
//     nothing trains;
//   - widgets fit a 320 px wide host (no horizontal overflow of the widget box).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { axeDemo, downloadBytes, shots, usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

async function openDemo(name, { hash = '', lang = 'en', width = 1280 } = {}) {
  const page = await browser.newPage({ width });
  await page.goto(`${server.url}?lang=${lang}#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator(`[data-demo="${name}"]`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 30000 });
  page.pending = (await page.locator(`[data-demo="${name}"]`).getAttribute('data-pending')) === '1';
  return page;
}

// A host page served at `file` on the test server (so embed.js and the engine load from it).
async function hostPage(body, { width = 1000, file = 'share-host.html' } = {}) {
  const page = await browser.newPage({ width, height: 900 });
  const url = `${server.url}${file}`;
  await page.route(url, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>host</title></head><body>${body}</body></html>`,
    })
  );
  await page.goto(url);
  return page;
}

// Parses our CSV (RFC 4180 quoting, a UTF-8 byte order mark, CRLF lines).
function parseCsv(text) {
  const rows = [];
  let row = [],
    field = '',
    quoted = false;
  const s = text.replace(/^\ufeff/, '');
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field.replace(/\r$/, ''));
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

async function download(page, locator) {
  const [dl] = await Promise.all([page.waitForEvent('download'), locator.click()]);
  return { name: dl.suggestedFilename(), bytes: await downloadBytes(dl) };
}

const close = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b));

test("copy embed code: the tag carries the demo's settings and language, and renders the same widget on another page", async () => {
  const page = await openDemo('sdpa', { hash: 'sdpa.dk=64&sdpa.seed=5' });
  const demo = page.locator('[data-demo=sdpa]');
  await demo.locator('input[name=n]').fill('12');
  const copy = demo.getByRole('button', { name: 'Copy embed code' });
  assert.equal(await demo.locator('textarea[name=embed-code]').isVisible(), false, 'the field appears on demand');
  await copy.click();
  const field = demo.getByRole('textbox', { name: /Embed code/ });
  await field.waitFor();
  const code = await field.inputValue();
  assert.match(
    code,
    /^<script type="module" src="http:\/\/127\.0\.0\.1:\d+\/embed\.js"><\/script>\n<attnlab-demo name="sdpa"[^>]*><\/attnlab-demo>$/,
    code
  );
  const tag = code.split('\n')[1];
  for (const a of ['dk="64"', 'seed="5"', 'n="12"', 'lang="en"']) assert.ok(tag.includes(a), `${a} in ${tag}`);
  // the field is selected for copying, and the status says what happened
  assert.equal(await field.evaluate((f) => f.selectionEnd - f.selectionStart), code.length);
  assert.match(await demo.locator('.demo-share-status').textContent(), /Copied|Select the code/);
  const inputs = await page.evaluate(() => document.querySelector('[data-demo=sdpa]').inputs);
  assert.deepEqual({ dk: inputs.dk, n: inputs.n }, { dk: 64, n: 12 });

  // the Korean page gives a Korean tag
  const ko = await openDemo('sdpa', { lang: 'ko', hash: 'sdpa.dk=8' });
  await ko.locator('[data-demo=sdpa]').getByRole('button', { name: '임베드 코드 복사' }).click();
  assert.match(await ko.locator('[data-demo=sdpa] textarea[name=embed-code]').inputValue(), /dk="8"[^>]* lang="ko"/);
  // the open field, its status and the download buttons pass axe in the dark theme too
  await ko.evaluate(() => {
    document.documentElement.dataset.theme = 'dark';
  });
  assert.deepEqual(await axeDemo(ko, 'sdpa'), []);
  // switching the page to English rewrites the shown code, which keeps the demo's settings
  await ko.click('#lang-toggle');
  await ko.waitForFunction(() => document.body.dataset.lang === 'en');
  const switched = await ko.locator('[data-demo=sdpa] textarea[name=embed-code]').inputValue();
  assert.match(switched, /dk="8"[^>]* lang="en"/, switched);
  assert.equal(
    await ko
      .locator('[data-demo=sdpa]')
      .getByRole('textbox', { name: /Embed code/ })
      .isVisible(),
    true
  );
  await ko.close();

  const host = await hostPage(`<h1>Course page</h1>${code}`);
  await host.waitForFunction(() => document.querySelector('attnlab-demo')?.dataset.ready === '1', null, {
    timeout: 30000,
  });
  const there = await host.evaluate(() => {
    const w = document.querySelector('attnlab-demo');
    return { ...w.inputs, lang: w.dataset.lang, text: w.textContent };
  });
  assert.equal(there.dk, 64);
  assert.equal(there.n, 12);
  assert.equal(there.lang, 'en');
  assert.match(there.text, /divide by √d_k/);
  assert.equal(await host.evaluate(() => document.querySelector('attnlab-demo').result?.weights?.length), 12 * 12);
  await host.close();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('PNG and CSV downloads of a heatmap and a chart hold what is drawn', async () => {
  const page = await openDemo('sdpa', { hash: 'sdpa.dk=16&sdpa.n=6' });
  const demo = page.locator('[data-demo=sdpa]');
  await page.waitForFunction(
    () => document.querySelector('[data-demo=sdpa] .chart-max')?.chartData?.data[0].length === 10,
    null,
    { timeout: 20000 }
  );
  const heat = demo.locator('al-heatmap');
  // the buttons are labelled and reachable by keyboard
  const csvHeat = heat.getByRole('button', { name: /CSV: download the numbers of this map/ });
  const pngHeat = heat.getByRole('button', { name: /PNG: download this map/ });
  assert.equal(await csvHeat.textContent(), 'CSV');

  const csv = await download(page, csvHeat);
  assert.match(csv.name, /^attnlab-sdpa-heatmap\.csv$/);
  const rows = parseCsv(csv.bytes.toString('utf8'));
  const hm = await heat.evaluate((h) => ({
    values: [...h.values],
    rows: h.rows,
    cols: h.cols,
    rowLabels: h.rowLabels.map(String),
    colLabels: h.colLabels.map(String),
  }));
  assert.equal(rows.length, hm.rows + 1);
  assert.deepEqual(
    rows[0].slice(1),
    hm.colLabels.length ? hm.colLabels : hm.values.slice(0, hm.cols).map((_, j) => String(j))
  );
  for (let i = 0; i < hm.rows; i++) {
    assert.equal(rows[i + 1].length, hm.cols + 1);
    for (let j = 0; j < hm.cols; j++)
      assert.ok(
        close(Number(rows[i + 1][j + 1]), hm.values[i * hm.cols + j]),
        `cell ${i},${j}: ${rows[i + 1][j + 1]} vs ${hm.values[i * hm.cols + j]}`
      );
  }

  // keyboard: focus the PNG button and press Enter
  await pngHeat.focus();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  const png = await downloadBytes(dl);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  const size = await heat.evaluate((h) => [h.canvas.width, h.canvas.height]);
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], size, "IHDR width and height are the canvas's");

  const chart = demo.locator('.chart-max');
  const chartCsv = parseCsv(
    (
      await download(page, chart.getByRole('button', { name: /CSV: download the numbers of this chart/ }))
    ).bytes.toString('utf8')
  );
  const cd = await chart.evaluate((c) => c.chartData);
  assert.deepEqual(chartCsv[0], [cd.xLabel, ...cd.labels]);
  assert.equal(chartCsv.length, cd.data[0].length + 1);
  cd.data.forEach((col, s) =>
    col.forEach((v, k) =>
      assert.ok(close(Number(chartCsv[k + 1][s]), v), `series ${s} point ${k}: ${chartCsv[k + 1][s]} vs ${v}`)
    )
  );
  const chartPng = await download(page, chart.getByRole('button', { name: /PNG: download this chart/ }));
  assert.equal(chartPng.bytes.subarray(1, 4).toString('latin1'), 'PNG');
  const csize = await chart.evaluate((c) => {
    const cv = c.querySelector('canvas');
    return [cv.width, cv.height];
  });
  const [pw, ph] = [chartPng.bytes.readUInt32BE(16), chartPng.bytes.readUInt32BE(20)];
  assert.equal(pw, csize[0], "the PNG has the plot's width");
  assert.ok(
    ph > csize[1] && ph < csize[1] + 120,
    `the PNG is the plot (${csize[1]} px high) and a legend under it: ${ph} px`
  );
  // the legend under the plot: a line in each series' colour (uPlot's legend is HTML, not canvas)
  const legend = await chart.evaluate((c) => {
    const pic = c.querySelector('.export-bar').picture();
    const plotH = c.querySelector('canvas').height;
    const px = pic.getContext('2d').getImageData(0, plotH, pic.width, pic.height - plotH).data;
    const seen = new Set();
    for (let k = 0; k < px.length; k += 4)
      if (px[k + 3] === 255)
        seen.add(
          `#${[px[k], px[k + 1], px[k + 2]].map((v) => v.toString(16).padStart(2, '0')).join('')}`.toUpperCase()
        );
    // the series' own colours, from uPlot's HTML legend (its markers; the x series has none)
    const strokes = [...c.querySelectorAll('.u-legend .u-marker')]
      .map((m) => getComputedStyle(m).borderTopColor)
      .filter((col) => !/rgba\(.*, 0\)$/.test(col));
    return { height: pic.height, seen: [...seen], strokes, labels: c.chartData.labels };
  });
  assert.equal(legend.height, ph);
  assert.ok(legend.strokes.length === legend.labels.length && legend.labels.length >= 2, JSON.stringify(legend));
  const hex = (rgb) =>
    `#${rgb
      .match(/\d+/g)
      .slice(0, 3)
      .map((v) => Number(v).toString(16).padStart(2, '0'))
      .join('')}`.toUpperCase();
  for (const s of legend.strokes)
    assert.ok(legend.seen.includes(hex(s)), `the legend has a line in ${hex(s)}: ${legend.seen.length} opaque colours`);

  // the Korean page labels them in Korean
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  assert.equal(
    await demo.locator('al-heatmap [name=export-csv]').getAttribute('aria-label'),
    'CSV: 이 지도의 숫자를 내려받기'
  );
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Each row of a weights matrix sums to 1 (a softmax from the engine), and it is not all zeros.
function assertAttention(m, what) {
  assert.ok(m.rows > 0 && m.cols > 0, `${what}: ${m.rows}×${m.cols}`);
  for (let i = 0; i < m.rows; i++) {
    const s = m.values.slice(i * m.cols, (i + 1) * m.cols).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(s - 1) < 1e-3, `${what}: row ${i} sums to ${s}`);
  }
}
const heatmaps = (page, sel) =>
  page.$$eval(`${sel} al-heatmap`, (hs) => hs.map((h) => ({ values: [...h.values], rows: h.rows, cols: h.cols })));
const charts = (page, sel) => page.$$eval(`${sel} .chart`, (cs) => cs.map((c) => c.chartData));

test('before training, the training demos show the untrained model (step 0) from the engine, and nothing trains', async (t) => {
  const page = await openDemo('bottleneck');
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const progress = [];
  await page.exposeFunction('sawProgress', (d) => progress.push(d));
  await page.evaluate(() =>
    document.getElementById('sections').addEventListener('progress', (e) => window.sawProgress(e.detail))
  );
  const names = ['bottleneck', 'reverse', 'bahdanau', 'multihead', 'order', 'playground'];
  for (const name of names) {
    await page.locator(`[data-demo="${name}"]`).scrollIntoViewIfNeeded();
    await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 30000 });
  }
  // race demos: every curve starts with a finite step-0 loss; a note says it is untrained
  for (const name of ['bottleneck', 'reverse', 'order']) {
    const sel = `[data-demo="${name}"]`;
    await page.waitForSelector(`${sel} .run-untrained:not([hidden])`, { timeout: 30000 });
    const loss = (await charts(page, sel))[0];
    assert.deepEqual(loss.data[0], [0], `${name}: one point, at step 0`);
    for (const ys of loss.data.slice(1))
      assert.ok(Number.isFinite(ys[0]) && ys[0] > 0, `${name}: step-0 loss ${ys[0]}`);
    assert.equal(await page.getAttribute(`${sel} .run`, 'data-state'), 'idle');
  }
  // §2: the untrained models' accuracy per source length (the engine's decodes: none right)
  const acc = (await charts(page, '[data-demo=bottleneck]'))[1];
  assert.deepEqual(
    acc.data[0],
    Array.from({ length: 14 }, (_, k) => k + 3)
  );
  assert.ok(acc.data.slice(1).every((ys) => ys.every((v) => v >= 0 && v <= 1)));
  // §4 and the playground: the untrained model's map on the held-out example, and its step-0 loss
  for (const name of ['bahdanau', 'playground']) {
    const sel = `[data-demo="${name}"]`;
    await page.waitForSelector(`${sel} .run[data-preview="1"]`, { timeout: 30000 });
    assert.equal(await page.isVisible(`${sel} .run-untrained`), true);
    assert.match(await page.textContent(`${sel} .run-untrained`), /Untrained model \(step 0\)/);
    assertAttention((await heatmaps(page, sel))[0], name);
    assert.match(await page.textContent(`${sel} [name=example]`), /→|\S/);
    const loss = (await charts(page, sel))[0];
    assert.equal(loss.data[0][0], 0);
    assert.ok(Number.isFinite(loss.data[1][0]) && loss.data[1][0] > 0, `${name}: step-0 loss`);
  }
  // §8: the untrained h-head model's heads under the (still disabled) h slider
  await page.waitForSelector('[data-demo=multihead] [name=huntrained]:not([hidden])', { timeout: 30000 });
  const mh = await heatmaps(page, '[data-demo=multihead] [name=ugrid]');
  assert.equal(mh.length, 4, 'h = 4 heads');
  mh.forEach((m, h) => assertAttention(m, `untrained head ${h + 1}`));
  assert.equal(await page.isDisabled('[data-demo=multihead] input[name=h]'), true);
  assert.equal(
    await page.locator('[data-demo=multihead] [name=hgrid] al-heatmap').count(),
    0,
    "the h slider's grid waits for the trained models"
  );
  // nothing started training
  assert.deepEqual(progress, []);
  for (const name of names)
    assert.notEqual(await page.getAttribute(`[data-demo="${name}"] .run`, 'data-state'), 'running');
  await page.screenshot({ path: path.join(shots, 'untrained-playground.png') });

  // Start replaces the note by training; Reset brings the untrained model back
  const rev = '[data-demo=reverse]';
  await page.click(`${rev} [name=run-toggle]`);
  await page.waitForFunction((s) => document.querySelector(s).curves?.[0]?.length > 2, rev, { timeout: 30000 });
  await page.click(`${rev} [name=run-toggle]`);
  assert.equal(await page.isHidden(`${rev} .run-untrained`), true);
  const curve = await page.evaluate((s) => document.querySelector(s).curves[0].map((p) => p.step), rev);
  assert.equal(curve[0], 0);
  assert.ok(
    curve.slice(1).every((s, k) => s > curve[k]),
    `steps rise: ${curve}`
  );
  await page.click(`${rev} [name=run-reset]`);
  await page.waitForSelector(`${rev} .run-untrained:not([hidden])`, { timeout: 30000 });
  assert.deepEqual((await charts(page, rev))[0].data[0], [0]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('widgets fit a 320 px wide host: a heatmap demo, a chart demo and the playground', async () => {
  const widgets = ['bahdanau', 'reverse', 'playground', 'sdpa'];
  const body = `<script type="module" src="embed.js"></script>${widgets.map((w) => `<div style="width:320px;margin:8px"><attnlab-demo name="${w}"></attnlab-demo></div>`).join('')}`;
  const page = await hostPage(body, { width: 360, file: 'narrow-host.html' });
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('attnlab-demo')].every((w) => w.dataset.ready === '1' || w.dataset.error === '1'),
    null,
    { timeout: 30000 }
  );
  await page.waitForTimeout(3000); // the untrained previews draw
  const boxes = await page.$$eval('attnlab-demo', (ws) =>
    ws.map((w) => ({
      name: w.getAttribute('name'),
      error: w.dataset.error ?? null,
      width: w.getBoundingClientRect().width,
      scroll: w.scrollWidth,
      client: w.clientWidth,
      wider: [...w.querySelectorAll('*')]
        .filter(
          (e) =>
            e.getBoundingClientRect().right > w.getBoundingClientRect().right + 0.5 &&
            !e.closest('al-heatmap canvas, .sr-only')
        )
        .map((e) => e.tagName + '.' + e.className)
        .slice(0, 5),
    }))
  );
  await page.screenshot({ path: path.join(shots, 'widgets-320.png'), fullPage: true });
  for (const b of boxes) {
    assert.equal(b.error, null, `${b.name} mounted`);
    assert.ok(b.width <= 320, `${b.name}: box ${b.width} px wide`);
    assert.ok(
      b.scroll <= b.client,
      `${b.name}: content ${b.scroll} px in a ${b.client} px box (${b.wider.join(', ')})`
    );
    assert.deepEqual(b.wider, [], `${b.name}: elements past the box's right edge`);
  }
  assert.equal(
    await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    true,
    'no page scrollbar'
  );
  await page.close();
});
