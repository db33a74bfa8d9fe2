// A browser whose language is not a BCP 47 tag (WebKit under the system locale C reports
// navigator.language 'C'; every Intl constructor throws a RangeError on it): the guide's charts
// load, §4 mounts and trains, in English number formats, with no "invalid language tag" error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';

const { server, browser } = usePage();

test("navigator.language 'C': §4 mounts with its chart and trains", async () => {
  const page = await browser.newPage();
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'language', { get: () => 'C', configurable: true });
    Object.defineProperty(Navigator.prototype, 'languages', { get: () => ['C'], configurable: true });
  });
  await page.goto(`${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=100`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const demo = page.locator('[data-demo=bahdanau]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=bahdanau][data-ready="1"]', { timeout: 60000 });
  assert.doesNotMatch(await demo.textContent(), /error|invalid language tag/i);
  assert.ok((await demo.locator('canvas').count()) > 0, 'the loss chart is drawn');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=done]', { timeout: 120000 });
  assert.equal(await page.evaluate(() => navigator.language), 'en');
  assert.deepEqual(
    page.errors.filter((e) => !/Failed to load resource/.test(e)),
    []
  );
  await page.close();
});
