// The guide in the two browser engines besides Chromium: Firefox ESR and WebKitGTK (Safari's
// engine), each installed from Debian (scripts/setup.sh). In each: every section's demo mounts
// with no engine error; the engine runs on several threads wherever the browser offers shared
// memory (the page is served cross-origin isolated) and on one where it does not; a demo trains
// and a reload restores it; a widget of the course-page example trains through start(). WebKit
// runs under the system locale C, whose language tag ('C') Intl refuses: the page must read
// English and mount anyway. An engine that is not installed is reported as skipped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../browser/harness.mjs';
import { openBrowser, missing } from './drivers.mjs';
import { inCI } from '../unavailable.mjs';

let server;
before(async () => {
  server = await startServer({ isolated: true });
});
after(async () => {
  await server?.close();
});

const ERROR = /Engine error|엔진 오류/;

// Every [data-demo] scrolled into view in turn (they mount lazily) until each says data-ready. A
// demo that shows an engine error, or is still not ready after 90 s, fails with what it shows and
// the page's last console lines.
async function mountAll(b) {
  await b.waitFor(() => document.body.dataset.ready === '1', 120000);
  const names = await b.evaluate(() => [...document.querySelectorAll('[data-demo]')].map((e) => e.dataset.demo));
  for (const name of names) {
    await b.evaluate((n) => document.querySelector(`[data-demo="${n}"]`).scrollIntoView(), name);
    // what the demo shows: once it is ready or shows an error (always, with any)
    const state = (n, any) => {
      const d = document.querySelector(`[data-demo="${n}"]`);
      const s = {
        ready: d?.dataset.ready === '1',
        error: /Engine error|엔진 오류/.test(d?.innerText ?? ''),
        data: { ...d?.dataset },
        text: (d?.innerText ?? '').slice(0, 300),
        top: d ? Math.round(d.getBoundingClientRect().top) : null,
      };
      return any || s.ready || s.error ? s : null;
    };
    let s;
    try {
      s = await b.waitFor(state, 90000, name, false);
    } catch (e) {
      s = await b.evaluate(state, name, true).catch((x) => ({ unread: x.message }));
      assert.fail(`${name} did not mount in 90 s: ${JSON.stringify(s)}\n${b.logs().join('\n')}`);
    }
    if (s.error) assert.fail(`${name} shows an engine error: ${JSON.stringify(s)}\n${b.logs().join('\n')}`);
  }
  return names;
}

const ENGINES = [
  { name: 'firefox', env: {} },
  // the system locale C: navigator.language is 'C' in WebKitGTK
  { name: 'webkit', env: { LANG: 'C', LC_ALL: 'C', LANGUAGE: '' } },
];

