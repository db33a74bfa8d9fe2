// The guide by keyboard and by link. Tab from the top of the page reaches every demo's controls
// in page order, even the demos that mount only near the viewport; a focused heatmap outlines its
// current cell so that the outline stands out in the light and the dark theme. A share link holds
// only the settings that differ from their defaults and the section being read, and opens there.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';
import { SECTIONS } from '../../web/sections.js';

const { server, browser } = usePage();

const ready = (page) => page.waitForSelector('body[data-ready="1"]');

for (const [lang, width, height] of [
  ['en', 1280, 900],
  ['ko', 375, 800],
])
  test(`Tab from the top reaches every demo's controls, in page order, without scrolling by mouse (${lang}, ${width} px)`, async () => {
    const page = await browser.newPage({ width, height });
    await page.goto(`${server.url}?lang=${lang}`);
    await ready(page);
    const names = await page.$$eval('[data-demo]', (hs) => hs.map((h) => h.dataset.demo));
    const stops = [];
    for (let i = 0; i < 600; i++) {
      await page.keyboard.press('Tab');
      // a demo still loading keeps the focus until its first control can take it
      await page
        .waitForFunction(
          () => {
            const a = document.activeElement;
            return !a?.matches?.('[data-demo]') || !a.hasAttribute('tabindex');
          },
          null,
          { timeout: 60000 }
        )
        .catch(async (e) => {
          // name the demo that kept the focus, what it shows and what the page reported
          const held = await page.evaluate(() => {
            const a = document.activeElement;
            return `${a?.dataset?.demo} (${a?.textContent?.trim().slice(0, 160)})`;
          });
          throw new Error(
            `after ${stops.length} stops the focus stayed on the demo ${held} for 60 s; page errors: ${JSON.stringify(page.errors)}; ${e.message}`
          );
        });
      const at = await page.evaluate(() => {
        const a = document.activeElement;
        if (a === document.body || a.closest('footer')) return null;
        // its place in the document among every element, for the order check
        const all = document.getElementsByTagName('*');
        return {
          demo: a.closest('[data-demo]')?.dataset.demo ?? null,
          place: Array.prototype.indexOf.call(all, a),
          host: a.matches('[data-demo]'),
        };
      });
      if (!at) break;
      stops.push(at);
    }
    const reached = new Set(stops.filter((s) => s.demo && !s.host).map((s) => s.demo));
    for (const n of names)
      assert.ok(reached.has(n), `Tab reached a control of ${n} (reached: ${[...reached].join(', ')})`);
    for (const d of SECTIONS.find((s) => s.id === 'relatives').demos)
      assert.ok(reached.has(d), `a control of §10's ${d}`);
    assert.ok(reached.has('playground'));
    for (let i = 1; i < stops.length; i++)
      assert.ok(stops[i].place > stops[i - 1].place, `tab stop ${i} follows stop ${i - 1} in the document`);
    // every control of every demo, once all are mounted, was among the stops (a group of radio
    // buttons is one stop: Tab enters it, the arrow keys move within it)
    const tabbable = await page.$$eval(
      '[data-demo] :is(a[href], button, input, select, textarea, [tabindex])',
      (els) => {
        const groups = new Set();
        return els.filter((el) => {
          if (el.tabIndex < 0 || el.disabled || !el.getClientRects().length) return false;
          if (getComputedStyle(el).visibility === 'hidden') return false;
          if (el.type !== 'radio' || !el.name) return true;
          if (groups.has(el.name)) return false;
          groups.add(el.name);
          return true;
        }).length;
      }
    );
    assert.ok(
      stops.filter((s) => s.demo && !s.host).length >= tabbable,
      `${stops.length} stops; ${tabbable} demo controls on the page`
    );
    assert.deepEqual(page.errors, []);
    await page.close();
  });

