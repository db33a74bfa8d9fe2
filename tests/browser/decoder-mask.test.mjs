// §7 causal-mask toggle on the shipped Transformer: the decoder's self-attention drawn from the
// engine has exact zeros above the diagonal with the mask; toggling it off (by keyboard) gives
// a matrix with weight above the diagonal and rows that still sum to 1, with the readout and
// the URL hash following; toggling back gives exact zeros again; a link with the mask off
// opens in that state. Skipped only when the engine build has no model sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { shots, usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

async function openDecoder(hash = '') {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=decoder]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=decoder][data-ready="1"]', { timeout: 30000 });
  page.pending = (await page.locator('[data-demo=decoder]').getAttribute('data-pending')) === '1';
  return page;
}

const decoded = (page) => page.evaluate(() => document.querySelector('[data-demo=decoder]').decoded);
const waitMask = (page, on) =>
  page.waitForFunction((m) => document.querySelector('[data-demo=decoder]').decoded?.mask === m, on, {
    timeout: 20000,
  });

// The weights strictly above the diagonal and the largest |row sum - 1| of a T x T matrix.
function upper(d) {
  const above = [];
  let worst = 0;
  for (let i = 0; i < d.T; i++) {
    let sum = 0;
    for (let j = 0; j < d.T; j++) {
      sum += d.self[i * d.T + j];
      if (j > i) above.push(d.self[i * d.T + j]);
    }
    worst = Math.max(worst, Math.abs(sum - 1));
  }
  return { above, worst };
}

test('§7: the causal-mask toggle redraws the decoder self-attention from the engine', async (t) => {
  const page = await openDecoder();
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions or checkpoint');
  }
  const demo = page.locator('[data-demo=decoder]');
  const box = demo.locator('input[name=mask]');
  assert.equal(await box.isChecked(), true);
  let d = await decoded(page);
  assert.ok(d.T > 1, `a decoded output of ${d.T} positions`);
  let u = upper(d);
  assert.ok(
    u.above.every((w) => w === 0),
    'with the mask, every weight above the diagonal is 0'
  );
  assert.equal(d.above, 0);
  assert.match(await demo.locator('[name=leak]').textContent(), /later positions: 0\.0%/);

  await box.focus();
  await page.keyboard.press('Space');
  await waitMask(page, false);
  d = await decoded(page);
  u = upper(d);
  assert.ok(
    u.above.some((w) => w > 0),
    'without the mask, weight appears above the diagonal'
  );
  assert.ok(d.above > 0);
  assert.ok(u.worst < 1e-3, `rows sum to 1 (worst ${u.worst})`);
  assert.match(page.url(), /decoder\.mask=0/);
  assert.match(await demo.locator('[name=self-title]').textContent(), /lifted/);
  assert.match(await demo.locator('[name=leak]').textContent(), new RegExp(`${(100 * d.above).toFixed(1)}%`));
  await demo.screenshot({ path: path.join(shots, 'decoder-unmasked.png') });

  await page.keyboard.press('Space');
  await waitMask(page, true);
  d = await decoded(page);
  assert.ok(
    upper(d).above.every((w) => w === 0),
    'back with the mask: exact zeros again'
  );
  assert.doesNotMatch(page.url(), /decoder\.mask=/, 'the mask is on by default: nothing in the link');
  assert.deepEqual(page.errors, []);
  await page.close();

  const linked = await openDecoder('decoder.mask=0');
  assert.equal(await linked.locator('[data-demo=decoder] input[name=mask]').isChecked(), false);
  await waitMask(linked, false);
  assert.ok(upper(await decoded(linked)).above.some((w) => w > 0));
  assert.deepEqual(linked.errors, []);
  await linked.close();
});
