// "Predict, then run" (web/demos/common/predict.js) in five sections: §3 reversal, §4 Bahdanau,
// §8 multi-head, §10 order and §11 cost. At phone width (375 px), for each demo: an answer is
// chosen by keyboard (Space, then the arrow keys) and lands in the share link; Start locks it;
// the run's end reveals an answer, and that answer is the one the demo's own readouts support,
// recomputed here from the figures they show (the losses, the timings' growth, the attention on
// the alignment's links); the verdict line agrees with the reader's choice; nothing overflows
// the 375 px page and axe finds no serious violation. Short runs (the hash sets their
// steps), so that each ends in seconds; the bounds are hang bounds. Then ?lang=ko: the question
// and the revealed answer are in Korean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDemo, axeDemo, usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

const num = (text, re, what) => {
  const m = text.match(re);
  assert.ok(m, `${what}: no match for ${re} in "${text}"`);
  return m.slice(1).map(Number);
};
// the index of the smallest of figures, the first of equals
const argmin = (xs) => xs.reduce((b, x, i) => (x < xs[b] ? i : b), 0);

// Each demo: the link's settings, the answer to pick (its position among the radios), and the
// answer its readouts support, read back from the page once the reveal is shown.
const CASES = [
  {
    name: 'cost',
    hash: 'cost.max=256',
    pick: 1, // quadratic
    async expected(page, demo) {
      const text = await demo.locator('[name=summary]').textContent();
      const [n1, n2, ratio] = num(text, /From n = (\d+) to n = (\d+) the time grew ([\d.]+)×/, 'cost summary');
      const p = Math.log(ratio) / Math.log(n2 / n1);
      const timings = await page.evaluate(() => document.querySelector('[data-demo=cost]').timings);
      assert.equal(timings.length, 3);
      assert.deepEqual([n1, n2], [64, 256]);
      return {
        answer: ['linear', 'quadratic', 'cubic'][Math.min(3, Math.max(1, Math.round(p))) - 1],
        figure: p.toFixed(2),
      };
    },
  },
  {
    name: 'reverse',
    hash: 'reverse.steps=50',
    pick: 1, // reversed
    async expected(page, demo) {
      const text = await demo.locator('[name=summary]').textContent();
      const [plain, reversed] = num(text, /training: ([\d.]+) in order, ([\d.]+) reversed/, 'reverse summary');
      return { answer: reversed < plain ? 'reversed' : 'plain', figure: reversed.toFixed(3) };
    },
  },
  {
    name: 'order',
    hash: 'order.steps=20',
    pick: 0, // written as drawn
    async expected(page, demo) {
      const text = await demo.locator('.run-status').textContent();
      const shown = ['written as drawn', 'written reversed', 'written ascending'].map(
        (label) => text.match(new RegExp(`${label} ([\\d.]+)`))?.[1]
      );
      assert.ok(shown.every(Boolean), `three losses in "${text}"`);
      assert.match(text, /step 20 \/ 20/);
      const best = argmin(shown.map(Number));
      return { answer: ['drawn', 'reversed', 'ascending'][best], figure: shown[best] };
    },
  },
  {
    name: 'multihead',
    hash: 'multihead.steps=50',
    pick: 2, // h = 16
    timeout: 240000,
    async expected(page, demo) {
      const rows = await demo.locator('.mh-results .bar-row').allTextContents();
      assert.equal(rows.length, 4, `four models: ${rows.join(' | ')}`);
      const res = rows.map((r) => num(r, /h = (\d+).*?loss ([\d.]+)/, 'ablation bar'));
      const best = res[argmin(res.map((r) => r[1]))];
      return { answer: String(best[0]), figure: best[1].toFixed(3) };
    },
  },
  {
    name: 'bahdanau',
    hash: 'bahdanau.task=reverse&bahdanau.steps=100',
    pick: 1, // crossed
    async expected(page, demo) {
      const text = await demo.locator('[name=metric]').textContent();
      const [step, crossed, chance] = num(
        text,
        /Step (\d+): mean attention on the gold links ([\d.]+) \(uniform would give ([\d.]+)\)/,
        'bahdanau metric'
      );
      assert.equal(step, 100);
      // the diagonal's mass from the engine's map the heatmap draws (output i reads input i)
      const a = await page.evaluate(() => document.querySelector('[data-demo=bahdanau]').alignment);
      let d = 0;
      for (let i = 0; i < a.L && i < a.T && i < a.S; i++) d += a.weights[i * a.S + i];
      const diagonal = Number((d / a.L).toFixed(3));
      const top = Math.max(crossed, diagonal);
      const answer = top <= 2 * chance ? 'spread' : crossed > diagonal ? 'crossed' : 'diagonal';
      return { answer, figure: diagonal.toFixed(3) };
    },
  },
];

