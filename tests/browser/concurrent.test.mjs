// Two demos train at the same time on one page, as a reader who starts §4 and then the
// playground would: both reach "done", both curves grow while the other trains, and pausing
// one leaves the other's controls working (no "already training" error, nothing sticks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

const stepOf = (page, name) =>
  page.evaluate((n) => Number(document.querySelector(`[data-demo=${n}] .run progress`).value), name);

test('§4 and the playground train side by side', async (t) => {
  const page = await browser.newPage();
  await page.goto(
    `${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=400&playground.model=rnnsearch&playground.task=reverse&playground.size=small&playground.steps=300`
  );
  await page.waitForSelector('body[data-ready="1"]');
  for (const name of ['bahdanau', 'playground']) {
    await page.locator(`[data-demo=${name}]`).scrollIntoViewIfNeeded();
    await page.waitForSelector(`[data-demo=${name}][data-ready="1"]`, { timeout: 30000 });
  }
  if ((await page.locator('[data-demo=bahdanau]').getAttribute('data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const b = page.locator('[data-demo=bahdanau]'),
    p = page.locator('[data-demo=playground]');
  await b.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=training]', { timeout: 20000 });
  await p.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=training]', { timeout: 20000 });
  // both make progress while the other is training
  const b0 = await stepOf(page, 'bahdanau'),
    p0 = await stepOf(page, 'playground');
  await page.waitForFunction(
    ([nb, np]) => {
      const step = (n) => Number(document.querySelector(`[data-demo=${n}] .run progress`).value);
      return step('bahdanau') > nb && step('playground') > np;
    },
    [b0, p0],
    { timeout: 30000 }
  );
  // pausing §4 keeps the playground going to the end
  await b.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=paused]', { timeout: 10000 });
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 90000 });
  // and §4 resumes and finishes
  await b.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=done]', { timeout: 90000 });
  const text = await page.locator('body').textContent();
  assert.doesNotMatch(text, /already training/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
