// §1's generator, the sampling controls beyond T and k: drawing </s> ends the text (the buttons
// stop, a note says why), top-p (nucleus) keeps the fewest likeliest words whose probabilities
// add up to p (checked against the page's own logits in plain JS, set from the keyboard and kept
// in the link), the legend names the cut in words in both languages (top-k 0: "all N words"),
// and every row's bars start at the same x, the drawn word's row included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unavailable } from '../unavailable.mjs';
import { usePage } from './harness.mjs';

const { server, browser } = usePage();

const sel = '[data-demo=lm] .lm-sample';

async function open(t, lang, hash) {
  const page = await browser.newPage();
  await page.setViewportSize({ width: lang === 'ko' ? 375 : 1280, height: 900 });
  await page.goto(`${server.url}?lang=${lang}#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=lm]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=lm][data-ready="1"]', { timeout: 30000 });
  if ((await page.locator('[data-demo=lm]').getAttribute('data-pending')) === '1') {
    await page.close();
    unavailable(t, 'engine build without model sessions or no checkpoint');
    return null;
  }
  await page.waitForFunction((s) => document.querySelector(s)?.sampling, sel, { timeout: 30000 });
  return page;
}
const sampling = (page) => page.evaluate((s) => document.querySelector(s).sampling, sel);
const drawn = (page, n) =>
  page.waitForFunction(([q, k]) => document.querySelector(q).querySelectorAll('mark.lm-gen').length >= k, [sel, n], {
    timeout: 30000,
  });

// softmax(z/T) over the top k (0: all), then the nucleus of mass p: a map id -> probability.
function nucleus(z, T, k, p) {
  const order = z
    .map((v, i) => [v, i])
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map((x) => x[1]);
  let keep = k ? order.slice(0, k) : order;
  const e = keep.map((i) => Math.exp((z[i] - z[keep[0]]) / T));
  const s = e.reduce((a, b) => a + b, 0);
  let q = e.map((x) => x / s);
  let n = 0,
    c = 0;
  while (n < q.length && c < p) c += q[n++];
  keep = keep.slice(0, n);
  q = q.slice(0, n).map((x) => x / c);
  return new Map(keep.map((id, j) => [id, q[j]]));
}

test('§1 generator: drawing </s> ends the text', async (t) => {
  // T 1, top-k 5, seed 1 draws </s> within the first words
  const page = await open(t, 'en', 'lm.prompt=the%20whale&lm.temp=1&lm.topk=5&lm.seed=1&lm.topp=1');
  if (!page) return;
  const box = page.locator(sel);
  for (let i = 0; i < 4 && !(await sampling(page)).ended; ++i) {
    const before = await box.locator('mark.lm-gen').count();
    await box.locator('[name=generate]').click();
    await page.waitForFunction(
      ([q, n]) => {
        const el = document.querySelector(q);
        return el.sampling?.ended || el.querySelectorAll('mark.lm-gen').length >= n + 10;
      },
      [sel, before],
      { timeout: 30000 }
    );
  }
  const s = await sampling(page);
  assert.equal(s.ended, true, `the text ends at </s>: ${s.text}`);
  assert.equal(s.sampled.token, '</s>');
  assert.equal(s.text.split('</s>').length, 2, `one </s>, the last word: ${s.text}`);
  assert.ok(s.text.endsWith('</s>'), s.text);
  assert.equal(await box.locator('[name=next]').isDisabled(), true);
  assert.equal(await box.locator('[name=generate]').isDisabled(), true);
  assert.match(await box.locator('.lm-ended').textContent(), /<\/s>/);
  assert.equal(await box.locator('.lm-ended').isVisible(), true);
  // pressing again draws nothing more
  const words = await box.locator('mark.lm-gen').count();
  await box.locator('[name=next]').click({ force: true });
  assert.equal(await box.locator('mark.lm-gen').count(), words);
  // starting over takes the text up again
  await box.locator('[name=restart]').click();
  await page.waitForFunction((q) => !document.querySelector(q).sampling.sampled, sel);
  assert.equal(await box.locator('[name=next]').isDisabled(), false);
  assert.equal(await box.locator('.lm-ended').isVisible(), false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§1 generator: top-p keeps the nucleus; set from the keyboard and kept in the link', async (t) => {
  const page = await open(t, 'en', 'lm.prompt=the%20whale&lm.temp=0.8&lm.topk=0&lm.topp=0.5&lm.seed=2');
  if (!page) return;
  const box = page.locator(sel);
  assert.match(await box.locator('label:has([name=topp])').textContent(), /top-p/);
  assert.equal(await box.locator('[name=topp]').inputValue(), '0.5');
  await box.locator('[name=next]').click();
  await drawn(page, 1);
  let s = await sampling(page);
  assert.equal(s.p, 0.5);
  let want = nucleus(s.logits, s.T, s.k, s.p);
  assert.equal(s.kept, want.size);
  assert.ok(want.has(s.sampled.id), `drawn ${s.sampled.token} is in the nucleus`);
  for (const row of s.shown) assert.ok(Math.abs(row.after - (want.get(row.id) ?? 0)) < 1e-6, `after of ${row.token}`);
  assert.match(await box.locator('.lm-legend').textContent(), new RegExp(`p = 0\\.50 \\(${want.size} kept\\)`));

  // the keyboard: focus, arrow up twice (0.60), leave the field
  await box.locator('[name=topp]').focus();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Tab');
  await page.waitForFunction((q) => document.querySelector(q).sampling.p === 0.6, sel);
  s = await sampling(page);
  want = nucleus(s.logits, s.T, s.k, s.p);
  assert.equal(s.kept, want.size);
  for (const row of s.shown) assert.ok(Math.abs(row.after - (want.get(row.id) ?? 0)) < 1e-6);
  assert.match(page.url(), /lm\.topp=0\.6/);
  // top-p 1 keeps every word; k then cuts alone
  await box.locator('[name=topp]').fill('1');
  await box.locator('[name=topp]').dispatchEvent('change');
  await page.waitForFunction((q) => document.querySelector(q).sampling.p === 1, sel);
  assert.equal((await sampling(page)).kept, (await sampling(page)).logits.length);
  assert.deepEqual(page.errors, []);
  await page.close();
});

for (const lang of ['en', 'ko']) {
  test(`§1 generator (${lang}): the legend at top-k 0 reads naturally; the drawn row's bars line up`, async (t) => {
    const page = await open(t, lang, 'lm.prompt=the%20whale&lm.temp=0.8&lm.topk=0&lm.topp=1&lm.seed=1');
    if (!page) return;
    const box = page.locator(sel);
    const V = (await sampling(page)).logits.length;
    const legend = await box.locator('.lm-legend').textContent();
    if (lang === 'en') {
      assert.match(legend, new RegExp(`all ${V} words kept`));
      assert.doesNotMatch(legend, /the all/);
    } else {
      assert.match(legend, new RegExp(`단어 ${V}개를 모두 남긴 채`));
      assert.doesNotMatch(legend, /전부개/);
    }
    // each row's two bar tracks start where every other row's do, at every drawn word
    for (let n = 1; n <= 8 && !(await sampling(page)).ended; ++n) {
      await box.locator('[name=next]').click();
      await drawn(page, n);
      await page.waitForSelector(`${sel} .lm-dist-row.sampled`);
      const s = await sampling(page);
      const xs = await box
        .locator('.lm-dist-row')
        .evaluateAll((rows) =>
          rows.map((r) => [...r.querySelectorAll('.bar-track')].map((b) => Math.round(b.getBoundingClientRect().left)))
        );
      assert.ok(xs.length >= 5);
      for (const row of xs)
        assert.deepEqual(
          row,
          xs[0],
          `"${s.sampled.token}" drawn: bars of every row at ${xs[0]}: ${JSON.stringify(xs)}`
        );
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
