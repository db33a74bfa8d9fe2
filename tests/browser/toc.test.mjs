// Table-of-contents jumps on a first visit: demos mount while the page scrolls and push the
// sections below them down; the link must still land on its section (top within 40 px of where
// the page's scroll padding puts it, once the page is still), at desktop and phone width.
// Section numbers come from the order of web/sections.js (ToC, headings, cross-references in the
// prose), and the old positional anchors (#s04) still land on their sections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';
import { SECTIONS, LEGACY_IDS } from '../../web/sections.js';

// Waits until section `id` has not moved for a second (or 20 s), returns its top and the page's
// scroll padding.
async function settledTop(page, id) {
  let last = null;
  for (let i = 0; i < 40; i++) {
    await page.waitForTimeout(500);
    const top = await page.evaluate((s) => Math.round(document.getElementById(s).getBoundingClientRect().top), id);
    if (top === last) break;
    last = top;
  }
  return page.evaluate(
    (s) => [
      document.getElementById(s).getBoundingClientRect().top,
      parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0,
    ],
    id
  );
}

const { server, browser } = usePage();

for (const [width, height] of [
  [1280, 900],
  [375, 800],
]) {
  test(`a table-of-contents link lands on its section on a first visit (${width} px)`, async () => {
    const page = await browser.newPage({ width, height });
    await page.goto(`${server.url}?lang=en`);
    await page.waitForSelector('body[data-ready="1"]');
    for (const id of ['relatives', 'bahdanau']) {
      await page.click(`#toc a[data-section=${id}]`);
      // still: the section's position unchanged over a second, after the anchoring has ended;
      // the page keeps a margin for its sticky header (scroll-padding-top)
      const [top, margin] = await settledTop(page, id);
      assert.ok(
        Math.abs(top - margin) <= 40,
        `§ ${id} is ${Math.round(top)} px from the top after the jump (scroll padding ${margin} px)`
      );
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('section numbers follow web/sections.js: table of contents, headings and cross-references', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#mixing.s0=2`);
  await page.waitForSelector('body[data-ready="1"]');
  const numbered = SECTIONS.filter((s) => !s.unnumbered);
  assert.deepEqual(
    await page.$$eval('#toc a', (as) => as.map((a) => a.dataset.section)),
    SECTIONS.map((s) => s.id)
  );
  for (const [i, s] of numbered.entries()) {
    assert.match(
      await page.textContent(`#toc a[data-section=${s.id}]`),
      new RegExp(`^§${i + 1} \\S`),
      `ToC entry of ${s.id}`
    );
    assert.equal(await page.textContent(`#${s.id} h2 .num`), `§${i + 1}`, `heading of ${s.id}`);
    assert.equal(await page.locator(`#${s.id} h2 .num`).count(), 1);
  }
  for (const s of SECTIONS.filter((x) => x.unnumbered)) assert.doesNotMatch(await page.textContent(`#${s.id} h2`), /§/);
  // every cross-reference shows the number of the section it names
  const refs = await page.$$eval('#sections a.ref', (as) =>
    as.map((a) => [a.getAttribute('href').slice(1), a.textContent])
  );
  assert.ok(refs.length >= 20, `${refs.length} cross-references`);
  for (const [key, label] of refs)
    assert.equal(label, `§${numbered.findIndex((s) => s.id === key) + 1}`, `reference to ${key}`);
  // a click on one scrolls to its section and leaves the demos' settings in the hash alone
  const ref = page.locator('#decoder a.ref[href="#bahdanau"]').first();
  await ref.scrollIntoViewIfNeeded();
  await ref.click();
  const [top, margin] = await settledTop(page, 'bahdanau');
  assert.ok(Math.abs(top - margin) <= 40, `the reference landed ${Math.round(top)} px from the top`);
  // (the hash now also names the section landed on, first)
  await page.waitForFunction(() => location.hash === '#bahdanau&mixing.s0=2', null, { timeout: 5000 });
  assert.match(page.url(), /#bahdanau&mixing\.s0=2$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an old positional anchor (#s10) lands on its section, and the URL gets its key', async () => {
  assert.equal(LEGACY_IDS.s04, 'bahdanau');
  assert.equal(LEGACY_IDS.s10, 'relatives');
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#s10&mixing.s0=2`);
  await page.waitForSelector('body[data-ready="1"]');
  assert.match(page.url(), /\?lang=en#relatives&mixing\.s0=2$/);
  const [top, margin] = await settledTop(page, 'relatives');
  assert.ok(Math.abs(top - margin) <= 40, `#s10 put its section ${Math.round(top)} px from the top`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