// Picks radio `pick` of the demo's question by keyboard: focus the first, Space checks it, each
// ArrowRight moves the choice on. -> the value chosen.
async function choose(page, demo, pick) {
  const radios = demo.locator('fieldset.predict input[type=radio]');
  assert.ok((await radios.count()) >= 2, 'two answers or more');
  await radios.first().focus();
  await page.keyboard.press('Space');
  for (let i = 0; i < pick; i++) await page.keyboard.press('ArrowRight');
  const value = await radios.nth(pick).getAttribute('value');
  assert.equal(await radios.nth(pick).isChecked(), true, `radio ${pick} checked by keyboard`);
  return value;
}

// Runs the demo to its reveal; -> {answer, guess, text} of the revealed line.
async function runToReveal(page, name, timeout) {
  const demo = page.locator(`[data-demo=${name}]`);
  await demo.locator('.run [name=run-toggle]').first().click();
  await page.waitForFunction((n) => document.querySelector(`[data-demo=${n}] fieldset.predict`).disabled, name, {
    timeout: 10000,
  });
  await page.waitForSelector(`[data-demo=${name}] .predict-reveal:not([hidden])`, { timeout });
  const fs = demo.locator('fieldset.predict');
  return {
    answer: await fs.getAttribute('data-answer'),
    guess: await fs.getAttribute('data-guess'),
    text: await fs.locator('.predict-reveal').textContent(),
  };
}

