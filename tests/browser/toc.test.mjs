// Table-of-contents jumps on a first visit: demos mount while the page scrolls and push the
// sections below them down; the link must still land on its section (top within 40 px of where
// the page's scroll padding puts it, once the page is still), at desktop and phone width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch } from './harness.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

for (const [width, height] of [[1280, 900], [375, 800]]) {
  test(`a table-of-contents link lands on its section on a first visit (${width} px)`, async () => {
    const page = await browser.newPage({ width, height });
    await page.goto(`${server.url}?lang=en`);
    await page.waitForSelector('body[data-ready="1"]');
    for (const id of ['s10', 's04']) {
      await page.click(`#toc a[data-section=${id}]`);
      // still: the section's position unchanged over a second, after the anchoring has ended
      let last = null;
      for (let i = 0; i < 40; i++) {
        await page.waitForTimeout(500);
        const top = await page.evaluate((s) => Math.round(document.getElementById(s).getBoundingClientRect().top), id);
        if (top === last) break;
        last = top;
      }
      // the page keeps a margin for its sticky header (scroll-padding-top)
      const [top, margin] = await page.evaluate((s) => [document.getElementById(s).getBoundingClientRect().top,
        parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0], id);
      assert.ok(Math.abs(top - margin) <= 40, `§ ${id} is ${Math.round(top)} px from the top after the jump (scroll padding ${margin} px)`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