test('Shift+Tab into a demo not yet mounted lands on its last control', async () => {
  const page = await browser.newPage({ width: 1280, height: 900 });
  await page.goto(`${server.url}?lang=en`);
  await ready(page);
  // from the footer backwards: the playground is the last demo on the page
  await page.evaluate(() => {
    const f = document.querySelector('footer p');
    f.tabIndex = -1;
    f.focus();
  });
  for (let i = 0; i < 20 && !(await page.evaluate(() => document.activeElement.closest('[data-demo]'))); i++)
    await page.keyboard.press('Shift+Tab');
  assert.equal(await page.evaluate(() => document.activeElement.closest('[data-demo]')?.dataset.demo), 'playground');
  await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 60000 });
  await page.waitForFunction(
    () =>
      document.activeElement.closest('[data-demo=playground]') &&
      document.activeElement !== document.querySelector('[data-demo=playground]')
  );
  const last = await page.evaluate(() => {
    const h = document.querySelector('[data-demo=playground]');
    const all = [...h.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')].filter(
      (el) => el.tabIndex >= 0 && !el.disabled && el.getClientRects().length
    );
    return all.at(-1) === document.activeElement;
  });
  assert.ok(last, "the playground's last control has the focus");
  assert.deepEqual(page.errors, []);
  await page.close();
});

