// The guide's defects every reader saw (issue 30, items 1, 2, 5, 7, 8), each checked on the page
// as a reader finds it: the translator's controls named once it is open and its status line in
// the language switched to; §7's and §8's captions agreeing with the models their demos run;
// §5's and §10's sliders showing their values; Korean counts in 만/억 units, the playground's
// task names and file pickers in the page's language; §2's accuracy axis title whole and its
// status line giving both models' losses; §1's input showing its whole default sentence; §6's
// first step-through output not rounded to zeros; §9's row labels naming dimensions 2i; one
// engine line. (Phone-size targets and print: phone.test.mjs; every control and language after
// every state change: named-controls.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unavailable } from '../unavailable.mjs';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root, openDemo, usePage } from './harness.mjs';

const index = JSON.parse(readFileSync(path.join(root, 'web', 'public', 'models', 'index.json'), 'utf8'));
const HANGUL = /[\uac00-\ud7a3]/;

const { server, browser } = usePage();

const open = (name, opts) => openDemo(browser, server, name, opts);
const pending = (page, name) =>
  page
    .locator(`[data-demo=${name}]`)
    .getAttribute('data-pending')
    .then((v) => v === '1');
async function switchLang(page, to) {
  await page.click('#lang-toggle');
  await page.waitForSelector(`body[data-lang=${to}]`, { timeout: 30000 });
}
// the figure caption of the demo's own <figure class="demo">
const caption = (page, name) => page.locator(`figure.demo:has([data-demo=${name}]) > figcaption`).textContent();

