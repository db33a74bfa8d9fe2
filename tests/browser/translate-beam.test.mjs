// §7's beam search, step by step, as a reader sees it: at beam 4 the view shows the engine's own
// record of its search (a column per step, the kept, finished and pruned candidates, the winner's
// path), whose winner is the beam translation shown above it, with log-probabilities that are
// finite, negative and falling along the winner's path; the cross-attention maps sit in a grid
// (several to a row at 1280 px, far shorter than the one-map column); at 375 px in Korean the
// view scrolls inside its own box, the page does not overflow, and the labels are Korean; axe
// finds nothing serious in §7 at either width; a language switch relabels the view.
// Screenshots: test-results/screenshots/translate-beam-1280-en.png and -375-ko.png (copied to
// docs/screenshots/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openDemo, shots, axeDemo, usePage } from './harness.mjs';
import { checkPage, smallThings } from './sweep.mjs';

const { server, browser } = usePage();

async function openTranslator(page) {
  const demo = page.locator('[data-demo=translate]');
  await demo.locator('button[name=open]').click();
  await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation, null, {
    timeout: 180000,
  });
  return demo;
}

// what the beam view shows: per step its candidates' status, scores, text and marks
const readView = (page) =>
  page.evaluate(() => {
    const box = document.querySelector('[data-demo=translate] [name=beam-trace]');
    return [...box.querySelectorAll('.beam-step')].map((col) => ({
      title: col.querySelector('h5').textContent,
      rows: [...col.querySelectorAll('li')].map((li) => ({
        status: li.dataset.status,
        logp: Number(li.dataset.logp),
        score: Number(li.dataset.score),
        path: li.dataset.path === '1',
        winner: li.dataset.winner === '1',
        text: li.querySelector('.hyp .sr-only').textContent,
        shown: li.textContent.replace(/\s+/g, ' ').trim(),
        grey: getComputedStyle(li).color,
        color: getComputedStyle(li.closest('.beam-step')).color,
      })),
    }));
  });

