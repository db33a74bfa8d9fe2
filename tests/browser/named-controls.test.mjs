// Every control named and every word in the page's language, in every state that builds new UI:
// the page with all demos mounted, the translator opened, a model trained (§2's race, the
// playground), a trained model restored after a reload, and two language switches. After each,
// fails on any visible control, option or heading with no text or accessible name, and on text
// in the other language (Hangul on the English page; Latin words beyond sweep.mjs's list of
// names and terms on the Korean page). Prints every offender.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage, waitKept } from './harness.mjs';
import { mountAll, checkPage } from './sweep.mjs';

const { server, browser } = usePage();

async function check(page, state) {
  const lang = await page.evaluate(() => document.documentElement.lang);
  const { unnamed, other } = await checkPage(page);
  assert.deepEqual(unnamed, [], `${state} (${lang}): controls without a name:\n${unnamed.join('\n')}`);
  assert.deepEqual(other, [], `${state} (${lang}): text in the other language:\n${other.join('\n')}`);
}

async function switchLang(page) {
  const to = (await page.evaluate(() => document.documentElement.lang)) === 'ko' ? 'en' : 'ko';
  await page.click('#lang-toggle');
  await page.waitForSelector(`body[data-lang=${to}]`, { timeout: 30000 });
}

const HASH =
  'bottleneck.steps=50&playground.model=rnnsearch&playground.task=reverse&playground.size=small&playground.steps=50';

for (const lang of ['ko', 'en']) {
  test(`${lang}: named controls and one language, through open, train, restore and two switches`, async () => {
    const page = await browser.newPage({ width: 1280, height: 900 });
    await page.goto(`${server.url}${lang === 'en' ? '?lang=en' : ''}#${HASH}`);
    await mountAll(page);
    await check(page, 'mounted');
    const open = page.locator('[data-demo=translate] button[name=open]');
    if (await open.count()) {
      await open.click();
      await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation, null, {
        timeout: 120000,
      });
      await check(page, 'translator open');
    }
    const trained = [];
    for (const name of ['bottleneck', 'playground']) {
      const demo = page.locator(`[data-demo=${name}]`);
      if ((await demo.getAttribute('data-pending')) === '1') continue;
      await demo.scrollIntoViewIfNeeded();
      // a model this browser trained before (the other language's run) may be restored as done
      const done = `[data-demo=${name}] .run[data-state=done]`;
      const restored = await page.waitForSelector(done, { timeout: 3000 }).then(
        () => true,
        () => false
      );
      if (!restored) await demo.locator('[name=run-toggle]').first().click();
      await page.waitForSelector(done, { timeout: 180000 });
      trained.push(name);
    }
    if (trained.length) await check(page, `trained ${trained.join(', ')}`);
    if (trained.includes('playground')) {
      // the finished run is in IndexedDB before the reload (a busy machine stores it late)
      await waitKept(page, 'playground');
      await page.reload();
      await mountAll(page);
      await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 30000 });
      await check(page, 'playground restored');
    }
    await switchLang(page);
    await check(page, 'one switch');
    await switchLang(page);
    await check(page, 'two switches');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