test('§7: the opened translator names every control, option and heading, and its status follows a language switch', async (t) => {
  if (!index['translate-de-en']) return unavailable(t, 'no translator model in this build');
  for (const lang of ['en', 'ko']) {
    const page = await open('translate', { lang });
    const demo = page.locator('[data-demo=translate]');
    await demo.locator('button[name=open]').click();
    await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation, null, {
      timeout: 120000,
    });
    const empty = await demo.evaluate((el) =>
      [...el.querySelectorAll('label > span, option, h4, button')]
        .filter((n) => !n.textContent.trim())
        .map((n) => n.outerHTML.slice(0, 80))
    );
    assert.deepEqual(empty, [], `${lang}: empty labels, options, headings or buttons`);
    const go = await demo.locator('button[name=go]').boundingBox();
    assert.ok(go.width >= 44 && go.height >= 24, `${lang}: Translate button ${go.width}×${go.height}`);
    const status = demo.locator('[name=status]');
    assert.equal(
      HANGUL.test(await status.textContent()),
      lang === 'ko',
      `${lang} status: ${await status.textContent()}`
    );
    const other = lang === 'en' ? 'ko' : 'en';
    await switchLang(page, other);
    assert.equal(
      HANGUL.test(await status.textContent()),
      other === 'ko',
      `after the switch to ${other}: ${await status.textContent()}`
    );
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("§7: the caption gives the shipped translator's layer count; its Korean size reads in 만 units", async (t) => {
  const meta = index['translate-de-en'];
  if (!meta) return unavailable(t, 'no translator model in this build');
  const layers = Number(/--layers (\d+)/.exec(meta.command)[1]);
  const en = await open('translate');
  assert.match(await en.locator('#decoder').textContent(), new RegExp(`\\b${layers} layers a side`));
  assert.doesNotMatch(await en.locator('#decoder').textContent(), new RegExp(`\\b(?!${layers})\\d+ layers a side`));
  await en.close();
  const ko = await open('translate', { lang: 'ko' });
  assert.match(await ko.locator('#decoder').textContent(), new RegExp(`양쪽 ${layers}층`));
  const about = await ko.locator('[data-demo=translate] [name=about]').textContent();
  const want = new Intl.NumberFormat('ko', { notation: 'compact', maximumSignificantDigits: 2 }).format(meta.params);
  assert.match(want, /만$/);
  assert.ok(about.includes(`${want} 개`), `"${want} 개" in: ${about}`);
  assert.doesNotMatch(about, /백만/);
  await ko.close();
});

test('§8: the caption names the head counts and width the ablation trains', async (t) => {
  for (const lang of ['en', 'ko']) {
    const page = await open('multihead', { lang });
    if (await pending(page, 'multihead')) {
      await page.close();
      return unavailable(t, 'engine build without model sessions');
    }
    const plan = await page.evaluate(() => document.querySelector('[data-demo=multihead]').ablationPlan);
    assert.ok(plan, 'the demo says what it trains (el.ablationPlan)');
    const text = (await caption(page, 'multihead')).replace(/\s+/g, ' ');
    assert.ok(text.includes(`h = ${plan.heads.join(', ')}`), `${lang}: h = ${plan.heads.join(', ')} in the caption`);
    assert.ok(text.includes(`h = ${plan.heads.at(-1)}`), `${lang}: the largest h`);
    assert.match(
      text,
      new RegExp(lang === 'en' ? `of ${plan.dModel}\\b` : `${plan.dModel}로 고정`),
      `${lang}: d_model ${plan.dModel}`
    );
    for (const h of [2, 8])
      if (!plan.heads.includes(h)) assert.ok(!text.includes(`h = ${h}`), `${lang}: h = ${h} is not trained`);
    await page.close();
  }
});

test('§5 and §10: each score slider and the noise slider show their value, in both languages', async () => {
  for (const lang of ['en', 'ko']) {
    const page = await open('mixing', { lang });
    const sliders = page.locator('[data-demo=mixing] input[type=range]');
    assert.equal(await sliders.count(), 3);
    for (let i = 0; i < 3; i++) {
      await sliders.nth(i).evaluate((s, v) => {
        s.value = String(v);
        s.dispatchEvent(new Event('input', { bubbles: true }));
      }, i - 1);
      const shown = await sliders.nth(i).evaluate((s) => s.closest('label').querySelector('output')?.textContent ?? '');
      assert.ok(shown !== '' && Number(shown) === i - 1, `${lang}: score ${i} set to ${i - 1} shows "${shown}"`);
    }
    await page.locator('[data-demo=ntm]').scrollIntoViewIfNeeded();
    await page.waitForSelector('[data-demo=ntm][data-ready="1"]', { timeout: 30000 });
    const noise = page.locator('[data-demo=ntm] [name=noise]');
    await noise.evaluate((s) => {
      s.value = '1.25';
      s.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const shown = await noise.evaluate((s) => s.closest('label').querySelector('output')?.textContent ?? '');
    assert.ok(shown !== '' && Number(shown) === 1.25, `${lang}: noise set to 1.25 shows "${shown}"`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('playground in Korean: task names and the file pickers speak Korean', async (t) => {
  const page = await open('playground', { lang: 'ko' });
  if (await pending(page, 'playground')) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  for (const model of ['transformer', 'pointer']) {
    await demo.locator('[name=model]').selectOption(model);
    const names = await demo.locator('[name=task] option').allTextContents();
    assert.ok(names.length >= 3 && names.every((n) => HANGUL.test(n)), `${model} tasks: ${names.join(' | ')}`);
  }
  await demo.locator('[name=model]').selectOption('transformer');
  const pickers = await demo.evaluate((el) =>
    [...el.querySelectorAll('input[type=file]')].map((f) => {
      const label = f.closest('label');
      return {
        opacity: Number(getComputedStyle(f).opacity),
        text: label?.textContent.trim() ?? '',
        visible: label ? label.getBoundingClientRect().width > 0 : false,
      };
    })
  );
  assert.ok(pickers.length >= 1);
  for (const p of pickers.filter((x) => x.visible)) {
    assert.equal(p.opacity, 0, 'the browser\'s own "Choose File" button is not shown');
    assert.ok(HANGUL.test(p.text), `picker label "${p.text}"`);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("§2: the accuracy axis title fits its chart; the status line gives each model's loss", async (t) => {
  const page = await open('bottleneck', { hash: 'bottleneck.steps=50' });
  if (await pending(page, 'bottleneck')) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const fit = await page.evaluate(() =>
    [...document.querySelectorAll('[data-demo=bottleneck] .chart')].map((el) => {
      const u = el.lineChart.plot,
        a = u.axes[1],
        g = u.ctx;
      g.save();
      g.font = a.labelFont[0];
      const w = g.measureText(a.label).width;
      g.restore();
      const mid = u.bbox.top + u.bbox.height / 2;
      return { label: a.label, w, room: 2 * Math.min(mid, g.canvas.height - mid) };
    })
  );
  assert.equal(fit.length, 2);
  for (const f of fit) assert.ok(f.w <= f.room, `"${f.label}" is ${f.w.toFixed(0)} px on ${f.room.toFixed(0)} px`);
  const demo = page.locator('[data-demo=bottleneck]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bottleneck] .run[data-state=done]', { timeout: 120000 });
  const status = await demo.locator('.run-status').textContent();
  assert.match(status, /RNNencdec[^·]*\d\.\d+.*RNNsearch[^·]*\d\.\d+/, status);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§1: the input box shows its whole default sentence (1280 px en, 375 px ko)', async (t) => {
  for (const [lang, width] of [
    ['en', 1280],
    ['ko', 375],
  ]) {
    const page = await open('lm', { lang, width });
    if (await pending(page, 'lm')) {
      await page.close();
      return unavailable(t, 'no language model in this build');
    }
    const box = await page
      .locator('[data-demo=lm] [name=text]')
      .evaluate((i) => ({ value: i.value, scroll: i.scrollWidth, client: i.clientWidth }));
    assert.ok(box.value.length > 10);
    assert.ok(
      box.scroll <= box.client,
      `${lang} ${width}: "${box.value}" needs ${box.scroll} px, the box shows ${box.client}`
    );
    await page.close();
  }
});

test("§6: the step-through's first output row is not rounded away to zeros", async (t) => {
  const page = await open('self-attention');
  if (await pending(page, 'self-attention')) {
    await page.close();
    return unavailable(t, 'no shipped model in this build');
  }
  await page.waitForFunction(() => document.querySelector('[data-demo=self-attention]').step, null, { timeout: 30000 });
  const { step, cells } = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=self-attention]');
    const tables = el.querySelectorAll('.stepthrough table');
    const out = tables[tables.length - 1];
    return { step: el.step, cells: [...out.querySelectorAll('tbody tr:first-child td')].map((c) => c.textContent) };
  });
  assert.equal(step.j, 0);
  const wv = Array.from({ length: step.hs }, (_, c) => step.weights[0] * step.V[c]);
  assert.equal(cells.length, step.hs);
  cells.forEach((s, c) => {
    if (wv[c] !== 0) assert.ok(Number(s) !== 0, `w₁·v₁[${c}] = ${wv[c]} shown as "${s}"`);
    assert.ok(Math.abs(Number(s) - wv[c]) <= Math.max(0.005, Math.abs(wv[c]) * 0.06), `cell ${c}: "${s}" for ${wv[c]}`);
  });
  await page.close();
});

test("§9: the map's row labels name dimensions as the formula does (2i, i the pair)", async () => {
  const page = await open('positional');
  const labels = await page.evaluate(() => document.querySelector('[data-demo=positional] al-heatmap').rowLabels);
  const named = labels.map((l, c) => [l, c]).filter(([l]) => l);
  assert.ok(named.length >= 4);
  for (const [l, c] of named) {
    const m = /^(2i|i)=(\d+)$/.exec(l);
    assert.ok(m, `row ${c}: "${l}"`);
    assert.equal(Number(m[2]), m[1] === 'i' ? Math.floor(c / 2) : c, `row ${c} (dimension ${c}) is labelled "${l}"`);
  }
  const readout = await page.locator('[data-demo=positional] [name=dimval]').textContent();
  assert.match(readout, /pair i = \d+/);
  await page.close();
});

test('the engine is described once, in one line', async () => {
  for (const lang of ['en', 'ko']) {
    const page = await open('mixing', { lang });
    await page.waitForSelector('#engine-build');
    const lines = await page.$$eval('main > p.engine-line', (ps) => ps.map((p) => p.textContent));
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0].split('WebAssembly').length - 1, 1, lines[0]);
    assert.ok(await page.$('#engine-line #engine-build'));
    await page.close();
  }
});
