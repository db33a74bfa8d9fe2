// The course-page example from dist/ served as plain static files (no COOP/COEP): four
// <attnlab-demo> widgets mount with their attribute settings and each in its own language,
// start() runs one, progress events carry {step, loss}, and nothing is fetched from outside the
// server (the engine's Worker is a Blob of the page's own origin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { shots, usePage } from './harness.mjs';

const { server, browser } = usePage();

test('embed example: four widgets from one script, settings from attributes, start() and progress', async () => {
  const page = await browser.newPage({ width: 900, height: 900 });
  const outside = [];
  const own = new URL(server.url).origin;
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith(`blob:${own}/`)) outside.push(u);
  });
  await page.goto(`${server.url}examples/embed/index.html`);
  await page.waitForFunction(
    () => [...document.querySelectorAll('attnlab-demo')].every((w) => w.dataset.ready === '1'),
    null,
    { timeout: 20000 }
  );
  assert.equal(await page.locator('attnlab-demo').count(), 4);
  // language per widget: the page is English, one widget Korean
  assert.deepEqual(
    await page.evaluate(() => [...document.querySelectorAll('attnlab-demo')].map((w) => w.dataset.lang)),
    ['en', 'en', 'ko', 'en']
  );
  assert.match(await page.textContent('#w-pos'), /[가-힣]/);
  assert.doesNotMatch(await page.textContent('#w-sdpa'), /[가-힣]/);
  const pe = await page.evaluate(() => {
    const { L, C, values } = document.getElementById('w-pos').pe;
    return { L, C, n: values.length };
  });
  assert.deepEqual(pe, { L: 60, C: 32, n: 60 * 32 }, 'L and C come from the attributes');
  const sdpa = await page.evaluate(() => document.getElementById('w-sdpa').inputs);
  assert.equal(sdpa.dk, 256);
  assert.equal(sdpa.n, 12);
  assert.equal(new URL(page.url()).hash, '', 'widgets leave the host page URL alone');
  assert.match(await page.textContent('#w-sdpa'), /divide by √d_k/);
  if ((await page.getAttribute('#w-align', 'data-pending')) !== '1') {
    const trained = page.evaluate(
      () =>
        new Promise((resolve) => {
          const got = [];
          document.getElementById('w-align').addEventListener('progress', (e) => {
            got.push(e.detail);
            if (got.length === 3) resolve(got);
          });
        })
    );
    await page.click('#train');
    const got = await trained;
    assert.ok(
      got.every((d) => Number.isFinite(d.loss) && d.step > 0),
      JSON.stringify(got)
    );
    await page.click('#pause');
    await page.waitForSelector('#w-align .run[data-state=paused]');
    assert.match(await page.textContent('#align-log'), /step \d+, loss \d/);
  }
  const events = page.evaluate(
    () =>
      new Promise((resolve) => {
        const got = [];
        document.getElementById('w-cost').addEventListener('progress', (e) => {
          got.push(e.detail);
          if (e.detail.done) resolve(got);
        });
      })
  );
  await page.click('#time-it');
  const got = await events;
  assert.deepEqual(
    got.map((d) => d.step),
    [1, 2, 3, 4, 5]
  );
  assert.ok(got.every((d) => 'loss' in d));
  assert.match(await page.textContent('#log'), /step 5/);
  await page.screenshot({ path: path.join(shots, 'embed-example.png'), fullPage: true });
  assert.deepEqual(outside, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});
