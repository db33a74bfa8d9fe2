// §7 translator, as a reader uses it: the page's first paint fetches no translator model; the
// model loads only when the reader presses "Open the translator"; the first held-out sentence
// then translates in the Worker, greedy and beam side by side, and the beam output is exactly
// the native engine's (tests/fixtures/translate-de-en-parity.jsonl); every layer × head gets a
// cross-attention heatmap whose rows follow the step slider (keyboard); a sentence typed by
// the reader translates on Enter; the beam width and example survive a reload (URL hash); at
// phone width the maps stay inside the screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { shots, root, usePage } from './harness.mjs';
import { wordKey } from '../../web/demos/translate/words.js';

const known = new Set(
  JSON.parse(readFileSync(path.join(root, 'web', 'public', 'models', 'translate-de-en.words.json'), 'utf8')).words
);
const fixture = readFileSync(path.join(root, 'tests', 'fixtures', 'translate-de-en-parity.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

const { server, browser } = usePage();

const translation = (page) => page.evaluate(() => document.querySelector('[data-demo=translate]').translation);

async function openPage(hash = '', viewport = null) {
  const page = await browser.newPage(viewport ?? {});
  page.modelRequests = [];
  page.on('request', (r) => {
    if (/translate-de-en\.safetensors/.test(r.url())) page.modelRequests.push(r.url());
  });
  await page.goto(`${server.url}?lang=en#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=translate]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=translate][data-ready="1"]', { timeout: 30000 });
  return page;
}

async function openTranslator(page) {
  const demo = page.locator('[data-demo=translate]');
  await demo.locator('button[name=open]').click();
  await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation, null, {
    timeout: 120000,
  });
  return demo;
}

test("§7: the translator loads on demand and gives the native engine's beam translation with its cross-attention", async () => {
  const page = await openPage();
  const demo = page.locator('[data-demo=translate]');
  assert.match(await demo.locator('button[name=open]').textContent(), /Open the translator \(loads \d+\.\d MB\)/);
  assert.match(await demo.locator('[name=about]').textContent(), /BLEU/);
  assert.deepEqual(page.modelRequests, [], 'no model request before the reader opens the translator');
  await openTranslator(page);
  assert.equal(page.modelRequests.length, 1);
  let tr = await translation(page);
  assert.equal(tr.beamWidth, 4);
  assert.equal(tr.text, fixture[0].source);
  assert.deepEqual(tr.tokens, fixture[0].tokens, 'the beam-4 output is the native attn translate output');
  assert.equal(tr.beam, fixture[0].text);
  assert.ok(tr.greedy.length > 0 && tr.reference.length > 0);
  assert.equal(await demo.locator('[name=beamed]').textContent(), fixture[0].text);
  // one heatmap per layer and head, all rows up to the last step, source pieces as columns
  const maps = demo.locator('al-heatmap');
  assert.equal(await maps.count(), tr.layers * tr.heads);
  assert.equal(tr.step, tr.T - 1);
  assert.equal(Number(await maps.first().getAttribute('data-rows')), tr.T);
  assert.equal(Number(await maps.first().getAttribute('data-cols')), tr.S);
  assert.equal(tr.srcPieces.length, tr.S);
  // the step slider replays decoding: the keyboard moves it back and every map shows fewer rows
  const slider = demo.locator('input[name=step]');
  await slider.focus();
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation.step === 0);
  assert.equal(Number(await maps.last().getAttribute('data-rows')), 1);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation.step === 1);
  assert.equal(Number(await maps.nth(3).getAttribute('data-rows')), 2);
  assert.match(await demo.locator('[name=replay]').textContent(), /Step 2 of \d+/);
  // a map takes the keyboard: its focused cell is outlined and read out
  await maps.first().focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  assert.equal(await maps.first().getAttribute('data-focus-cell'), '1,1');
  assert.match(await maps.first().locator('.heatmap-readout').textContent(), /→ .+: \d\.\d{4}/);
  // the reader's own sentence, Enter to translate: no reference, a fresh output
  const box = demo.locator('textarea[name=text]');
  await box.fill('Ich habe keine Zeit.');
  await box.press('Enter');
  await page.waitForFunction(
    () => document.querySelector('[data-demo=translate]').translation.text === 'Ich habe keine Zeit.',
    null,
    { timeout: 60000 }
  );
  tr = await translation(page);
  assert.equal(tr.reference, '');
  assert.ok(tr.beam.length > 0);
  assert.match(await demo.locator('[name=reference]').textContent(), /no reference/);
  // the sentences written for the page: their own group after the held-out pairs, translated
  // when picked, with no reference
  const groups = demo.locator('select[name=sentence] optgroup');
  assert.equal(await groups.count(), 2);
  assert.equal(await groups.nth(0).getAttribute('label'), 'held-out test pairs (with their reference)');
  assert.equal(await groups.nth(1).getAttribute('label'), 'sentences written for this page (no reference)');
  const written = await groups.nth(1).locator('option').allTextContents();
  assert.equal(written.length, 10);
  const pick = await groups.nth(1).locator('option').nth(2).getAttribute('value');
  await demo.locator('select[name=sentence]').selectOption(pick);
  await page.waitForFunction(
    (s) => document.querySelector('[data-demo=translate]').translation.text === s,
    written[2],
    { timeout: 60000 }
  );
  tr = await translation(page);
  assert.equal(tr.reference, '');
  assert.ok(tr.beam.length > 0);
  assert.match(await demo.locator('[name=reference]').textContent(), /no reference/);
  // a sentence with words the corpus never held: exactly those are marked, with their count
  const typed = 'Der Zylofuraminhändler trinkt jeden Morgen Kaffee.';
  await box.fill(typed);
  await box.press('Enter');
  await page.waitForFunction((s) => document.querySelector('[data-demo=translate]').translation.text === s, typed, {
    timeout: 60000,
  });
  tr = await translation(page);
  const expected = typed
    .split(' ')
    .filter((w) => !known.has(wordKey(w)))
    .map((w) => w.replace(/[.]$/, ''));
  assert.ok(expected.includes('Zylofuraminhändler'), `${expected}`);
  assert.deepEqual(
    tr.unknownWords.map((w) => w.replace(/[.]$/, '')),
    expected
  );
  const marked = await demo.locator('[name=unknown] mark.unknown-word').allTextContents();
  assert.deepEqual(
    marked.map((w) => w.replace(/[.]$/, '')),
    expected
  );
  assert.match(
    await demo.locator('[name=unknown]').textContent(),
    new RegExp(`${expected.length} of the \\d+ words never occur`)
  );
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: path.join(shots, 'translate-desktop-en.png'), fullPage: false });
  await page.close();
});

test('§7: beam width and example come from the URL, survive a reload, and fit a phone screen', async () => {
  const page = await openPage('translate.beam=1&translate.sentence=3', { width: 390, height: 844 });
  await openTranslator(page);
  let tr = await translation(page);
  assert.equal(tr.beamWidth, 1);
  assert.equal(tr.text, fixture[3].source);
  assert.equal(tr.beam, tr.greedy, 'beam 1 is greedy decoding');
  // a wider beam by keyboard, then a reload keeps it
  const beam = page.locator('[data-demo=translate] input[name=beam]');
  await beam.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await beam.dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation.beamWidth === 3, null, {
    timeout: 60000,
  });
  assert.match(page.url(), /translate\.beam=3/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390 + 1, `the page is ${width}px wide at phone width`);
  await page.screenshot({ path: path.join(shots, 'translate-phone-en.png'), fullPage: false });
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=translate]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=translate][data-ready="1"]', { timeout: 30000 });
  await openTranslator(page);
  tr = await translation(page);
  assert.equal(tr.beamWidth, 3);
  assert.equal(tr.text, fixture[3].source);
  assert.deepEqual(page.errors, []);
  await page.close();
});
