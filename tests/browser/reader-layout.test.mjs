// The guide as a reader holds it: on a phone (375 and 320 px, both languages, every demo mounted)
// nothing makes the page scroll sideways, §1's bars have room, wide formulas can be scrolled to
// their end and show that they continue, heatmaps fit their box (and hover still finds the right
// cell); a theme switch redraws canvas labels and axes in the new text colour; a language switch
// keeps the reader's place in the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';

const { server, browser } = usePage();

// Scrolls down the page a part of a screen at a time, as a reader would, then waits until every
// demo (they mount as they near the viewport) has mounted.
async function readToEnd(page) {
  await page.waitForSelector('body[data-ready="1"]');
  for (let i = 0; i < 400; i++) {
    const done = await page.evaluate(() => {
      scrollBy(0, Math.round(innerHeight * 0.75));
      return scrollY + innerHeight >= document.scrollingElement.scrollHeight - 2;
    });
    await page.waitForTimeout(120);
    if (done) break;
  }
  const names = await page.$$eval('[data-demo]', (els) => els.map((e) => e.dataset.demo));
  for (const name of names) await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 60000 });
  await page.waitForTimeout(500);
}

// Clicks a header button where the reader sees it (page.click would first scroll the sticky
// header's static position into view and move the page).
async function press(page, selector) {
  const b = await page.locator(selector).boundingBox();
  await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
}

// Everything a phone reader could be cut off from, measured at the current width.
const phoneLayout = (page) =>
  page.evaluate(() => {
    const W = innerWidth;
    const scroller = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    const name = (e) =>
      `${e.tagName.toLowerCase()}.${e.getAttribute('class') ?? ''} in ${e.closest('[data-demo]')?.dataset.demo ?? e.closest('section')?.id}`;
    const sticking = [...document.querySelectorAll('body *')]
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.right > W + 0.5 && !scroller(e);
      })
      .map(name);
    const lm = document.querySelector('[data-demo=lm] .lm-bars');
    const bars = [...lm.querySelectorAll('.bar-row')].map((row) => ({
      track: row.querySelector('.bar-track').getBoundingClientRect().width,
      fill: row.querySelector('.bar-fill').getBoundingClientRect().width,
    }));
    // formulas: each wide block, scrolled to its end, shows its last glyph; each shows a scroll cue
    const glyphs = (b) => {
      let lo = Infinity,
        hi = -Infinity;
      const clipped = (e) => {
        for (let p = e.parentElement; p && p !== b; p = p.parentElement)
          if (getComputedStyle(p).overflow !== 'visible') return true;
        return false;
      };
      for (const e of b.querySelectorAll('.katex-html *')) {
        const r = e.getBoundingClientRect();
        if (!r.width || !r.height || clipped(e)) continue;
        lo = Math.min(lo, r.left);
        hi = Math.max(hi, r.right);
      }
      return [lo, hi];
    };
    const formulas = [...document.querySelectorAll('.tex-block')]
      .filter((b) => b.scrollWidth > b.clientWidth + 1)
      .map((b) => {
        const box = b.getBoundingClientRect();
        const [lo] = glyphs(b);
        b.scrollLeft = b.scrollWidth;
        const [, hi] = glyphs(b);
        const end = { hiddenLeft: box.left - lo, hiddenRight: hi - (box.left + b.clientWidth) };
        b.scrollLeft = 0;
        const st = getComputedStyle(b);
        return {
          section: b.closest('section').id,
          ...end,
          tab: b.tabIndex,
          cue: st.backgroundImage !== 'none' && st.backgroundAttachment.includes('local'),
        };
      });
    const maps = [...document.querySelectorAll('al-heatmap')].map((h) => ({
      demo: h.closest('[data-demo]')?.dataset.demo,
      width: h.clientWidth,
      scrollWidth: h.scrollWidth,
      canvas: h.querySelector('canvas').getBoundingClientRect().width,
      scale: h.geometry?.scale ?? 1,
    }));
    return {
      W,
      scrollWidth: document.scrollingElement.scrollWidth,
      sticking,
      bars,
      barsWidth: lm.clientWidth,
      formulas,
      maps,
    };
  });

