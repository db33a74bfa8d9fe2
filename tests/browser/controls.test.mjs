// The controls §2 and §8 promise in their captions, used as a reader would, on models the engine
// trains in the page:
//   §2 (bottleneck): the source-length slider is disabled with a note until the race has run,
//   keeps its length in the URL, and afterwards moves with the keyboard; at each length it shows
//   the plotted per-length accuracy (recomputed here from the 200 decoded held-out sequences),
//   a held-out example whose shown outputs are the engine's decodes (wrong tokens marked exactly
//   where they differ from the target), and the decoders' reading sizes from the models' config:
//   one summary vector of 2 × hidden numbers against L annotations (the attention map's columns).
//   §8 (multihead): the h slider is disabled until the ablation has run, then shows h maps for
//   h heads, each row of each map summing to 1, and d_k = 64/h; its value is announced and kept
//   in the URL. Both at 375 px in Korean with the dark theme as well, without overflow, and with
//   no serious or critical axe-core violation in the trained demo.
// Skipped only when the engine build has no model sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { axeDemo, shots, usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

async function openDemo(page, name, query) {
  await page.goto(`${server.url}${query}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator(`[data-demo=${name}]`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`[data-demo=${name}][data-ready="1"]`, { timeout: 30000 });
  return (await page.locator(`[data-demo=${name}]`).getAttribute('data-pending')) !== '1';
}

async function train(page, name) {
  const demo = page.locator(`[data-demo=${name}]`);
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector(`[data-demo=${name}] .run[data-state=done]`, { timeout: 120000 });
}

test('§2: the source-length slider reads the trained models at one length', async (t) => {
  const page = await browser.newPage();
  if (!(await openDemo(page, 'bottleneck', '?lang=en#bottleneck.steps=100&bottleneck.len=11'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=bottleneck]');
  const slider = demo.locator('input[name=len]');
  // before training: disabled, with a note, at the length from the URL
  assert.equal(await slider.isDisabled(), true);
  assert.match(await demo.locator('[name=lennote]').textContent(), /run the experiment first/);
  assert.equal(await slider.inputValue(), '11');
  assert.equal(await slider.getAttribute('aria-valuetext'), 'L = 11 tokens');
  assert.match(await demo.locator('label:has(input[name=len])').textContent(), /source length L/);
  await train(page, 'bottleneck');
  await page.waitForFunction(() => document.querySelector('[data-demo=bottleneck]').atLength, null, { timeout: 30000 });
  assert.equal(await slider.isDisabled(), false);
  assert.equal(await demo.locator('[name=lennote]').isVisible(), false);

  await slider.focus();
  await page.keyboard.press('Home');
  const seen = [];
  for (let L = 3; L <= 16; L++) {
    if (L > 3) await page.keyboard.press('ArrowRight');
    assert.equal(await slider.getAttribute('aria-valuetext'), `L = ${L} tokens`);
    assert.equal(await demo.locator('[name=lenval]').textContent(), `L = ${L}`);
    // the link keeps the length unless it is the default (8), which links leave out
    if (L === 8) assert.doesNotMatch(page.url(), /bottleneck\.len=/);
    else assert.match(page.url(), new RegExp(`bottleneck\\.len=${L}(&|$)`));
    const { at, perLength, decoded } = await page.evaluate(() => {
      const el = document.querySelector('[data-demo=bottleneck]');
      return { at: el.atLength, perLength: el.perLength, decoded: el.decoded };
    });
    assert.equal(at.len, L);
    // the accuracy at L is the plotted point, and the share of the 200 decodes of length L copied exactly
    const rows = decoded.src.map((s, i) => i).filter((i) => decoded.src[i].length === L);
    for (const m of [0, 1]) {
      const point = perLength[m].find((p) => p.len === L);
      const exact = rows.filter(
        (i) =>
          decoded.out[m][i].length === decoded.tgt[i].length &&
          decoded.out[m][i].every((x, k) => x === decoded.tgt[i][k])
      ).length;
      assert.equal(point.n, rows.length);
      assert.equal(at.acc[m], point.acc);
      assert.equal(point.acc, exact / rows.length);
    }
    const accText = await demo.locator('[name=accat]').textContent();
    assert.ok(
      accText.includes(`(${(100 * at.acc[0]).toFixed(0)}%)`) && accText.includes(`(${(100 * at.acc[1]).toFixed(0)}%)`),
      accText
    );
    assert.ok(accText.includes(`of ${L} tokens (${rows.length})`), accText);
    // the example: the first held-out sequence of length L, each output as the engine decoded it
    assert.equal(at.index, rows[0]);
    for (const m of [0, 1]) {
      const out = decoded.out[m][at.index],
        tgt = decoded.tgt[at.index];
      const dd = demo.locator(`dd[data-model="${m}"]`);
      const shown = (
        await dd.evaluate((d) =>
          [...d.childNodes]
            .filter((n) => !n.classList?.contains('caption'))
            .map((n) => n.textContent)
            .join('')
        )
      )
        .trim()
        .split(/\s+/)
        .filter(Boolean);
      assert.equal(shown.length, out.length, `model ${m} at L = ${L}: ${shown} vs ${out}`);
      const marked = await dd.locator('mark.wrong').count();
      assert.equal(marked, out.filter((x, k) => x !== tgt[k]).length);
      seen.push(out.join(','));
    }
    // what each decoder reads, from the engine's config (hidden 32, bidirectional encoder)
    assert.deepEqual(at.summary, { vectors: 1, width: 64, encoder: 'bigru', hidden: 32 });
    assert.deepEqual(at.annotations, { vectors: L, width: 64, encoder: 'bigru', hidden: 32 });
    const comp = await demo.locator('[name=compression]').textContent();
    assert.ok(
      comp.includes(`reads the ${L} tokens only through the summary c, one vector of 64 numbers (2 × hidden 32`),
      comp
    );
    assert.ok(comp.includes(`${(64 / L).toFixed(1)} numbers per source token`), comp);
    assert.ok(
      comp.includes(
        `all ${L} annotations, one vector of 64 numbers (2 × hidden 32) per source token, ${64 * L} numbers in all`
      ),
      comp
    );
  }
  // the examples change with the length (different sequences, decoded by the models)
  assert.ok(new Set(seen).size > 14, `${new Set(seen).size} distinct outputs`);
  await demo.screenshot({ path: path.join(shots, 'bottleneck-length.png') });

  // Korean, dark, phone width: the controls translate and fit
  await page.setViewportSize({ width: 375, height: 800 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  assert.match(await demo.locator('label:has(input[name=len])').textContent(), /소스 길이 L/);
  assert.match(await demo.locator('[name=compression]').textContent(), /요약 벡터 c 하나/);
  // the race's summary line follows the language switch too (it stayed in English before)
  assert.match(await demo.locator('[name=summary]').textContent(), /^10토큰 이상인 시퀀스: 어텐션 없이 \d+%/);
  const over = await demo.evaluate((d) => d.scrollWidth - d.clientWidth);
  assert.ok(over <= 0, `the demo overflows by ${over} px`);
  assert.deepEqual(await axeDemo(page, 'bottleneck'), []);
  await demo.screenshot({ path: path.join(shots, 'bottleneck-length-phone-ko-dark.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§8: the h slider shows h maps of the trained ablation model, d_k = 64/h', async (t) => {
  const page = await browser.newPage();
  if (!(await openDemo(page, 'multihead', '?lang=en#multihead.steps=50&multihead.h=16'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=multihead]');
  const slider = demo.locator('input[name=h]');
  assert.equal(await slider.isDisabled(), true);
  assert.match(await demo.locator('[name=hnote]').textContent(), /run the ablation first/);
  assert.equal(await slider.getAttribute('aria-valuetext'), 'h = 16, d_k = 4');
  assert.equal(await demo.locator('[name=hgrid] al-heatmap').count(), 0);
  await train(page, 'multihead');
  await page.waitForFunction(() => document.querySelector('[data-demo=multihead]').ablationHeads, null, {
    timeout: 30000,
  });
  assert.equal(await slider.isDisabled(), false);
  assert.deepEqual(
    await page.evaluate(() => document.querySelector('[data-demo=multihead]').ablation.map((r) => r.h)),
    [1, 4, 16, 32]
  );
  // the result bars' values ("loss 1.781 · exact 18.0%") stay on one line at 1280 px (they wrapped onto 4)
  const valueLines = () =>
    demo.evaluate((d) =>
      [...d.querySelectorAll('.bars-host .bar-value')].map((e) => {
        const cs = getComputedStyle(e);
        const line = parseFloat(cs.lineHeight) || 1.2 * parseFloat(cs.fontSize);
        return Math.round(e.getBoundingClientRect().height / line);
      })
    );
  assert.deepEqual(await valueLines(), [1, 1, 1, 1]);

  async function check(h) {
    const dk = 64 / h;
    assert.equal(await slider.getAttribute('aria-valuetext'), `h = ${h}, d_k = ${dk}`);
    assert.equal(await demo.locator('[name=hval]').textContent(), `h = ${h}, d_k = ${dk}`);
    assert.match(await demo.locator('[name=dk]').textContent(), new RegExp(`d_k = 64/${h} = ${dk} dimensions`));
    // the link keeps h unless it is the default (4), which links leave out
    if (h === 4) assert.doesNotMatch(page.url(), /multihead\.h=/);
    else assert.match(page.url(), new RegExp(`multihead\\.h=${h}(&|$)`));
    const info = await page.evaluate(() => document.querySelector('[data-demo=multihead]').ablationHeads);
    assert.equal(info.h, h);
    assert.equal(info.H, h, "the engine's map has h heads");
    const maps = await demo
      .locator('[name=hgrid] al-heatmap')
      .evaluateAll((els) => els.map((e) => ({ rows: e.rows, cols: e.cols, values: Array.from(e.values) })));
    assert.equal(maps.length, h);
    for (const m of maps) {
      assert.equal(m.rows, info.T);
      assert.equal(m.cols, info.S);
      for (let r = 0; r < m.rows; r++) {
        const sum = m.values.slice(r * m.cols, (r + 1) * m.cols).reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(sum - 1) < 1e-4, `h = ${h}: row ${r} sums to ${sum}`);
      }
    }
    if (h > 1) assert.notDeepEqual(maps[0].values, maps[1].values, 'heads differ');
    return maps;
  }
  await check(16);
  await slider.focus();
  await page.keyboard.press('End');
  await check(32);
  await page.keyboard.press('Home');
  await check(1);
  await page.keyboard.press('ArrowRight');
  await check(4);
  await demo.locator('[name=hgrid]').screenshot({ path: path.join(shots, 'multihead-h.png') });
  // Korean, dark, phone width
  await page.setViewportSize({ width: 375, height: 800 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  assert.match(await demo.locator('label:has(input[name=h])').textContent(), /헤드 수 h/);
  assert.match(await demo.locator('[name=dk]').textContent(), /d_k = 64\/4 = 16차원/);
  assert.equal(await demo.locator('[name=hgrid] figcaption').first().textContent(), '헤드 1');
  assert.equal(await demo.locator('[name=hgrid] al-heatmap').count(), 4);
  await page.waitForFunction(() =>
    /손실/.test(document.querySelector('[data-demo=multihead] .bars-host .bar-value')?.textContent ?? '')
  );
  for (const n of await valueLines()) assert.ok(n <= 2, `a result value takes ${n} lines at 375 px`);
  const over = await demo.evaluate((d) => d.scrollWidth - d.clientWidth);
  assert.ok(over <= 0, `the demo overflows by ${over} px`);
  assert.deepEqual(await axeDemo(page, 'multihead'), []);
  await demo.screenshot({ path: path.join(shots, 'multihead-h-phone-ko-dark.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});
