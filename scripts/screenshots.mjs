// Per-section screenshots of a built page, as a reader sees each section on arrival (no Train
// button pressed): 1280×900 in English and 375×800 in Korean.
//   node scripts/screenshots.mjs --dist DIR --out DIR [--sections key,key] [--quality 60] [--clip 2400]
// Serves DIR over loopback (tests/browser/harness.mjs serveDir, no isolation headers: the current
// page may register its service worker, an older one loads its single-thread engine), opens
// headless Chromium and, for each section in web/sections.js order, scrolls it into view, waits
// until its demos (each brought near the viewport so it mounts) report ready
// ([data-demo][data-ready="1"], at most --wait ms) and the layout is still, then writes the
// section element as JPEG to <out>/<1280-en|375-ko>/<NN>-<key>.jpg (sections taller than
// --clip px are clipped to their first --clip px; fixed/sticky bars outside it are hidden).
// An older page whose sections are #s01 … #s12 is mapped through LEGACY_IDS, then by position.
// Prints one line per file with its size, and a note for every demo that never became ready.
// --demos name,name: instead of whole sections, one file per named demo, <NN>-<key>-<demo>.<ext>:
// its figure and the paragraph just before it (the prose that introduces it), clipped to --clip
// px, plus <NN>-<key>-<demo>-caption.<ext> when the figure's caption falls below the clip; the
// translator is opened first (its controls exist only then) and the shot waits for its first
// translation. --png writes PNG instead of JPEG.
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launch, serveDir } from '../tests/browser/harness.mjs';
import { SECTIONS, LEGACY_IDS } from '../web/sections.js';

const { values: opts } = parseArgs({
  options: {
    dist: { type: 'string' },
    out: { type: 'string' },
    sections: { type: 'string' },
    quality: { type: 'string', default: '60' },
    clip: { type: 'string', default: '2400' },
    wait: { type: 'string', default: '30000' },
    demos: { type: 'string' },
    png: { type: 'boolean', default: false },
  },
});
if (!opts.dist || !opts.out) {
  console.error(
    'usage: node scripts/screenshots.mjs --dist DIR --out DIR [--sections key,key] [--quality 60] [--clip 2400] [--wait 30000]'
  );
  process.exit(2);
}
const quality = Number(opts.quality);
const clipHeight = Number(opts.clip);
const waitMs = Number(opts.wait);
const demoList = opts.demos
  ? opts.demos
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  : null;
const wanted = opts.sections
  ? new Set(
      opts.sections
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    )
  : demoList
    ? new Set(SECTIONS.filter((s) => s.demos.some((d) => demoList.includes(d))).map((s) => s.id))
    : null;
const unknown = wanted ? [...wanted].filter((k) => !SECTIONS.some((s) => s.id === k)) : [];
if (unknown.length) {
  console.error(`unknown section(s): ${unknown.join(', ')}`);
  process.exit(2);
}

