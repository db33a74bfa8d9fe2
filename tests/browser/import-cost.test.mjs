// A crafted pointer checkpoint whose point sets reach 1,000 points used to hold the page's shared
// engine Worker for minutes while the playground measured it (every other demo waiting, then out
// of memory). The engine estimates the measure's cost from the checkpoint's config and refuses it
// before any work (cpp/models/cost.hpp); the playground words its numbers for the reader and the
// Worker stays free.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

test('a pointer checkpoint of 1,000-point sets is refused at once, and the engine stays free', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#playground.model=pointer&playground.task=sort&playground.size=small`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const demo = page.locator('[data-demo=playground]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 60000 });
  if ((await demo.getAttribute('data-pending')) === '1') return unavailable(t, 'engine build without model sessions');
  // a real pointer checkpoint (sort, 5-10 points), its header's n_max rewritten to 1,000
  const bytes = await page.evaluate(async () => {
    const engine = await window.attnlab.engine();
    const s = await engine.createSession({
      model: { model: 'pointer', hidden: 32, embed: 32, glimpse: true },
      task: 'sort',
      task_options: { n_min: 5, n_max: 10 },
      seed: 1,
      train: { batch: 8 },
    });
    await s.train(2);
    const b = await s.save();
    await s.dispose();
    const n = Number(new DataView(b.buffer, b.byteOffset).getBigUint64(0, true));
    const text = new TextDecoder().decode(b.subarray(8, 8 + n));
    const edited = text.replace(/(\\?"n_max\\?":)10\b/g, (_, k) => `${k}1000`);
    if (edited === text) throw new Error('no n_max in the checkpoint header');
    const header = new TextEncoder().encode(edited);
    const out = new Uint8Array(8 + header.length + (b.length - 8 - n));
    new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
    out.set(header, 8);
    out.set(b.subarray(8 + n), 8 + header.length);
    return Array.from(out);
  });
  const started = Date.now();
  await demo.locator('[name=import]').setInputFiles({
    name: 'crafted.safetensors',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(bytes),
  });
  await page.waitForFunction(
    () => /take too long/.test(document.querySelector('[data-demo=playground] [name=io]')?.textContent ?? ''),
    null,
    { timeout: 20000 }
  );
  const io = await demo.locator('[name=io]').textContent();
  assert.match(
    io,
    /crafted\.safetensors could not be imported \(measuring it here would take too long: .*1000 points with 32 hidden units, about [\d,.]+ times the most the engine does in one call/
  );
  assert.ok(Date.now() - started < 20000);
  // the shared Worker answers at once
  const ms = await page.evaluate(async () => {
    const t0 = performance.now();
    await (await window.attnlab.engine()).softmax([1, 2, 3]);
    return performance.now() - t0;
  });
  assert.ok(ms < 2000, `the engine answered after ${ms} ms`);
  await page.close();
});

test("a checkpoint's header is read in the Worker: the page's thread parses none of it", async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#playground.model=transformer&playground.task=reverse&playground.size=small`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const demo = page.locator('[data-demo=playground]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 60000 });
  // a real checkpoint whose JSON header is padded with 12 MB of spaces (under the engine's 16 MiB)
  const small = await page.evaluate(async () => {
    const engine = await window.attnlab.engine();
    const s = await engine.createSession({
      model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1 },
      task: 'reverse',
      seed: 1,
    });
    await s.train(2);
    const b = await s.save();
    await s.dispose();
    return Array.from(b);
  });
  const b = Buffer.from(small);
  const n = Number(b.readBigUInt64LE(0));
  const pad = 12 << 20;
  const bytes = Buffer.alloc(b.length + pad, 0x20);
  bytes.writeBigUInt64LE(BigInt(n + pad), 0);
  b.copy(bytes, 8, 8, 8 + n);
  b.copy(bytes, 8 + n + pad, 8 + n);
  // from here on, the longest string the page's thread decodes or parses
  await page.evaluate(() => {
    window.__longest = 0;
    const parse = JSON.parse;
    JSON.parse = function (text, ...rest) {
      window.__longest = Math.max(window.__longest, String(text).length);
      return parse.call(this, text, ...rest);
    };
    const decode = TextDecoder.prototype.decode;
    TextDecoder.prototype.decode = function (input, ...rest) {
      window.__longest = Math.max(window.__longest, input?.byteLength ?? 0);
      return decode.call(this, input, ...rest);
    };
  });
  const before = await demo.locator('[name=io]').textContent();
  await demo.locator('[name=import]').setInputFiles({
    name: 'padded.safetensors',
    mimeType: 'application/octet-stream',
    buffer: bytes,
  });
  await page.waitForFunction(
    (b) => (document.querySelector('[data-demo=playground] [name=io]')?.textContent ?? b) !== b,
    before,
    { timeout: 120000 }
  );
  const io = await demo.locator('[name=io]').textContent();
  assert.doesNotMatch(io, /could not be imported/, io);
  const longest = await page.evaluate(() => window.__longest);
  assert.ok(longest < 1 << 20, `the page's thread parsed ${longest} characters`);
  await page.close();
});
