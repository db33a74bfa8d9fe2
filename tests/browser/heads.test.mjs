// The shipped Transformer's heads, as a reader uses §6 and §8:
//   §6 (self-attention): the step-through of one head for one query, picked with the demo's own
//   controls and walked to the sum with the keyboard. Its softmax column is the map row the bars
//   show; the engine's own attention() on the displayed q, K and V gives the same weights and
//   output; the scaled scores are the scores ÷ √d_k and their softmax is the weights; the
//   highlighted rows move with each step and the live region reads it.
//   §8 (multihead): per-head entropies lie in [0, log2 S] and differ between heads; muting a head
//   (checkbox, keyboard) changes the held-out loss against all heads, unmuting gives back exactly
//   the all-heads numbers from a fresh pass; muting every head of the first cross-attention
//   leaves the decoder blind to the source and token accuracy falls far; the URL keeps the muted
//   heads and a reload restores them.
// Both also in Korean at 375 px in the dark theme, without overflow and with no serious or
// critical axe-core violation. Skipped only when the engine build has no model sessions.
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

const close = (a, b, tol, what) => {
  assert.equal(a.length, b.length, `${what}: lengths`);
  a.forEach((x, i) => assert.ok(Math.abs(x - b[i]) <= tol, `${what}[${i}]: ${x} vs ${b[i]}`));
};