function checkPhone(m, where) {
  assert.ok(
    m.scrollWidth <= m.W,
    `${where}: the page scrolls sideways (${m.scrollWidth} > ${m.W}): ${m.sticking.slice(0, 8).join(', ')}`
  );
  assert.deepEqual(m.sticking, [], `${where}: elements past the right edge`);
  // §1: every bar has a track of real width, and the bars keep their proportions
  assert.equal(m.bars.length, 4, `${where}: §1 bars`);
  for (const b of m.bars) {
    assert.ok(b.track >= 0.4 * m.barsWidth, `${where}: §1 bar track ${b.track.toFixed(0)} px of ${m.barsWidth}`);
    assert.ok(
      b.fill >= 1 && b.fill <= b.track + 0.5,
      `${where}: §1 bar ${b.fill.toFixed(1)} px in a ${b.track.toFixed(0)} px track`
    );
  }
  assert.ok(
    Math.max(...m.bars.map((b) => b.fill)) >= Math.max(...m.bars.map((b) => b.track)) - 1,
    `${where}: the longest §1 bar fills its track`
  );
  // formulas wider than the column: reachable end to end, focusable, with a scroll cue
  assert.ok(m.formulas.length >= 3, `${where}: ${m.formulas.length} wide formulas`);
  for (const f of m.formulas) {
    assert.ok(
      f.hiddenLeft <= 1 && f.hiddenRight <= 1,
      `${where}: a formula in ${f.section} cannot be scrolled to its end (${f.hiddenLeft.toFixed(1)}, ${f.hiddenRight.toFixed(1)} px hidden)`
    );
    assert.equal(f.tab, 0, `${where}: a wide formula in ${f.section} takes no focus`);
    assert.ok(f.cue, `${where}: a wide formula in ${f.section} shows no sign that it continues`);
  }
  // heatmaps fit their box, no nested scrolling; §9's stays readable (labels at 70 % or more)
  assert.ok(m.maps.length >= 10, `${where}: ${m.maps.length} heatmaps`);
  for (const h of m.maps) {
    assert.ok(
      h.scrollWidth <= h.width + 1 && h.canvas <= h.width + 1,
      `${where}: the ${h.demo} heatmap scrolls inside its box (${h.canvas.toFixed(0)} px drawn, ${h.width} px box)`
    );
  }
  const pe = m.maps.find((h) => h.demo === 'positional');
  assert.ok(pe.scale >= 0.7, `${where}: §9's heatmap shrunk to ${pe.scale.toFixed(2)}`);
}

// Hovering a cell of the (possibly shrunk) §9 heatmap reads that cell: the dimension slider
// follows the row under the pointer.
async function hoverPositional(page, i, j) {
  const heat = page.locator('[data-demo=positional] al-heatmap');
  await heat.scrollIntoViewIfNeeded();
  const at = await heat.evaluate(
    (h, [i, j]) => {
      const { cell, pad, top, scale } = h.geometry;
      const r = h.querySelector('canvas').getBoundingClientRect();
      return { x: r.left + (pad + (j + 0.5) * cell) * scale, y: r.top + (top + (i + 0.5) * cell) * scale };
    },
    [i, j]
  );
  await page.mouse.move(at.x, at.y);
  return heat.evaluate((h) => ({
    cell: [...h.focusCell],
    dim: h.closest('[data-demo]').querySelector('[name=dim]').value,
  }));
}

