// The guide at phone width (375 px), Korean: with every demo mounted and the translator open,
// every visible interactive target is 24 × 24 CSS px or more (WCAG 2.2 target size; links
// inside sentences are exempt), and no visible text is set under 14 px (formulas' sub- and
// superscripts aside). Prints every offender.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';
import { mountAll, smallThings } from './sweep.mjs';

const { server, browser } = usePage();

test('375 px, Korean: targets of 24 × 24 px or more and print of 14 px or more, translator open', async () => {
  const page = await browser.newPage({ width: 375, height: 800 });
  await page.goto(server.url);
  await mountAll(page);
  const open = page.locator('[data-demo=translate] button[name=open]');
  if (await open.count()) {
    await open.click();
    await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation, null, {
      timeout: 120000,
    });
  }
  const { targets, print } = await smallThings(page);
  assert.deepEqual(targets, [], `targets under 24 × 24 px:\n${targets.join('\n')}`);
  assert.deepEqual(print, [], `text under 14 px:\n${print.join('\n')}`);
  // the main controls are 44 px tall
  const low = await page.$$eval('[data-demo] select, [data-demo] .run button, [data-demo] input[type=range]', (els) =>
    els
      .filter((e) => e.checkVisibility() && e.getBoundingClientRect().height < 43.99)
      .map((e) => `${e.closest('[data-demo]').dataset.demo} ${e.tagName} ${e.getBoundingClientRect().height}`)
  );
  assert.deepEqual(low, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});
