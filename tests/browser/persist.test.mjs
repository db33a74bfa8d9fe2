// What a reader trained survives a reload: the playground after a finished run and §4 in the
// middle of one come back with their step and weights from IndexedDB, can be resumed, and
// Reset starts over (the stored model is forgotten).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

async function show(page, name) {
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator(`[data-demo=${name}]`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`[data-demo=${name}][data-ready="1"]`, { timeout: 30000 });
  return await page.locator(`[data-demo=${name}]`).getAttribute('data-pending') !== '1';
}
const stepOf = (page, name) => page.evaluate((n) => Number(document.querySelector(`[data-demo=${n}] .run progress`).value), name);

test('a finished playground model is restored after a reload; Reset forgets it', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#playground.model=rnnsearch&playground.task=reverse&playground.size=small&playground.steps=60`);
  if (!(await show(page, 'playground'))) { await page.close(); return unavailable(t, 'engine build without model sessions'); }
  const demo = page.locator('[data-demo=playground]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  const map = await page.evaluate(() => Array.from(document.querySelector('[data-demo=playground]').map?.weights ?? []));
  await page.reload();
  await show(page, 'playground');
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 30000 });
  assert.equal(await stepOf(page, 'playground'), 60);
  assert.match(await demo.locator('.run-status').textContent(), /step 60 \/ 60.*restored/);
  assert.equal(await demo.locator('[name=export]').isDisabled(), false, 'the restored model can be exported');
  const again = await page.evaluate(() => Array.from(document.querySelector('[data-demo=playground]').map?.weights ?? []));
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
  if (!(await show(page, 'bahdanau'))) { await page.close(); return unavailable(t, 'engine build without model sessions'); }
  const demo = page.locator('[data-demo=bahdanau]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction(() => Number(document.querySelector('[data-demo=bahdanau] .run progress').value) > 0, null, { timeout: 30000 });
  await page.waitForTimeout(4500);  // past the first save (every 3 s while training)
  const before = await stepOf(page, 'bahdanau');
  await page.reload();
  await show(page, 'bahdanau');
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=restored]', { timeout: 30000 });
  const restored = await stepOf(page, 'bahdanau');
  assert.ok(restored >= 1 && restored <= before, `restored at step ${restored}, was at ${before} when reloaded`);
  assert.match(await demo.locator('[name=run-toggle]').textContent(), /Resume/);
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction((s) => Number(document.querySelector('[data-demo=bahdanau] .run progress').value) > s, restored, { timeout: 30000 });
  await demo.locator('[name=run-reset]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=idle]');
  assert.deepEqual(page.errors, []);
  await page.close();
});
