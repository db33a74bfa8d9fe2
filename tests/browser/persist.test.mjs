// What a reader trained survives a reload: the playground after a finished run and §4 in the
// middle of one come back with their step and weights from IndexedDB, can be resumed, and
// Reset starts over (the stored model is forgotten). Restore means the same run: the chart's
// data, the step, the status line, the Start/Resume button and the readouts after a reload
// equal those before it (§4 finished on dates, §4 paused on reverse, the playground finished).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage, waitKept } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

async function show(page, name) {
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator(`[data-demo=${name}]`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`[data-demo=${name}][data-ready="1"]`, { timeout: 30000 });
  return (await page.locator(`[data-demo=${name}]`).getAttribute('data-pending')) !== '1';
}
const stepOf = (page, name) =>
  page.evaluate((n) => Number(document.querySelector(`[data-demo=${n}] .run progress`).value), name);

test('a finished playground model is restored after a reload; Reset forgets it', async (t) => {
  const page = await browser.newPage();
  await page.goto(
    `${server.url}?lang=en#playground.model=rnnsearch&playground.task=reverse&playground.size=small&playground.steps=60`
  );
  if (!(await show(page, 'playground'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  const map = await page.evaluate(() =>
    Array.from(document.querySelector('[data-demo=playground]').map?.weights ?? [])
  );
  await waitKept(page, 'playground');
  await page.reload();
  await show(page, 'playground');
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 30000 });
  assert.equal(await stepOf(page, 'playground'), 60);
  assert.match(await demo.locator('.run-status').textContent(), /step 60 \/ 60/);
  assert.equal(await demo.locator('.run-restored').isVisible(), true, 'the restored note shows');
  assert.equal(await demo.locator('[name=export]').isDisabled(), false, 'the restored model can be exported');
  const again = await page.evaluate(() =>
    Array.from(document.querySelector('[data-demo=playground]').map?.weights ?? [])
  );
  if (map.length) assert.deepEqual(again, map, 'the restored model draws the same attention');
  await demo.locator('[name=run-reset]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=idle]');
  await page.reload();
  await show(page, 'playground');
  await page.waitForTimeout(1500);
  assert.equal(await page.locator('[data-demo=playground] .run').getAttribute('data-state'), 'idle');
  assert.equal(await stepOf(page, 'playground'), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§4 reloaded mid-run comes back at its saved step and resumes', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=4000`);
  if (!(await show(page, 'bahdanau'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=bahdanau]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction(
    () => Number(document.querySelector('[data-demo=bahdanau] .run progress').value) > 0,
    null,
    { timeout: 30000 }
  );
  // past the first save (every 3 s while training)
  await page.waitForFunction(() => Number(document.querySelector('[data-demo=bahdanau] .run').dataset.kept) > 0, null, {
    timeout: 60000,
  });
  const before = await stepOf(page, 'bahdanau');
  await page.reload();
  await show(page, 'bahdanau');
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=restored]', { timeout: 30000 });
  const restored = await stepOf(page, 'bahdanau');
  assert.ok(restored >= 1 && restored <= before, `restored at step ${restored}, was at ${before} when reloaded`);
  assert.match(await demo.locator('[name=run-toggle]').textContent(), /Resume/);
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction(
    (s) => Number(document.querySelector('[data-demo=bahdanau] .run progress').value) > s,
    restored,
    { timeout: 30000 }
  );
  await demo.locator('[name=run-reset]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=idle]');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// What the reader sees of a run: chart data, step, status, button, readouts, run state.
async function seen(page, name, readouts) {
  return page.evaluate(
    ([n, names]) => {
      const el = document.querySelector(`[data-demo=${n}]`);
      const toggle = el.querySelector('[name=run-toggle]');
      return {
        chart: el.querySelector('.chart-host').chartData.data,
        step: Number(el.querySelector('.run progress').value),
        status: el.querySelector('.run-status').textContent,
        button: { text: toggle.textContent, disabled: toggle.disabled },
        readouts: names.map((r) => el.querySelector(`[name=${r}]`).textContent),
      };
    },
    [name, readouts]
  );
}

async function sameAfterReload(page, name, readouts, ready) {
  const before = await seen(page, name, readouts);
  assert.ok(before.chart[0].length >= 2, `${name}: the chart has points before the reload`);
  await page.reload();
  await show(page, name);
  await page.waitForFunction(ready, null, { timeout: 30000 });
  await page
    .waitForFunction(
      ([n, len]) => document.querySelector(`[data-demo=${n}] .chart-host`).chartData.data[0].length === len,
      [name, before.chart[0].length],
      { timeout: 30000 }
    )
    .catch(() => {});
  const after = await seen(page, name, readouts);
  assert.deepEqual(after, before, `${name}: what the reader sees after the reload equals what was there before`);
  assert.equal(await page.locator(`[data-demo=${name}] .run-restored`).isVisible(), true);
  return after;
}

test('restore is the same run: §4 finished on dates, §4 paused on reverse', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#bahdanau.task=dates&bahdanau.steps=100`);
  if (!(await show(page, 'bahdanau'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=bahdanau]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=done]', { timeout: 90000 });
  await page.waitForFunction(
    () => /step 100/i.test(document.querySelector('[data-demo=bahdanau] [name=metric]').textContent),
    null,
    { timeout: 30000 }
  );
  await waitKept(page, 'bahdanau'); // the run's last save (after its final evaluation)
  const done = await sameAfterReload(
    page,
    'bahdanau',
    ['metric', 'example'],
    () => document.querySelector('[data-demo=bahdanau] .run')?.dataset.state === 'done'
  );
  assert.match(done.readouts[0], /step 100: alignment error rate/i);
  assert.equal(done.button.disabled, true);
  assert.match(done.button.text, /Start/);
  await demo.locator('[name=run-reset]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=idle]');

  await page.goto(`${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=4000`);
  await page.reload();
  await show(page, 'bahdanau');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction(
    () => Number(document.querySelector('[data-demo=bahdanau] .run progress').value) > 60,
    null,
    { timeout: 60000 }
  );
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=paused]');
  await waitKept(page, 'bahdanau'); // the save on pause
  const paused = await sameAfterReload(
    page,
    'bahdanau',
    ['metric', 'example'],
    () => document.querySelector('[data-demo=bahdanau] .run')?.dataset.state === 'restored'
  );
  assert.match(paused.button.text, /Resume/);
  // Resume continues the same curve: the earlier points stay, new ones come after the step
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction(
    (s) => Number(document.querySelector('[data-demo=bahdanau] .run progress').value) > s + 20,
    paused.step,
    { timeout: 30000 }
  );
  const curve = await page.evaluate(() => document.querySelector('[data-demo=bahdanau] .chart-host').chartData.data[0]);
  assert.deepEqual(curve.slice(0, paused.chart[0].length), paused.chart[0]);
  assert.ok(curve.at(-1) > paused.step);
  await demo.locator('[name=run-reset]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=idle]');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('restore is the same run: the playground finished', async (t) => {
  const page = await browser.newPage();
  await page.goto(
    `${server.url}?lang=en#playground.model=transformer&playground.task=copy&playground.size=small&playground.steps=100`
  );
  if (!(await show(page, 'playground'))) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 90000 });
  await page.waitForFunction(
    () => /Held-out/.test(document.querySelector('[data-demo=playground] [name=metrics]').textContent),
    null,
    { timeout: 30000 }
  );
  await waitKept(page, 'playground');
  await sameAfterReload(page, 'playground', ['metrics'], () =>
    /Held-out/.test(document.querySelector('[data-demo=playground] [name=metrics]')?.textContent ?? '')
  );
  await demo.locator('[name=run-reset]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=idle]');
  assert.deepEqual(page.errors, []);
  await page.close();
});