for (const c of CASES) {
  test(`${c.name}: a prediction by keyboard, revealed by the run's own figures (375 px, axe)`, async (t) => {
    const page = await openDemo(browser, server, c.name, { hash: c.hash, width: 375 });
    if (page.pending) {
      await page.close();
      return unavailable(t, 'engine build without model sessions');
    }
    const demo = page.locator(`[data-demo=${c.name}]`);
    const fs = demo.locator('fieldset.predict');
    assert.match(await fs.locator('legend').textContent(), /^Predict first: \S/);
    const value = await choose(page, demo, c.pick);
    assert.ok(page.url().includes(`${c.name}.guess=${value}`), `the choice is in the link: ${page.url()}`);
    const shown = await runToReveal(page, c.name, c.timeout ?? 120000);
    // locked while revealed (the run is done, not reset)
    assert.equal(await fs.evaluate((f) => f.disabled), true);
    const want = await c.expected(page, demo);
    t.diagnostic(`${c.name}: picked ${value}, revealed ${shown.answer}: ${shown.text}`);
    assert.equal(shown.answer, want.answer, `the readouts support ${want.answer}: ${shown.text}`);
    assert.equal(shown.guess, value);
    const label = (await fs.locator(`input[value="${shown.answer}"]`).locator('xpath=..').textContent()).trim();
    assert.ok(shown.text.includes(`The engine’s numbers say: ${label}.`), shown.text);
    assert.ok(
      shown.text.includes(value === shown.answer ? 'Your prediction was right.' : 'You predicted: '),
      shown.text
    );
    assert.ok(shown.text.includes(want.figure), `the line gives the deciding figure ${want.figure}: ${shown.text}`);
    // 375 px: nothing wider than the page; the question's targets are 24 px or more
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 375, `page ${wide} px wide at 375`);
    const box = await fs.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 375, `question box ${JSON.stringify(box)}`);
    for (const r of await fs.locator('input[type=radio]').all()) {
      const b = await r.boundingBox();
      assert.ok(b.width >= 23.99 && b.height >= 23.99, `radio ${b.width}×${b.height}`);
    }
    assert.deepEqual(await axeDemo(page, c.name), []);
    // Reset unlocks the question and takes the answer away; the choice stays
    await demo.locator('.run [name=run-reset]').first().click();
    await page.waitForFunction((n) => !document.querySelector(`[data-demo=${n}] fieldset.predict`).disabled, c.name, {
      timeout: 10000,
    });
    assert.equal(await fs.locator('.predict-reveal').isHidden(), true);
    assert.equal(await fs.locator(`input[value="${value}"]`).isChecked(), true);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('Korean: the question and the revealed answer are in Korean; no answer, no verdict on it', async (t) => {
  const page = await browser.newPage({ width: 375, height: 900 });
  await page.goto(`${server.url}?lang=ko#cost.max=256`);
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ko');
  await page.locator('[data-demo=cost]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=cost][data-ready="1"]', { timeout: 60000 });
  const demo = page.locator('[data-demo=cost]');
  const fs = demo.locator('fieldset.predict');
  assert.match(await fs.locator('legend').textContent(), /^먼저 예측해 보세요: .*[\uac00-\ud7a3]/);
  assert.match(await fs.locator('.predict-hint').textContent(), /[\uac00-\ud7a3]/);
  // the demo runs without an answer
  const shown = await runToReveal(page, 'cost', 120000);
  assert.equal(shown.guess, '');
  const label = (await fs.locator(`input[value="${shown.answer}"]`).locator('xpath=..').textContent()).trim();
  assert.match(label, /[\uac00-\ud7a3]/);
  assert.ok(shown.text.startsWith(`엔진의 수치가 말하는 답: ${label}.`), shown.text);
  assert.ok(shown.text.includes('이번에는 예측하지 않았습니다.'), shown.text);
  assert.doesNotMatch(shown.text, /[A-Za-z]{3,}/, 'no English words in the Korean line');
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 375, `page ${wide} px wide at 375`);
  assert.deepEqual(await axeDemo(page, 'cost'), []);
  // the other four questions are in Korean too, before any run
  for (const name of ['reverse', 'bahdanau', 'multihead', 'order']) {
    const host = page.locator(`[data-demo=${name}]`);
    await host.scrollIntoViewIfNeeded();
    await page.waitForSelector(`[data-demo=${name}][data-ready="1"]`, { timeout: 60000 });
    if ((await host.getAttribute('data-pending')) === '1') continue;
    assert.match(await host.locator('fieldset.predict legend').textContent(), /^먼저 예측해 보세요: .*[\uac00-\ud7a3]/);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
  t.diagnostic(`Korean reveal: ${shown.text}`);
});

test('a link brings the answer back; an answer the question does not offer is named and left unanswered', async () => {
  let page = await openDemo(browser, server, 'cost', { hash: 'cost.guess=cubic' });
  const checked = (p) =>
    p.$$eval('[data-demo=cost] fieldset.predict input[type=radio]', (rs) =>
      rs.filter((r) => r.checked).map((r) => r.value)
    );
  assert.deepEqual(await checked(page), ['cubic']);
  assert.deepEqual(page.errors, []);
  await page.close();
  page = await openDemo(browser, server, 'cost', { hash: 'cost.guess=maybe' });
  assert.deepEqual(await checked(page), []);
  assert.match(
    await page.locator('[data-demo=cost] .settings-note').textContent(),
    /^The setting guess=maybe is not one of linear, quadratic, cubic: it is left unset\.$/
  );
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a language switch after the reveal re-renders the answer, the verdict and the locked note', async (t) => {
  const page = await openDemo(browser, server, 'order', { hash: 'order.steps=10&order.guess=reversed' });
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const fs = page.locator('[data-demo=order] fieldset.predict');
  const shown = await runToReveal(page, 'order', 120000);
  assert.equal(shown.guess, 'reversed');
  assert.match(await fs.locator('.predict-hint').textContent(), /your answer is locked/);
  await page.click('#lang-toggle');
  await page.waitForSelector('body[data-lang=ko]');
  const text = await fs.locator('.predict-reveal').textContent();
  const label = (await fs.locator(`input[value="${shown.answer}"]`).locator('xpath=..').textContent()).trim();
  assert.ok(text.startsWith(`엔진의 수치가 말하는 답: ${label}.`), text);
  assert.ok(text.includes(shown.answer === 'reversed' ? '예측이 맞았습니다.' : '내 예측: 거꾸로 쓰기.'), text);
  assert.match(text, /마지막 10 스텝의 평균 학습 손실/);
  assert.match(await fs.locator('.predict-hint').textContent(), /답이 고정되었습니다/);
  assert.equal(await fs.getAttribute('data-answer'), shown.answer, 'the answer stays the one revealed');
  assert.deepEqual(page.errors, []);
  await page.close();
});