const VIEWS = [
  { dir: '1280-en', width: 1280, height: 900, lang: 'en' },
  { dir: '375-ko', width: 375, height: 800, lang: 'ko' },
];
const legacyOf = Object.fromEntries(Object.entries(LEGACY_IDS).map(([old, key]) => [key, old]));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Waits until the page has set body[data-ready] and stays on the same document (the current
// page may reload once under its service worker).
async function openPage(page, url) {
  await page.goto(url, { waitUntil: 'load' });
  for (let i = 0; i < 3; i++) {
    await page.waitForFunction(() => document.body?.dataset.ready === '1', null, { timeout: 60000 });
    await sleep(1500);
    if (await page.evaluate(() => document.body?.dataset.ready === '1').catch(() => false)) return;
  }
  throw new Error('page never settled');
}

// The element id of a section on this page: its key, its legacy #sNN id, or the section at
// the same position among the page's .guide-section elements.
async function sectionSelector(page, key, index) {
  return page.evaluate(
    ({ key, legacy, index }) => {
      if (document.getElementById(key)) return `#${CSS.escape(key)}`;
      if (legacy && document.getElementById(legacy)) return `#${CSS.escape(legacy)}`;
      const all = document.querySelectorAll('section.guide-section');
      return all[index] ? `section.guide-section:nth-of-type(${index + 1})` : null;
    },
    { key, legacy: legacyOf[key] ?? null, index }
  );
}

// Waits for the section's demos to be ready, then for its box (and the page height) to stay the
// same across several frames. Returns the names of the demos that were not ready in time.
async function settle(page, sel) {
  // A demo mounts when it comes near the viewport: bring each one there, as a reader scrolling
  // through the section would, then go back to the section's top.
  await page.$$eval(`${sel} [data-demo]`, async (demos) => {
    for (const d of demos) {
      d.scrollIntoView({ block: 'center' });
      await new Promise((r) => setTimeout(r, 300));
    }
  });
  await page.$eval(sel, (el) => el.scrollIntoView({ block: 'start' }));
  const deadline = Date.now() + waitMs;
  let pending = [];
  while (Date.now() < deadline) {
    pending = await page.$eval(sel, (s) =>
      [...s.querySelectorAll('[data-demo]')].filter((d) => d.dataset.ready !== '1').map((d) => d.dataset.demo)
    );
    if (!pending.length) break;
    await sleep(250);
  }
  let last = '';
  for (let still = 0, i = 0; still < 4 && i < 40; i++) {
    const now = await page.$eval(sel, (s) => {
      const r = s.getBoundingClientRect();
      return `${Math.round(r.width)}x${Math.round(r.height)}@${document.documentElement.scrollHeight}`;
    });
    still = now === last ? still + 1 : 0;
    last = now;
    await sleep(200);
  }
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return pending;
}

// One demo's figure with the paragraph before it, as JPEG; the translator opened first.
async function shootDemo(page, name, file, problems, where) {
  const host = `[data-demo="${name}"]`;
  await page.$eval(host, (el) => el.scrollIntoView({ block: 'center' }));
  const open = await page.$(`${host} button[name=open]`);
  if (open) {
    await open.click();
    await page
      .waitForFunction((h) => document.querySelector(h).translation, host, { timeout: 120000 })
      .catch(() => problems.push(`${where} ${name}: no translation after 120 s`));
  }
  await sleep(500);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const box = await page.$eval(host, (el) => {
    const fig = el.closest('figure') ?? el;
    const prev = fig.previousElementSibling?.tagName === 'P' ? fig.previousElementSibling : null;
    const a = fig.getBoundingClientRect(),
      b = prev?.getBoundingClientRect() ?? a;
    const top = Math.min(a.top, b.top),
      left = Math.min(a.left, b.left);
    const c = fig.querySelector(':scope > figcaption')?.getBoundingClientRect();
    return {
      x: left + scrollX,
      y: top + scrollY,
      width: Math.max(a.right, b.right) - left,
      height: a.bottom - top,
      caption: c ? { x: a.left + scrollX, y: c.top + scrollY - 8, width: a.width, height: c.height + 16 } : null,
    };
  });
  const { caption, ...whole } = box;
  const clip = { ...whole, height: Math.min(whole.height, clipHeight) };
  const type = opts.png ? { type: 'png' } : { type: 'jpeg', quality };
  const captionFile =
    caption && caption.y + caption.height > clip.y + clip.height ? file.replace(/(\.\w+)$/, '-caption$1') : null;
  await page.evaluate(() => {
    for (const o of document.querySelectorAll('body *')) {
      const pos = getComputedStyle(o).position;
      if (pos === 'fixed' || pos === 'sticky') {
        o.dataset.shotHidden = o.style.visibility;
        o.style.visibility = 'hidden';
      }
    }
  });
  await page.screenshot({ path: file, ...type, fullPage: true, clip, animations: 'disabled' });
  if (captionFile)
    await page.screenshot({ path: captionFile, ...type, fullPage: true, clip: caption, animations: 'disabled' });
  await page.evaluate(() => {
    for (const o of document.querySelectorAll('[data-shot-hidden]')) {
      o.style.visibility = o.dataset.shotHidden;
      delete o.dataset.shotHidden;
    }
  });
  let size = 0;
  for (const f of [file, captionFile].filter(Boolean)) {
    size += statSync(f).size;
    console.log(
      `${f}  ${(statSync(f).size / 1024).toFixed(1)} KiB${f === file && whole.height > clipHeight ? `  (clipped from ${Math.round(whole.height)} px)` : ''}`
    );
  }
  return size;
}

const server = await serveDir(path.resolve(opts.dist));
const browser = await launch();
const problems = [];
let total = 0;
try {
  for (const view of VIEWS) {
    const dir = path.join(opts.out, view.dir);
    mkdirSync(dir, { recursive: true });
    const page = await browser.newPage({ width: view.width, height: view.height });
    await openPage(page, `${server.url}?lang=${view.lang}`);
    for (const [i, s] of SECTIONS.entries()) {
      if (wanted && !wanted.has(s.id)) continue;
      const file = path.join(dir, `${String(i + 1).padStart(2, '0')}-${s.id}.jpg`);
      const sel = await sectionSelector(page, s.id, i);
      if (!sel) {
        problems.push(`${view.dir} ${s.id}: no such section on this page`);
        continue;
      }
      await page.$eval(sel, (el) => el.scrollIntoView({ block: 'start' }));
      const pending = await settle(page, sel);
      if (pending.length) problems.push(`${view.dir} ${s.id}: not ready after ${waitMs} ms: ${pending.join(', ')}`);
      if (demoList) {
        for (const d of s.demos.filter((x) => demoList.includes(x))) {
          const f = path.join(dir, `${String(i + 1).padStart(2, '0')}-${s.id}-${d}.${opts.png ? 'png' : 'jpg'}`);
          total += await shootDemo(page, d, f, problems, view.dir);
        }
        continue;
      }
      await page.$eval(sel, (el) => el.scrollIntoView({ block: 'start' }));
      const box = await page.$eval(sel, (el) => {
        const r = el.getBoundingClientRect();
        return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
      });
      const clip = { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, clipHeight) };
      // Fixed and sticky bars outside the section (the page header) would be drawn over it.
      await page.$eval(sel, (el) => {
        for (const o of document.querySelectorAll('body *')) {
          if (el.contains(o) || o.contains(el)) continue;
          const pos = getComputedStyle(o).position;
          if (pos === 'fixed' || pos === 'sticky') {
            o.dataset.shotHidden = o.style.visibility;
            o.style.visibility = 'hidden';
          }
        }
      });
      await page.screenshot({ path: file, type: 'jpeg', quality, fullPage: true, clip, animations: 'disabled' });
      await page.evaluate(() => {
        for (const o of document.querySelectorAll('[data-shot-hidden]')) {
          o.style.visibility = o.dataset.shotHidden;
          delete o.dataset.shotHidden;
        }
      });
      const size = statSync(file).size;
      total += size;
      console.log(
        `${file}  ${(size / 1024).toFixed(1)} KiB${box.height > clipHeight ? `  (clipped from ${Math.round(box.height)} px)` : ''}`
      );
    }
    for (const e of page.errors) problems.push(`${view.dir} console: ${e.slice(0, 300)}`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`total ${(total / 1024 / 1024).toFixed(2)} MiB`);
for (const p of problems) console.log(`note: ${p}`);
