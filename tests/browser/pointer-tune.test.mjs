// §10 from the pre-trained network: Start is a short fine-tune whose figures the howto states
// from the demo's own settings (TUNE, LIVE), it reports progress after every chunk, the squares
// follow it (a random point set gets the network's answer while it trains), and it finishes.
// The wall time is reported (as a diagnostic, not asserted: the machine may be loaded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unavailable } from '../unavailable.mjs';
import { usePage } from './harness.mjs';
import { TUNE, LIVE } from '../../web/demos/pointer/index.js';

const { server, browser } = usePage();

test('§10: Start on the pre-trained network fine-tunes in chunks, answering as it goes', async (t) => {
  const index = await (await fetch(`${server.url}models/index.json`)).json().catch(() => ({}));
  if (!index['pointer-hull']) return unavailable(t, 'this build ships no pointer-hull checkpoint');
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en`);
  await page.waitForSelector('body[data-ready="1"]');
  const demo = page.locator('[data-demo=pointer]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=pointer][data-ready="1"]', { timeout: 30000 });
  if ((await demo.getAttribute('data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  assert.equal(await demo.evaluate((el) => el.start), 'shipped');
  const howto = await demo.locator('.pointer-howto').textContent();
  const o = LIVE.task_options;
  assert.ok(
    howto.includes(`${TUNE.steps} more steps of ${TUNE.train.batch} point sets with ${o.n_min}–${o.n_max} points`),
    howto
  );
  // every chunk's progress event, with the time it came
  await page.evaluate(() => {
    const el = document.querySelector('[data-demo=pointer]');
    el.seen = [];
    el.addEventListener('progress', (e) =>
      el.seen.push({ step: e.detail.step, at: performance.now(), answered: Boolean(el.answer) })
    );
  });
  const t0 = Date.now();
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=pointer] .run[data-state=done]', { timeout: 300000 });
  const seconds = (Date.now() - t0) / 1000;
  const seen = await demo.evaluate((el) => el.seen);
  const chunks = Math.ceil(TUNE.steps / 25);
  assert.deepEqual(
    seen.map((p) => p.step),
    Array.from({ length: chunks }, (_, i) => Math.min(TUNE.steps, 25 * (i + 1)))
  );
  assert.ok(
    seen.every((p) => p.answered),
    'the square shows the network’s answer after every chunk'
  );
  assert.equal(await demo.evaluate((el) => el.points.length), 8, 'a random point set was placed');
  assert.ok(
    await demo.evaluate((el) => Number.isFinite(el.heldOut?.sequenceAccuracy)),
    'the held-out score comes at the end'
  );
  assert.match(await demo.locator('.pointer-metrics').textContent(), /held-out point sets/);
  assert.match(await demo.locator('.run-status').textContent(), new RegExp(`${TUNE.steps} / ${TUNE.steps}`));
  // the time a chunk took here is shown (what the reader can expect), not a promise; once the run
  // is done, without a time to go
  assert.match(await demo.locator('.pointer-pace').textContent(), /^On this machine 25 steps took [\d.]+ s\.$/);
  t.diagnostic(`fine-tune of ${TUNE.steps} steps: ${seconds.toFixed(1)} s wall, ${chunks} progress events`);
  console.log(`pointer fine-tune: ${seconds.toFixed(1)} s for ${TUNE.steps} steps`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
