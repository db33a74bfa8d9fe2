// The whole guide in headless Chromium: every section and every demo renders in both
// languages without console errors; the language toggle leaves no Korean text in English mode
// (and back); hash state round-trips; screenshots at desktop and phone widths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { shots, usePage } from './harness.mjs';
import { SECTIONS } from '../../web/sections.js';

const SECTION_IDS = SECTIONS.map((s) => s.id);
const HANGUL = /[\uac00-\ud7a3]/;

const { server, browser } = usePage();

// Scrolls every demo into view (they mount lazily) and waits until all are mounted.
export async function mountAll(page) {
  await page.waitForSelector('body[data-ready="1"]');
  const names = await page.$$eval('[data-demo]', (els) => els.map((e) => e.dataset.demo));
  for (const name of names) {
    await page.locator(`[data-demo="${name}"]`).scrollIntoViewIfNeeded();
    await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 15000 });
  }
  return names;
}

const visibleText = (page) =>
  page.evaluate(() => {
    const skip = new Set([document.getElementById('lang-toggle')]);
    const parts = [];
    const walk = (n) => {
      if (skip.has(n)) return;
      if (n.nodeType === Node.TEXT_NODE) {
        if (n.parentElement?.closest('pre, code, .katex')) return;
        parts.push(n.textContent);
        return;
      }
      if (n.nodeType !== Node.ELEMENT_NODE) return;
      const st = getComputedStyle(n);
      if (st.display === 'none' || st.visibility === 'hidden') return;
      for (const c of n.childNodes) walk(c);
    };
    walk(document.body);
    return parts.join(' ');
  });

for (const lang of ['ko', 'en']) {
  test(`every section and demo renders in ${lang} without console errors`, async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}${lang === 'en' ? '?lang=en' : ''}`);
    const names = await mountAll(page);
    for (const id of SECTION_IDS) {
      const h2 = await page.textContent(`#${id} h2`);
      assert.ok(h2 && h2.trim().length > 2, `section ${id} has a title`);
    }
    for (const d of [
      'lm',
      'bottleneck',
      'reverse',
      'bahdanau',
      'sdpa',
      'mixing',
      'self-attention',
      'decoder',
      'translate',
      'multihead',
      'positional',
      'pointer',
      'ntm',
      'order',
      'cost',
      'code',
      'playground',
    ])
      assert.ok(names.includes(d), `demo ${d} is placed`);
    const text = await visibleText(page);
    if (lang === 'en') assert.doesNotMatch(text, HANGUL, 'English page shows Korean text');
    else assert.match(text, HANGUL);
    await page.screenshot({ path: path.join(shots, `page-desktop-${lang}.png`), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('the language toggle switches all visible text without a reload, keeping demo state', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}#mixing.s0=2`);
  await mountAll(page);
  const before = await page.evaluate(() => document.querySelector('[data-demo=mixing]').result.weights);
  await page.evaluate(() => {
    window.__sameDocument = true;
  });
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.body.dataset.lang === 'en');
  let text = await visibleText(page);
  const hangul = text.match(new RegExp(`.{0,30}${HANGUL.source}.{0,30}`))?.[0];
  assert.equal(hangul, undefined, `Korean left after switching to English: ${hangul}`);
  assert.match(page.url(), /lang=en/);
  assert.equal(await page.evaluate(() => window.__sameDocument), true, 'no reload');
  const after = await page.evaluate(() => document.querySelector('[data-demo=mixing]').result.weights);
  assert.deepEqual(after, before);
  assert.match(await page.textContent('[data-demo=mixing]'), /softmax weights/);
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.body.dataset.lang === 'ko');
  text = await visibleText(page);
  assert.match(text, HANGUL);
  assert.doesNotMatch(page.url(), /lang=en/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('phone width: no horizontal overflow, every demo fits; dark theme', async () => {
  const page = await browser.newPage({ width: 375, height: 800 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${server.url}`);
  await mountAll(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page overflows the phone width by ${overflow}px`);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(22, 22, 26)');
  await page.screenshot({ path: path.join(shots, 'page-phone-ko-dark.png'), fullPage: true });
  assert.deepEqual(page.errors, []);
  await page.close();
});