test('§7 at 1280 px: the beam search step by step, from the engine, and the maps in a grid', async () => {
  const page = await openDemo(browser, server, 'translate', { hash: 'translate.beam=4' });
  const demo = await openTranslator(page);
  const tr = await page.evaluate(() => document.querySelector('[data-demo=translate]').translation);
  assert.equal(tr.beamWidth, 4);
  const steps = await readView(page);
  assert.ok(steps.length >= 2, `${steps.length} steps`);
  assert.equal(tr.traceSteps, steps.length);
  assert.equal(steps[0].title, 'step 1');
  let pruned = 0;
  for (const [s, { rows }] of steps.entries()) {
    const kept = rows.filter((r) => r.status === 'kept').length;
    const cut = rows.filter((r) => r.status === 'pruned');
    pruned += cut.length;
    assert.ok(kept <= 4, `step ${s + 1}: ${kept} kept`);
    assert.ok(cut.length <= 4, `step ${s + 1}: ${cut.length} pruned`);
    // best first, the taken ones before the pruned ones
    for (let i = 1; i < rows.length; ++i) {
      assert.ok(rows[i].logp <= rows[i - 1].logp, `step ${s + 1}: order`);
      if (rows[i - 1].status === 'pruned') assert.equal(rows[i].status, 'pruned');
    }
    for (const r of rows) {
      assert.ok(Number.isFinite(r.logp) && r.logp < 0, `log p ${r.logp}`);
      assert.ok(Number.isFinite(r.score) && r.score < 0, `score ${r.score}`);
      assert.match(r.shown, /log p −\d+\.\d\d · score −\d+\.\d\d/);
    }
    // pruned ones are greyed: another colour than the text's
    for (const r of cut) assert.notEqual(r.grey, r.color);
  }
  assert.ok(pruned > 0, 'pruned candidates shown');
  // the winner: one, on its path, its text the beam translation shown above
  const all = steps.flatMap((s) => s.rows);
  const winners = all.filter((r) => r.winner);
  assert.equal(winners.length, 1);
  const win = winners[0];
  assert.notEqual(win.status, 'pruned');
  assert.equal(win.text, tr.beam);
  assert.equal(win.text, await demo.locator('[name=beamed]').textContent());
  assert.match(win.shown, /winner/);
  // its path: one candidate per step up to the winner's, log p falling all along
  const winStep = steps.findIndex((s) => s.rows.some((r) => r.winner));
  const pathRows = steps.slice(0, winStep + 1).map((s) => s.rows.filter((r) => r.path));
  assert.ok(pathRows.every((p) => p.length === 1));
  for (let i = 1; i < pathRows.length; ++i) assert.ok(pathRows[i][0].logp < pathRows[i - 1][0].logp);
  assert.ok(pathRows.at(-1)[0].winner);
  assert.ok(steps.slice(winStep + 1).every((s) => s.rows.every((r) => !r.path)));
  // finished hypotheses are marked; the finished winner's score is the best of them
  const finished = all.filter((r) => r.status === 'finished');
  assert.ok(finished.length >= 1);
  for (const f of finished) assert.match(f.shown, /<\/s>/);
  if (win.status === 'finished') assert.ok(finished.every((f) => f.score <= win.score));
  await demo.locator('.beam-trace').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: path.join(shots, 'translate-beam-1280-en.png'), fullPage: false });
  assert.deepEqual(await axeDemo(page, 'translate'), []);
  // the view's box takes the keyboard and is a named region
  const box = demo.locator('.beam-scroll');
  assert.equal(await box.getAttribute('role'), 'region');
  assert.match(await box.getAttribute('aria-label'), /beam search of width 4/);
  await box.focus();
  assert.equal(await page.evaluate(() => document.activeElement.className), 'beam-scroll');
  const before = await box.evaluate((b) => b.scrollLeft);
  const wide = await box.evaluate((b) => b.scrollWidth > b.clientWidth);
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(300);
  if (wide) assert.ok((await box.evaluate((b) => b.scrollLeft)) > before, 'the keyboard scrolls the steps');
  // the maps: a grid, several to a row, far shorter than the column of eight was (each ~340 px)
  const grid = await page.evaluate(() => {
    const g = document.querySelector('[data-demo=translate] [name=heads]');
    const figs = [...g.querySelectorAll('figure')];
    return {
      height: g.getBoundingClientRect().height,
      rows: new Set(figs.map((f) => Math.round(f.getBoundingClientRect().top))).size,
      count: figs.length,
      captions: figs.map((f) => f.querySelector('figcaption').textContent),
    };
  });
  assert.equal(grid.count, tr.layers * tr.heads);
  assert.ok(grid.rows <= Math.ceil(grid.count / 4), `${grid.rows} rows of maps`);
  assert.ok(grid.height < 1000, `the maps' grid is ${grid.height}px tall`);
  assert.equal(grid.captions[0], 'layer 1, head 1');
  assert.equal(grid.captions.at(-1), `layer ${tr.layers}, head ${tr.heads}`);
  // a language switch relabels the view, the same search
  await page.click('#lang-toggle');
  await page.waitForSelector('body[data-lang=ko]', { timeout: 30000 });
  const ko = await readView(page);
  assert.equal(ko.length, steps.length);
  assert.equal(ko[0].title, '1단계');
  assert.ok(ko.flatMap((s) => s.rows).some((r) => /승자/.test(r.shown) && r.text === tr.beam));
  await page.click('#lang-toggle');
  await page.waitForSelector('body[data-lang=en]', { timeout: 30000 });
  // beam 1: the view says that greedy decoding has no search to show
  const slider = demo.locator('input[name=beam]');
  await slider.focus();
  await page.keyboard.press('Home');
  await slider.dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation.beamWidth === 1, null, {
    timeout: 60000,
  });
  assert.match(await demo.locator('[name=beam-none]').textContent(), /greedy decoding/);
  assert.equal(await demo.locator('.beam-step').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§7 at 375 px, Korean: the beam view scrolls in its own box, Korean labels, no page overflow', async () => {
  const page = await openDemo(browser, server, 'translate', { lang: 'ko', width: 375, hash: 'translate.beam=4' });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ko');
  const demo = await openTranslator(page);
  const steps = await readView(page);
  assert.ok(steps.length >= 2);
  assert.equal(steps[1].title, '2단계');
  assert.match(await demo.locator('.beam-trace h4').textContent(), /beam search 단계별 보기/);
  const tags = steps.flatMap((s) => s.rows.map((r) => r.shown));
  assert.ok(tags.some((x) => /승자/.test(x)));
  assert.ok(tags.some((x) => /잘림/.test(x)));
  assert.ok(tags.every((x) => /log p −\d+\.\d\d · 점수 −\d+\.\d\d/.test(x)));
  assert.match(await demo.locator('.beam-scroll').getAttribute('aria-label'), /너비 4 beam search/);
  assert.match(await demo.locator('[name=beam-summary]').textContent(), /승자\(\d+단계\)/);
  // the steps scroll inside their box; the page itself does not overflow
  const box = await demo.locator('.beam-scroll').evaluate((b) => ({
    scroll: b.scrollWidth,
    client: b.clientWidth,
    right: b.getBoundingClientRect().right,
  }));
  assert.ok(box.scroll > box.client, 'several steps: the box scrolls');
  assert.ok(box.right <= 375, `the box ends at ${box.right}px`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `the page is ${width}px wide`);
  // the maps two to a row, inside the screen
  const maps = await page.evaluate(() =>
    [...document.querySelectorAll('[data-demo=translate] [name=heads] figure')].map((f) => {
      const r = f.getBoundingClientRect();
      return { top: Math.round(r.top), right: r.right };
    })
  );
  assert.ok(maps.every((m) => m.right <= 375));
  assert.equal(new Set(maps.map((m) => m.top)).size, Math.ceil(maps.length / 2));
  // no Latin words outside the page's terms, no unnamed control, no print under 14 px in §7
  const { unnamed, other } = await checkPage(page);
  assert.deepEqual(
    [...unnamed, ...other].filter((x) => x.startsWith('[translate]')),
    []
  );
  const { print } = await smallThings(page);
  assert.deepEqual(
    print.filter((x) => /beam|translate/.test(x)),
    []
  );
  await demo.locator('.beam-trace').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: path.join(shots, 'translate-beam-375-ko.png'), fullPage: false });
  assert.deepEqual(await axeDemo(page, 'translate', { tags: ['wcag22aa'] }), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});
