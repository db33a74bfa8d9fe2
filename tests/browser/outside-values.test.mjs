// Values from outside the page go through one typed check (web/demos/common/store.js): a share
// link's hash and a widget's attributes. A count that must be whole and is not (steps=150.5,
// sdpa.n=2.5, positional.L=100.5), one outside its range or not a number is replaced, the demo
// still mounts and trains, and a note in the demo names the value and what is used instead; an
// embedded widget's start() rejects with an Error naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';

const { server, browser } = usePage();

async function show(page, name) {
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  await page.locator(`[data-demo=${name}]`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`[data-demo=${name}][data-ready="1"]`, { timeout: 60000 });
  return page.locator(`[data-demo=${name}]`);
}

test('a link with steps=150.5 trains 151 steps and says so', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=150.5`);
  const demo = await show(page, 'bahdanau');
  assert.equal(
    (await demo.locator('.settings-note').textContent()).trim(),
    'The setting steps=150.5 is not a whole number: 151 is used instead.'
  );
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=done]', { timeout: 120000 });
  assert.match(await demo.locator('.run-status').textContent(), /step 151 \/ 151/);
  assert.doesNotMatch(await demo.textContent(), /error/i);
  await page.close();
});

test('sdpa.n=2.5, sdpa.dk=99999 and positional.L=100.5 mount with whole, bounded values', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#sdpa.n=2.5&sdpa.dk=99999&positional.L=100.5&positional.C=abc`);
  const sdpa = await show(page, 'sdpa');
  assert.deepEqual(
    await page.evaluate(() => {
      const { n, dk } = document.querySelector('[data-demo=sdpa]').inputs;
      return { n, dk };
    }),
    { n: 3, dk: 512 }
  );
  const sdpaNote = await sdpa.locator('.settings-note').textContent();
  assert.match(sdpaNote, /n=2\.5 is not a whole number: 3 is used instead/);
  assert.match(sdpaNote, /dk=99999 is outside 1–512: 512 is used instead/);
  const pos = await show(page, 'positional');
  const pe = await page.evaluate(() => {
    const { L, C } = document.querySelector('[data-demo=positional]').pe;
    return { L, C };
  });
  assert.deepEqual(pe, { L: 101, C: 64 });
  const posNote = await pos.locator('.settings-note').textContent();
  assert.match(posNote, /L=100\.5 is not a whole number: 101 is used instead/);
  assert.match(posNote, /C=abc is not a number: 64 is used instead/);
  // the note follows the page's language
  await page.locator('#lang-toggle').click();
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  assert.match(
    await pos.locator('.settings-note').textContent(),
    /설정 L=100\.5: 정수가 아닙니다\. 대신 101 값을 씁니다\./
  );
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a widget with steps="150.5": the box says what it uses, start() rejects naming it, Start trains', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}examples/embed/index.html`);
  await page.waitForFunction(() => customElements.get('attnlab-demo'), null, { timeout: 30000 });
  await page.evaluate(() => {
    document.body.insertAdjacentHTML(
      'afterbegin',
      '<attnlab-demo id="w-bad" lang="en" name="bahdanau" task="reverse" steps="150.5"></attnlab-demo>'
    );
  });
  await page.waitForSelector('#w-bad[data-ready="1"]', { timeout: 60000 });
  assert.match(await page.textContent('#w-bad .settings-note'), /steps=150\.5 is not a whole number: 151 is used/);
  const rejected = await page.evaluate(() =>
    document
      .getElementById('w-bad')
      .start()
      .then(
        () => null,
        (e) => (e instanceof Error ? e.message : `not an Error: ${e}`)
      )
  );
  assert.match(rejected ?? 'resolved', /steps=150\.5 is not a whole number: 151 is used instead/);
  assert.equal(await page.getAttribute('#w-bad .run', 'data-state'), 'idle', 'start() did not train');
  await page.click('#w-bad [name=run-toggle]');
  await page.waitForSelector('#w-bad .run[data-state=done]', { timeout: 120000 });
  assert.match(await page.textContent('#w-bad .run-status'), /step 151 \/ 151/);
  await page.close();
});