test("§6: the step-through walks one head's computation with the engine's numbers", async (t) => {
  const page = await browser.newPage();
  if (!(await openDemo(page, 'self-attention', '?lang=en#self-attention.layer=0'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=self-attention]');
  const st = demo.locator('.stepthrough');
  // a head and a query token picked with the controls
  await demo.locator('[name=layer]').selectOption({ value: '1' });
  await demo.locator('[name=head]').selectOption({ value: '2' });
  await demo.locator('.tokens button').nth(2).click();
  await page.waitForFunction(() => {
    const el = document.querySelector('[data-demo=self-attention]');
    return el.selected.head === 2 && el.selected.layer === 1 && el.selected.token === 2 && el.step?.j === 0;
  });
  const first = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=self-attention]');
    return { sel: el.selected, step: el.step };
  });
  const { sel, step } = first;
  assert.equal(step.S, sel.S);
  assert.equal(step.hs, 16, 'd_model 64 over 4 heads');
  assert.equal(step.q.length, step.hs);
  assert.equal(step.K.length, step.S * step.hs);
  // the softmax column is the row of the map the bars show
  close(step.weights, sel.row, 1e-5, 'weights vs the map row');
  const shown = await st
    .locator('table')
    .nth(2)
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => Number(r.querySelectorAll('td')[2].textContent)));
  close(shown, sel.row, 5e-4 + 1e-9, 'displayed weights (3 decimals)');
  assert.match(await st.locator('.st-title').textContent(), /Layer 2, head 3, query/);
  // scores, ÷√d_k and the softmax of the scaled scores
  step.scores.forEach((s, j) => {
    let d = 0;
    for (let c = 0; c < step.hs; c++) d += step.q[c] * step.K[j * step.hs + c];
    assert.ok(Math.abs(s - d) < 1e-6, `score ${j}`);
    assert.ok(Math.abs(step.scaled[j] - s / Math.sqrt(step.hs)) < 1e-9, `scaled ${j}`);
  });
  const mx = Math.max(...step.scaled),
    e = step.scaled.map((x) => Math.exp(x - mx)),
    z = e.reduce((a, b) => a + b);
  close(
    e.map((x) => x / z),
    step.weights,
    1e-4,
    'softmax(scaled) vs weights'
  );

  // walk it with the keyboard: Next (Enter) once per key, then the sum
  await st.locator('.st-next').focus();
  const rowIndex = (k) =>
    st
      .locator('table')
      .nth(k)
      .locator('tbody tr')
      .evaluateAll((rows) => rows.findIndex((r) => r.classList.contains('st-cur')));
  for (let j = 0; j <= step.S; j++) {
    const now = await page.evaluate(() => document.querySelector('[data-demo=self-attention]').step.j);
    assert.equal(now, j);
    const live = await st.locator('.st-live').textContent();
    if (j < step.S) {
      assert.equal(await rowIndex(1), j, `K row ${j} highlighted`);
      if (j === 0) {
        // the highlight is drawn: a tinted background and an outline
        const look = await st
          .locator('tr.st-cur')
          .first()
          .evaluate((r) => {
            const c = getComputedStyle(r);
            return [c.backgroundColor, c.outlineStyle];
          });
        assert.notEqual(look[0], 'rgba(0, 0, 0, 0)');
        assert.equal(look[1], 'solid');
      }
      assert.equal(await rowIndex(2), j, `score row ${j} highlighted`);
      assert.equal(await rowIndex(3), j, `V row ${j} highlighted`);
      assert.match(live, new RegExp(`^Key ${j + 1} of ${step.S}, .*softmax weight ${step.weights[j].toFixed(3)}`));
      assert.equal(await st.locator('.st-pos').textContent(), `key ${j + 1} of ${step.S}`);
    } else {
      assert.equal(await rowIndex(1), -1, 'no key row highlighted at the sum');
      assert.match(live, /weighted sum of all/);
      assert.equal(await st.locator('.st-next').getAttribute('aria-disabled'), 'true');
    }
    if (j === 0) assert.equal(await st.locator('.st-prev').getAttribute('aria-disabled'), 'true');
    await page.keyboard.press('Enter');
  }
  // past the end nothing moves; the arrow keys go back
  assert.equal(await page.evaluate(() => document.querySelector('[data-demo=self-attention]').step.j), step.S);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.querySelector('[data-demo=self-attention]').step.j), step.S - 1);
  await page.keyboard.press('End');
  await demo.screenshot({ path: path.join(shots, 'self-attention-step.png') });

  // the engine's own attention() on the displayed q, K, V: the same weights and output
  const eng = await page.evaluate(async () => {
    const el = document.querySelector('[data-demo=self-attention]');
    const s = el.step;
    const r = await el
      .querySelector('.stepthrough')
      .attention(new Float32Array(s.q), new Float32Array(s.K), new Float32Array(s.V), {
        T: 1,
        S: s.S,
        Dk: s.hs,
        Dv: s.hs,
      });
    return { weights: [...r.weights], out: [...r.out], step: s };
  });
  close(eng.weights, eng.step.weights, 1e-4, 'engine attention() weights');
  close(eng.out, eng.step.out, 1e-4, 'engine attention() output');
  const outShown = await st
    .locator('table')
    .nth(4)
    .locator('tbody tr')
    .first()
    .evaluate((r) => [...r.querySelectorAll('td')].map((d) => Number(d.textContent)));
  close(outShown, eng.out, 5e-3 + 1e-9, 'displayed output (2 decimals)');

  // under "mean of heads" the step-through follows head 1, and says so
  await demo.locator('[name=head]').selectOption({ value: '-1' });
  await page.waitForFunction(() => document.querySelector('[data-demo=self-attention]').selected.head === -1);
  assert.match(await demo.locator('[name=stepnote]').textContent(), /follows head 1/);
  assert.match(await st.locator('.st-title').textContent(), /head 1,/);

  // Korean, dark, phone width
  await page.setViewportSize({ width: 375, height: 800 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  // the demos are relabelled after the page's prose is re-rendered in the new language
  await page.waitForFunction(
    () => document.querySelector('[data-demo=self-attention] .st-next')?.textContent === '다음 단계 ▶',
    null,
    { timeout: 10000 }
  );
  const dark = await st
    .locator('tr.st-cur')
    .first()
    .evaluate((r) => [getComputedStyle(r).backgroundColor, getComputedStyle(document.body).backgroundColor]);
  assert.notEqual(dark[0], dark[1], 'the highlighted row stands out in the dark theme');
  assert.notEqual(dark[0], 'rgba(0, 0, 0, 0)');
  assert.match(await st.locator('.st-title').textContent(), /헤드 1/);
  const over = await demo.evaluate((d) => d.scrollWidth - d.clientWidth);
  assert.ok(over <= 0, `the demo overflows by ${over} px`);
  assert.deepEqual(await axeDemo(page, 'self-attention'), []);
  await demo.screenshot({ path: path.join(shots, 'self-attention-step-phone-ko-dark.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

const muted = (page) => page.evaluate(() => document.querySelector('[data-demo=multihead]').muted);
const mutedAre = (page, heads, name) =>
  page.waitForFunction(
    ([h, n]) => {
      const m = document.querySelector('[data-demo=multihead]').muted;
      return m && m.name === n && m.heads.join(',') === h;
    },
    [heads.join(','), name],
    { timeout: 30000 }
  );

test('§8: heads measured, and muting heads changes the held-out loss and accuracy', async (t) => {
  const page = await browser.newPage();
  if (!(await openDemo(page, 'multihead', '?lang=en#multihead.kind=encoder.self_attn&multihead.layer=0'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=multihead]');
  const enc = 'encoder.layers.0.self_attn',
    cross = 'decoder.layers.0.multihead_attn',
    last = 'decoder.layers.1.multihead_attn';
  await mutedAre(page, [], enc);
  const base = await muted(page);
  assert.equal(base.n, 32);
  assert.deepEqual(base.muted, base.all);
  assert.ok(base.all.acc > 0.5 && base.all.loss > 0, JSON.stringify(base.all));
  // summaries: entropies within [0, log2 S], not all alike
  const stats = await page.evaluate(() => document.querySelector('[data-demo=multihead]').headStats);
  assert.equal(stats.name, enc);
  assert.equal(stats.heads.length, 4);
  for (const h of stats.heads) {
    assert.ok(
      h.entropy >= 0 && h.entropy <= Math.log2(stats.S) + 1e-9,
      `entropy ${h.entropy} of ${Math.log2(stats.S)}`
    );
    assert.ok(h.distance >= 0 && h.distance <= stats.S - 1, `distance ${h.distance}`);
    assert.ok(h.top >= 0 && h.top < stats.S && h.topWeight > 0 && h.topWeight <= 1);
  }
  const ent = stats.heads.map((h) => h.entropy);
  assert.ok(Math.max(...ent) - Math.min(...ent) > 0.05, `entropies ${ent}`);
  const cells = await demo
    .locator('.head-stats tbody tr')
    .evaluateAll((rows) => rows.map((r) => Number(r.querySelectorAll('td')[0].textContent)));
  close(cells, ent, 0.005 + 1e-9, 'entropies shown');

  // mute head 2 with the keyboard
  const box2 = demo.locator('.head-stats input[name=mute-2]');
  assert.equal(await box2.getAttribute('aria-label'), 'mute head 2');
  await box2.focus();
  await page.keyboard.press('Space');
  await mutedAre(page, [2], enc);
  const one = await muted(page);
  assert.ok(Math.abs(one.diff.loss) > 1e-7, `loss difference ${one.diff.loss}`);
  assert.notEqual(one.muted.loss, base.all.loss);
  assert.ok(Math.abs(one.diff.loss - (one.muted.loss - base.all.loss)) < 1e-12);
  assert.deepEqual(one.all, base.all);
  assert.match(new URL(page.url()).hash, /multihead\.mute=2(&|$)/);
  const text = await demo.locator('[name=mutecmp]').textContent();
  assert.match(
    text,
    new RegExp(
      `^Heads muted: 2\\. On 32 held-out examples: loss ${one.muted.loss.toFixed(4)} \\(${one.diff.loss >= 0 ? '\\+' : '−'}${Math.abs(one.diff.loss).toFixed(4)}, (?:[+−]\\d+\\.\\d%|×\\d+), against all heads, ${base.all.loss.toFixed(4)}\\)`
    )
  );
  // unmuted: a fresh pass gives exactly the all-heads numbers, and the URL drops the key
  await page.keyboard.press('Space');
  await mutedAre(page, [], enc);
  const back = await muted(page);
  assert.deepEqual(back.muted, base.all);
  assert.equal(back.diff.loss, 0);
  assert.doesNotMatch(new URL(page.url()).hash, /multihead\.mute/);

  // every head of the first cross-attention muted: the decoder no longer sees the source
  // (the first layer's: the second cross-attention still reads the source, so the loss rises
  // and accuracy falls, measured 100 % -> 92 %; the last layer's: far more, 100 % -> 58 %)
  await demo.locator('[name=kind]').selectOption('decoder.multihead_attn');
  await demo.locator('[name=layer]').selectOption({ value: '0' });
  await mutedAre(page, [], cross);
  for (let h = 1; h <= 4; h++) await demo.locator(`.head-stats input[name=mute-${h}]`).check();
  await mutedAre(page, [1, 2, 3, 4], cross);
  const first = await muted(page);
  assert.ok(
    first.diff.acc < -0.05,
    `first cross-attention muted: token accuracy ${base.all.acc} -> ${first.muted.acc}`
  );
  assert.ok(first.diff.loss > 0.1, `first cross-attention muted: loss ${base.all.loss} -> ${first.muted.loss}`);
  await demo.locator('[name=layer]').selectOption({ value: '1' });
  await mutedAre(page, [], last);
  assert.equal(
    await demo.locator('.head-stats input:checked').count(),
    0,
    'another sublayer starts with no head muted'
  );
  for (let h = 1; h <= 4; h++) await demo.locator(`.head-stats input[name=mute-${h}]`).check();
  await mutedAre(page, [1, 2, 3, 4], last);
  const blind = await muted(page);
  assert.ok(blind.diff.acc < -0.3, `last cross-attention muted: token accuracy ${base.all.acc} -> ${blind.muted.acc}`);
  assert.ok(blind.diff.loss > 0.5, `last cross-attention muted: loss ${base.all.loss} -> ${blind.muted.loss}`);
  const hash = new URL(page.url()).hash;
  assert.match(hash, /multihead\.mute=1%2C2%2C3%2C4|multihead\.mute=1,2,3,4/);
  assert.match(hash, /multihead\.kind=decoder\.multihead_attn/);
  await demo.locator('.heads-view').screenshot({ path: path.join(shots, 'multihead-muted.png') });

  // a reload restores the muted heads and gives the same numbers
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=multihead][data-ready="1"]', { timeout: 30000 });
  await mutedAre(page, [1, 2, 3, 4], last);
  const again = await muted(page);
  assert.deepEqual(again.muted, blind.muted);
  for (let h = 1; h <= 4; h++) assert.equal(await demo.locator(`.head-stats input[name=mute-${h}]`).isChecked(), true);
  assert.equal(await demo.locator('[name=kind]').inputValue(), 'decoder.multihead_attn');
  assert.equal(await demo.locator('[name=layer]').inputValue(), '1');

  // Korean, dark, phone width
  await page.setViewportSize({ width: 375, height: 800 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  await mutedAre(page, [1, 2, 3, 4], last);
  await page.waitForFunction(
    () =>
      document.querySelector('[data-demo=multihead] .head-stats input[name=mute-1]')?.getAttribute('aria-label') ===
      '헤드 1 끄기',
    null,
    { timeout: 10000 }
  );
  await page.waitForFunction(() =>
    /^끈 헤드: 1, 2, 3, 4\./.test(document.querySelector('[data-demo=multihead] [name=mutecmp]').textContent)
  );
  const over = await demo.evaluate((d) => d.scrollWidth - d.clientWidth);
  assert.ok(over <= 0, `the demo overflows by ${over} px`);
  assert.deepEqual(await axeDemo(page, 'multihead'), []);
  await demo.locator('.heads-view').screenshot({ path: path.join(shots, 'multihead-muted-phone-ko-dark.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('playground: a Transformer trained in the page gets the step-through of its first encoder self-attention', async (t) => {
  const page = await browser.newPage();
  if (
    !(await openDemo(
      page,
      'playground',
      '?lang=en#playground.model=transformer&playground.task=reverse&playground.width=32&playground.heads=2&playground.steps=50'
    ))
  ) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  assert.equal(await demo.locator('.pg-steps').isHidden(), true, 'no step-through before training');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').step, null, { timeout: 20000 });
  await demo.locator('[name=st-head]').selectOption({ value: '1' });
  await demo.locator('[name=st-token]').selectOption({ value: '2' });
  await page.waitForFunction(() =>
    /head 2, /.test(document.querySelector('[data-demo=playground] .st-title').textContent)
  );
  const st = demo.locator('.stepthrough');
  await st.locator('.st-next').focus();
  await page.keyboard.press('Enter');
  const r = await page.evaluate(async () => {
    const el = document.querySelector('[data-demo=playground]');
    const s = el.step;
    const e = await el
      .querySelector('.stepthrough')
      .attention(new Float32Array(s.q), new Float32Array(s.K), new Float32Array(s.V), {
        T: 1,
        S: s.S,
        Dk: s.hs,
        Dv: s.hs,
      });
    return { s, weights: [...e.weights], out: [...e.out] };
  });
  assert.equal(r.s.hs, 16, 'd_k = 32/2');
  assert.equal(r.s.j, 1);
  assert.equal(
    await st
      .locator('table')
      .nth(1)
      .locator('tbody tr')
      .evaluateAll((rows) => rows.findIndex((x) => x.classList.contains('st-cur'))),
    1
  );
  close(r.weights, r.s.weights, 1e-4, 'engine attention() weights');
  close(r.out, r.s.out, 1e-4, 'engine attention() output');
  assert.deepEqual(page.errors, []);
  await page.close();
});