// WCAG relative luminance and contrast of two [r, g, b] colours
const lum = (c) => {
  const [r, g, b] = c.map((v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a, b) => {
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};

for (const theme of ['light', 'dark']) {
  test(`the focused heatmap cell is outlined, ≥ 3:1 against it and its neighbours (${theme} theme)`, async () => {
    const page = await browser.newPage({ width: 1280, height: 900 });
    await page.addInitScript((m) => localStorage.setItem('attnlab.theme', m), theme);
    await page.goto(`${server.url}?lang=en#positional`);
    await ready(page);
    await page.waitForSelector('[data-demo=positional][data-ready="1"]', { timeout: 60000 });
    // a map of both palette ends side by side, the hardest neighbours for a one-colour outline,
    // among the demo's own maps
    await page.evaluate(() => {
      const el = document.createElement('al-heatmap');
      el.id = 'probe-map';
      document.querySelector('[data-demo=positional] al-heatmap').after(el);
      el.set(
        Float32Array.from({ length: 16 }, (_, k) => (k % 2 ? 1 : 0)),
        4,
        4,
        { minCell: 24 }
      );
    });
    const heat = page.locator('#probe-map');
    const probe = (el, [i, j]) => {
      const { cell, pad, top } = el.geometry;
      const g = el.canvas.getContext('2d'),
        d = devicePixelRatio || 1;
      // a pixel as the reader sees it: the canvas over the page's background
      const bg = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
      const at = (x, y) => {
        const [r, gr, b, a] = g.getImageData(Math.floor(x * d), Math.floor(y * d), 1, 1).data;
        return [r, gr, b].map((v, k) => Math.round((v * a + bg[k] * (255 - a)) / 255));
      };
      const x = pad + j * cell,
        y = top + i * cell,
        mid = cell / 2;
      // across the cell's left edge, mid-height: the neighbour's last pixels, the gap, the cell's first
      const edge = [-3, -2, -1, 0, 1, 2].map((o) => at(x + o + 0.5, y + mid));
      return {
        edge,
        bg,
        cell: at(x + mid, y + mid),
        left: at(x - cell + mid, y + mid),
        right: at(x + cell + mid, y + mid),
        focus: el.dataset.focusCell ?? null,
      };
    };
    const plain = await heat.evaluate(probe, [0, 1]);
    assert.equal(plain.focus, null, 'no outline without focus');
    await heat.focus();
    await page.keyboard.press('ArrowRight');
    const p = await heat.evaluate(probe, [0, 1]);
    assert.equal(p.focus, '0,1');
    assert.deepEqual(await heat.evaluate((el) => el.focusCell), [0, 1]);
    assert.match(await page.textContent('#probe-map .heatmap-readout'), /: 1\.0000$/);
    // the outline: the pixels that focus changed; against the focused cell, each neighbour (cells
    // of the other palette end) and the page, one of its colours stands out by 3:1 or more
    const outline = p.edge.filter((c, k) => c.join() !== plain.edge[k].join());
    assert.ok(outline.length >= 2, `the focus changed ${outline.length} pixels across the cell's edge`);
    for (const [what, c] of [
      ['the cell', p.cell],
      ['its left neighbour', p.left],
      ['its right neighbour', p.right],
      ['the page', p.bg],
    ]) {
      const best = Math.max(...outline.map((r) => contrast(r, c)));
      assert.ok(best >= 3, `outline ${JSON.stringify(outline)} vs ${what} ${c}: best contrast ${best.toFixed(2)}`);
    }
    // leaving the map takes the outline away
    await page.keyboard.press('Tab');
    assert.equal(await heat.evaluate((el) => el.dataset.focusCell ?? null), null);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

// The section a heading starts, and how far its top is from where the page's scroll padding puts it
async function settledTop(page, id) {
  let last = null;
  for (let i = 0; i < 40; i++) {
    await page.waitForTimeout(500);
    const top = await page.evaluate((s) => Math.round(document.getElementById(s).getBoundingClientRect().top), id);
    if (top === last) break;
    last = top;
  }
  return page.evaluate(
    (s) =>
      document.getElementById(s).getBoundingClientRect().top -
      (parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0),
    id
  );
}

for (const [width, height] of [
  [1280, 900],
  [375, 800],
]) {
  test(`a share link holds one changed setting and the section, and opens there (${width} px)`, async () => {
    const page = await browser.newPage({ width, height });
    await page.goto(`${server.url}?lang=en`);
    await ready(page);
    await page.click('#toc a[data-section=bahdanau]');
    await page.waitForSelector('[data-demo=bahdanau][data-ready="1"]', { timeout: 60000 });
    await settledTop(page, 'bahdanau');
    // the demos around have mounted and read their settings: none of their defaults is in the hash
    await page.waitForFunction(() => location.hash === '#bahdanau', null, { timeout: 5000 });
    const task = page.locator('[data-demo=bahdanau] select').first();
    const options = await task.locator('option').evaluateAll((os) => os.map((o) => o.value));
    const now = await task.inputValue();
    const other = options.find((o) => o !== now);
    await task.selectOption(other);
    await page
      .waitForFunction((v) => location.hash === `#bahdanau&bahdanau.task=${v}`, other, { timeout: 5000 })
      .catch(async () => assert.fail(`hash is ${await page.evaluate(() => location.hash)}`));
    // scrolling on: the hash names the section being read, settings kept, no history entries
    const entries = await page.evaluate(() => history.length);
    // with the mouse wheel, as a reader scrolls
    const wheelTo = async (id) => {
      await page.mouse.move(width / 2, 20);
      await page.mouse.wheel(
        0,
        await page.evaluate((s) => document.getElementById(s).getBoundingClientRect().top - 80, id)
      );
    };
    await wheelTo('dot-product');
    await page
      .waitForFunction((v) => location.hash === `#dot-product&bahdanau.task=${v}`, other, { timeout: 5000 })
      .catch(async () => assert.fail(`hash after scrolling is ${await page.evaluate(() => location.hash)}`));
    await wheelTo('bahdanau');
    await page.waitForFunction((v) => location.hash === `#bahdanau&bahdanau.task=${v}`, other, { timeout: 5000 });
    assert.equal(await page.evaluate(() => history.length), entries);
    // set back to its default, the setting leaves the hash
    await task.selectOption(now);
    await page.waitForFunction(() => location.hash === '#bahdanau', null, { timeout: 5000 });
    await task.selectOption(other);
    await page.waitForFunction((v) => location.hash.endsWith(`bahdanau.task=${v}`), other);
    const link = page.url();
    assert.deepEqual(page.errors, []);
    await page.close();

    // the link in a fresh page: the setting, and the section at the top once the demos have mounted
    const fresh = await browser.newPage({ width, height });
    await fresh.goto(link);
    await ready(fresh);
    await fresh.waitForSelector('[data-demo=bahdanau][data-ready="1"]', { timeout: 60000 });
    assert.equal(await fresh.locator('[data-demo=bahdanau] select').first().inputValue(), other);
    const off = await settledTop(fresh, 'bahdanau');
    assert.ok(Math.abs(off) <= 100, `the section's heading is ${Math.round(off)} px from the top`);
    assert.equal(new URL(fresh.url()).hash, `#bahdanau&bahdanau.task=${other}`);
    assert.deepEqual(fresh.errors, []);
    await fresh.close();
  });
}

test('an old link that spells out defaults reads the same settings', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=400&sdpa.dk=16&sdpa.n=12`);
  await ready(page);
  const demo = page.locator('[data-demo=sdpa]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=sdpa][data-ready="1"]', { timeout: 60000 });
  const state = await page.evaluate(() => document.querySelector('[data-demo=sdpa]').state ?? null);
  const n = await demo.locator('[name=n]').inputValue();
  assert.equal(n, '12', `n ${n} (state ${JSON.stringify(state)})`);
  assert.match(await demo.locator('[name=dkval]').textContent(), /\b16\b/);
  // the demo's own write keeps only what differs from its defaults
  assert.match(new URL(page.url()).hash, /sdpa\.n=12/);
  assert.doesNotMatch(new URL(page.url()).hash, /sdpa\.dk=/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