for (const { name, env } of ENGINES) {
  test(
    `${name}: sections mount, threads, a demo trains and is restored, a widget trains`,
    { timeout: 1200000 },
    async (t) => {
      const lacking = missing(name);
      if (lacking) {
        if (inCI) assert.fail(`${name}: ${lacking} missing (scripts/setup.sh installs it)`);
        return t.skip(`${name} is not installed (${lacking})`);
      }
      const b = await openBrowser(name, { env });
      t.diagnostic(`${name} ${b.version}`);
      try {
        await t.test('every section mounts without an engine error', async () => {
          await b.goto(`${server.url}?lang=en`);
          const names = await mountAll(b);
          assert.ok(names.length >= 15, `${names.length} demos`);
          const page = await b.evaluate(() => ({
            text: document.body.innerText,
            titles: [...document.querySelectorAll('section[id] h2')].map((h) => h.textContent.trim()),
            lang: document.documentElement.lang,
          }));
          assert.doesNotMatch(page.text, ERROR);
          assert.ok(page.titles.length >= 10 && page.titles.every((s) => s.length > 2), JSON.stringify(page.titles));
          assert.equal(page.lang, 'en');
        });

        await t.test('threads wherever the browser offers shared memory', async () => {
          const s = await b.waitFor(() => {
            const badge = document.getElementById('engine-build');
            return badge?.dataset.build
              ? {
                  isolated: globalThis.crossOriginIsolated === true,
                  sab: typeof SharedArrayBuffer,
                  build: badge.dataset.build,
                  text: badge.textContent,
                }
              : null;
          }, 60000);
          t.diagnostic(`${name}: isolated ${s.isolated}, SharedArrayBuffer ${s.sab}, engine ${s.build}: ${s.text}`);
          if (s.isolated && s.sab === 'function') {
            assert.equal(s.build, 'wasm-mt', 'shared memory offered: the pthread engine');
            assert.match(s.text, /\d+ thread/);
          } else assert.notEqual(s.build, 'wasm-mt', 'no shared memory: one thread');
          // Firefox offers it under COOP/COEP; WebKitGTK does not
          if (name === 'firefox') assert.equal(s.build, 'wasm-mt');
        });

        await t.test('the playground trains, and a reload restores the same run', async () => {
          await b.goto('about:blank');
          await b.goto(
            `${server.url}?lang=en#playground.model=rnnsearch&playground.task=reverse&playground.size=small&playground.steps=50`
          );
          await b.waitFor(() => document.body.dataset.ready === '1', 120000);
          await b.evaluate(() => document.querySelector('[data-demo=playground]').scrollIntoView());
          await b.waitFor(() => document.querySelector('[data-demo=playground]')?.dataset.ready === '1', 90000);
          // a stored run from the first subtest's load, if any, is forgotten first
          await b.evaluate(() => document.querySelector('[data-demo=playground] [name=run-reset]')?.click());
          await b.waitFor(() => document.querySelector('[data-demo=playground] .run')?.dataset.state === 'idle', 30000);
          await b.evaluate(() => document.querySelector('[data-demo=playground] [name=run-toggle]').click());
          await b.waitFor(
            () => document.querySelector('[data-demo=playground] .run')?.dataset.state === 'done',
            600000
          );
          const before = await b.evaluate(() => {
            const d = document.querySelector('[data-demo=playground]');
            return {
              step: Number(d.querySelector('.run progress').value),
              status: d.querySelector('.run-status').textContent,
              text: d.innerText,
            };
          });
          assert.equal(before.step, 50);
          assert.doesNotMatch(before.text, ERROR);
          // the finished run is in IndexedDB before the reload (a busy machine stores it late)
          await b.waitFor(() => document.querySelector('[data-demo=playground] .run')?.dataset.kept === '50', 60000);
          await b.reload();
          await b.waitFor(() => document.body.dataset.ready === '1', 120000);
          await b.evaluate(() => document.querySelector('[data-demo=playground]').scrollIntoView());
          await b.waitFor(
            () => document.querySelector('[data-demo=playground] .run')?.dataset.state === 'done',
            120000
          );
          const again = await b.evaluate(() => {
            const d = document.querySelector('[data-demo=playground]');
            return {
              step: Number(d.querySelector('.run progress').value),
              status: d.querySelector('.run-status').textContent,
              restored: getComputedStyle(d.querySelector('.run-restored')).display !== 'none',
            };
          });
          assert.equal(again.step, 50);
          assert.equal(again.status, before.status);
          assert.equal(again.restored, true, 'the restored note shows');
        });

        await t.test('a widget of the course-page example trains through start()', async () => {
          await b.goto(`${server.url}examples/embed/index.html`);
          await b.waitFor(() => {
            const w = [...document.querySelectorAll('attnlab-demo')];
            return w.length === 4 && w.every((x) => x.dataset.ready === '1');
          }, 120000);
          const got = await b.evaluate(
            () =>
              new Promise((resolve, reject) => {
                const w = document.getElementById('w-align');
                if (w.dataset.pending === '1') return resolve({ pending: true });
                const seen = [];
                w.addEventListener('progress', (e) => {
                  seen.push(e.detail);
                  if (seen.length === 3) resolve({ seen, text: w.innerText });
                });
                Promise.resolve(w.start()).catch((e) => reject(e));
                setTimeout(() => reject(new Error(`${seen.length} progress events in 240 s`)), 240000);
              })
          );
          assert.ok(!got.pending, 'the alignment widget mounted its demo');
          assert.equal(got.seen.length, 3);
          for (const p of got.seen) assert.ok(p.step > 0 && Number.isFinite(p.loss), JSON.stringify(p));
          assert.ok(got.seen[2].step > got.seen[0].step);
          assert.doesNotMatch(got.text, ERROR);
        });
      } finally {
        await b.close();
      }
    }
  );
}