for (const lang of ['en', 'ko']) {
  test(`phone widths (${lang}): nothing scrolls the page sideways; bars, formulas and heatmaps fit`, async () => {
    const page = await browser.newPage({ width: 375, height: 800 });
    await page.goto(`${server.url}${lang === 'en' ? '?lang=en' : ''}`);
    await readToEnd(page);
    checkPhone(await phoneLayout(page), `${lang} 375 px`);
    assert.deepEqual(await hoverPositional(page, 10, 40), { cell: [10, 40], dim: '10' });
    await page.setViewportSize({ width: 320, height: 700 });
    await page.waitForTimeout(800);
    checkPhone(await phoneLayout(page), `${lang} 320 px`);
    assert.deepEqual(await hoverPositional(page, 20, 75), { cell: [20, 75], dim: '20' });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

// WCAG contrast ratio of two [r, g, b] colours.
function contrast(a, b) {
  const lum = (c) =>
    c
      .map((v) => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      })
      .reduce((s, v, k) => s + [0.2126, 0.7152, 0.0722][k] * v, 0);
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

// The colour of the text drawn on each canvas: heatmaps' row labels (left of the cells) and
// charts' x axis (the band under the plot), as the most opaque pixel there; bar labels' CSS colour.
const inks = (page) =>
  page.evaluate(() => {
    const rgb = (s) =>
      s
        .match(/[\d.]+/g)
        .slice(0, 3)
        .map(Number);
    const ink = (cv, x0, y0, x1, y1) => {
      const d = cv.getContext('2d').getImageData(x0, y0, Math.max(1, x1 - x0), Math.max(1, y1 - y0)).data;
      let best = 0,
        c = null;
      for (let k = 0; k < d.length; k += 4)
        if (d[k + 3] > best) {
          best = d[k + 3];
          c = [d[k], d[k + 1], d[k + 2]];
        }
      return best > 200 ? c : null;
    };
    const dpr = devicePixelRatio || 1;
    const maps = [...document.querySelectorAll('[data-ready] al-heatmap')]
      .filter((h) => h.geometry?.pad > 8)
      .map((h) => {
        const cv = h.querySelector('canvas');
        return {
          what: `${h.closest('[data-demo]').dataset.demo} heatmap`,
          ink: ink(cv, 0, Math.round(h.geometry.top * dpr), Math.round((h.geometry.pad - 3) * dpr), cv.height),
        };
      });
    const charts = [...document.querySelectorAll('[data-ready] .chart canvas')].map((cv) => ({
      what: `${cv.closest('[data-demo]').dataset.demo} chart`,
      ink: ink(cv, 0, cv.height - Math.round(30 * dpr), cv.width, cv.height),
    }));
    const bars = [...document.querySelectorAll('[data-ready] .bar-label')]
      .slice(0, 3)
      .map((b) => ({ what: 'bar label', ink: rgb(getComputedStyle(b).color) }));
    return {
      bg: rgb(getComputedStyle(document.body).backgroundColor),
      theme: document.documentElement.dataset.theme ?? 'auto',
      all: [...maps, ...charts, ...bars],
    };
  });

test('a theme switch redraws heatmap labels, chart axes and bar labels in the new text colour (desktop)', async () => {
  const page = await browser.newPage({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${server.url}?lang=en`);
  await page.waitForSelector('body[data-ready="1"]');
  for (const name of ['lm', 'self-attention', 'positional']) {
    await page.locator(`[data-demo="${name}"]`).scrollIntoViewIfNeeded();
    await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 30000 });
  }
  await page.waitForTimeout(500);
  // at desktop width too, §1's bars share one track of real width (their sentences stand above them)
  const tracks = await page.$$eval('[data-demo=lm] .lm-bars .bar-track', (ts) =>
    ts.map((t) => t.getBoundingClientRect().width)
  );
  const full = await page.$eval('[data-demo=lm] .lm-bars', (b) => b.clientWidth);
  assert.ok(
    tracks.length === 4 && tracks.every((w) => w >= 0.4 * full && Math.abs(w - tracks[0]) < 1),
    `§1 bar tracks ${tracks} of ${full} px`
  );
  const seen = [];
  // the button cycles auto → dark → light → auto; last, the system itself turns dark
  for (const [k, expect] of ['auto', 'dark', 'light', 'auto', 'auto'].entries()) {
    if (k === 4) {
      await page.emulateMedia({ colorScheme: 'dark' });
      // media-query change events go out with the next frame, which headless Chromium makes on demand
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    } else if (k > 0) await press(page, '#theme-toggle');
    // The redraw comes with the next frames; on a busy machine they can be late, so read until
    // every label has the new theme's contrast (at most 15 s), then assert on that reading.
    let m;
    for (let tries = 0; tries < 60; tries++) {
      await page.waitForTimeout(250);
      m = await inks(page);
      if (m.theme === expect && m.all.length && m.all.every((x) => x.ink && contrast(x.ink, m.bg) >= 4.5)) break;
    }
    assert.equal(m.theme, expect);
    assert.ok(
      m.all.filter((x) => x.what.includes('heatmap')).length >= 2 && m.all.some((x) => x.what.includes('chart')),
      JSON.stringify(m.all)
    );
    for (const x of m.all) {
      assert.ok(x.ink, `${m.theme}: no text found on the ${x.what}`);
      const c = contrast(x.ink, m.bg);
      assert.ok(
        c >= 4.5,
        `${m.theme}: the ${x.what}'s text rgb(${x.ink}) on rgb(${m.bg}) has contrast ${c.toFixed(2)}`
      );
    }
    seen.push(m.all[0].ink.join());
  }
  assert.notEqual(seen[0], seen[1], 'the labels kept their colour through a switch to dark');
  assert.notEqual(seen[3], seen[4], 'the labels kept their colour when the system turned dark');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Until the layout holds still: every demo the page mounts near the viewport (within the 600 px
// of web/main.js's observer) is ready, and neither the page's height nor the position of any
// demo or heading has moved for half a second (and at least 5 frames); 30 s at most.
async function layoutSettled(page) {
  await page.waitForFunction(
    () =>
      new Promise((resolve) => {
        const shape = () => {
          const near = [...document.querySelectorAll('[data-demo]')].filter((d) => {
            const r = d.getBoundingClientRect();
            return r.bottom > -600 && r.top < innerHeight + 600;
          });
          if (near.some((d) => d.dataset.ready !== '1')) return null;
          const tops = [...document.querySelectorAll('[data-demo], h2')].map((e) =>
            Math.round(e.getBoundingClientRect().top)
          );
          return `${document.scrollingElement.scrollHeight} ${scrollY} ${tops.join(' ')}`;
        };
        let last = shape(),
          since = performance.now(),
          frames = 0;
        const tick = () => {
          const now = shape();
          if (now === null || now !== last) {
            last = now;
            since = performance.now();
            frames = 0;
          } else frames += 1;
          if (last !== null && frames >= 5 && performance.now() - since >= 500) resolve(true);
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    null,
    { timeout: 30000 }
  );
}

test('a language switch keeps the reader where they were in the text', async () => {
  const page = await browser.newPage({ width: 1280, height: 900 });
  await page.goto(`${server.url}?lang=en`);
  await page.waitForSelector('body[data-ready="1"]');
  const top = (sel) => page.evaluate((s) => document.querySelector(s).getBoundingClientRect().top, sel);
  const settled = () => layoutSettled(page);
  const switchLang = async () => {
    const lang = await page.evaluate(() => document.documentElement.lang);
    await press(page, '#lang-toggle');
    await page.waitForFunction((l) => document.body.dataset.lang && document.body.dataset.lang !== l, lang);
    await settled(); // relabelled demos redraw, the layout settles
  };
  // [element kept in view, where it is put, elements that must stay put]
  const cases = [
    ['[data-demo=multihead]', 200, ['[data-demo=multihead]']],
    ['#positional h2', 120, ['#positional h2']],
    ['[data-demo=order]', 250, ['[data-demo=order]']],
    ['#code h2', 150, ['#code h2']],
    // the middle of §9's prose, between its heading and its demo
    [null, null, ['#positional h2', '[data-demo=positional]']],
  ];
  for (const [sel, y, watched] of cases) {
    await page.locator(watched.at(-1)).scrollIntoViewIfNeeded();
    await settled(); // the demos near it mount
    if (sel)
      await page.evaluate(([s, y]) => scrollBy(0, document.querySelector(s).getBoundingClientRect().top - y), [sel, y]);
    else
      await page.evaluate(() => {
        const a = document.querySelector('#positional h2').getBoundingClientRect().top,
          b = document.querySelector('[data-demo=positional]').getBoundingClientRect().top;
        scrollBy(0, (a + b) / 2 - 300);
      });
    await settled();
    const before = await Promise.all(watched.map(top));
    await switchLang();
    const switched = await Promise.all(watched.map(top));
    await switchLang();
    const back = await Promise.all(watched.map(top));
    watched.forEach((w, k) => {
      assert.ok(
        Math.abs(switched[k] - before[k]) <= 100,
        `${w} moved from ${before[k].toFixed(0)} to ${switched[k].toFixed(0)} px on a switch`
      );
      assert.ok(
        Math.abs(back[k] - before[k]) <= 100,
        `${w} moved from ${before[k].toFixed(0)} to ${back[k].toFixed(0)} px on switching back`
      );
    });
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
