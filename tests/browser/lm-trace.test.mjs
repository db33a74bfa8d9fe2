// §1's trace: one word through the whole language model with the engine's own numbers
// (web/demos/lm/trace.js). Opened from the generator at T = 0, walked step by step with the
// keyboard only (Enter on Next, the arrow keys, Home/End): every step shows a shape label and
// finite numbers, the live region reads it, there are 6 fixed steps and 12 per layer of the
// shipped model, the last step's most likely word is the engine's argmax (the generator's logits,
// which the trace's own last row equals bit for bit, and the word greedy decoding then draws,
// which the trace follows and marks); in Korean the labels are Korean and nothing overflows
// 375 px; axe finds nothing (target size included). Screenshots:
// test-results/screenshots/lm-trace-1280-en.png, -375-ko.png (copied to docs/screenshots/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { unavailable } from '../unavailable.mjs';
import { openDemo, axeDemo, root, shots, usePage } from './harness.mjs';

const { server, browser } = usePage();

// Written under test-results/ (a test run leaves the repository's files as they are); the copies in
// docs/screenshots/ come from here.
const docShots = shots;
const config = JSON.parse(readFileSync(path.join(root, 'web', 'public', 'models', 'index.json'), 'utf8'))[
  'lm-moby-dick'
].config;
const sel = '[data-demo=lm] .lm-sample';
const PROMPT = 'the old captain looked at the whale in the sea';
const HASH = `lm.prompt=${encodeURIComponent(PROMPT)}&lm.temp=0&lm.topk=0&lm.topp=1&lm.seed=1`;

async function open(t, lang, width) {
  const page = await openDemo(browser, server, 'lm', { lang, hash: HASH, width });
  if (page.pending) {
    await page.close();
    unavailable(t, 'engine build without model sessions or no checkpoint');
    return null;
  }
  await page.waitForFunction((s) => document.querySelector(s)?.sampling, sel, { timeout: 30000 });
  return page;
}
const traced = (page) => page.evaluate((s) => document.querySelector(`${s} .lm-trace`).trace, sel);

// Starts the trace from the keyboard (Tab to the button, Enter); focus moves to Next.
async function start(page) {
  const box = page.locator(sel);
  await box.locator('[name=trace]').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((s) => document.querySelector(`${s} .lm-trace`)?.trace, sel, { timeout: 30000 });
  await page.waitForFunction(() => document.activeElement?.classList.contains('tr-next'));
  return box.locator('.lm-trace');
}

// Every step by Enter on Next: a shape label and finite numbers on each; returns their ids.
async function walk(page, tr) {
  const first = await traced(page);
  assert.equal(first.step, 0);
  const ids = [];
  for (let k = 0; k < first.steps; ++k) {
    const s = await traced(page);
    assert.equal(s.step, k);
    ids.push(s.id);
    const shapes = await tr.locator('.tr-shape').allTextContents();
    assert.ok(shapes.length > 0, `step ${k + 1} (${s.id}) shows a shape`);
    for (const sh of shapes) assert.match(sh, /^\[\d+ × \d+\]$/, `step ${k + 1} shape ${sh}`);
    const nums = (await tr.locator('.tr-nums').allTextContents()).join(' ').trim().split(/\s+/);
    assert.ok(nums.length > 0 && nums[0] !== '', `step ${k + 1} shows numbers`);
    for (const x of nums) assert.ok(Number.isFinite(Number(x)), `step ${k + 1} (${s.id}): ${x} is a finite number`);
    for (const f of s.figures)
      assert.ok(
        f.values.every((v) => Number.isFinite(v) || (v === -Infinity && s.id === 'scores')),
        `${f.label}: finite values (−∞ only in the masked scores)`
      );
    const pos = await tr.locator('.tr-pos').textContent();
    assert.ok((await tr.locator('.tr-live').textContent()).startsWith(`${pos}: `), 'the live region reads the step');
    if (k < first.steps - 1) await page.keyboard.press('Enter');
  }
  // at the end Next stays, marked unavailable; ← goes back, Home to the start, End to the end
  assert.equal(await tr.locator('.tr-next').getAttribute('aria-disabled'), 'true');
  await page.keyboard.press('Enter');
  assert.equal((await traced(page)).step, first.steps - 1);
  await page.keyboard.press('ArrowLeft');
  assert.equal((await traced(page)).step, first.steps - 2);
  await page.keyboard.press('Home');
  assert.equal((await traced(page)).step, 0);
  assert.equal(await tr.locator('.tr-prev').getAttribute('aria-disabled'), 'true');
  await page.keyboard.press('End');
  assert.equal((await traced(page)).step, first.steps - 1);
  return ids;
}

test('§1 trace: every step from the keyboard, the argmax at the end (English, 1280 px)', async (t) => {
  const page = await open(t, 'en', 1280);
  if (!page) return;
  const tr = await start(page);
  const s0 = await traced(page);
  assert.equal(s0.layers, config.dec_layers);
  assert.equal(s0.perLayer, 12);
  assert.equal(s0.fixed, 6);
  assert.equal(s0.steps, config.dec_layers * 12 + 6);
  // the first step: the token embedding of "sea", the last word of the prompt, [1 × d_model]
  assert.equal(s0.tokens.length, PROMPT.split(' ').length + 1); // <s> and the words
  assert.equal(s0.figures[0].shape, `[1 × ${config.d_model}]`);
  assert.match(await tr.locator('.tr-what').textContent(), /Token embedding.*“sea”/);
  // the focus ring is visible on Next
  const outline = await tr.locator('.tr-next').evaluate((b) => getComputedStyle(b).outlineStyle);
  assert.notEqual(outline, 'none');

  const ids = await walk(page, tr);
  assert.deepEqual(ids.slice(0, 3), ['embed.token', 'embed.position', 'embed']);
  assert.deepEqual(ids.slice(-3), ['norm', 'logits', 'softmax']);
  const layer = ids.slice(3, 15);
  assert.deepEqual(
    layer,
    config.norm_first
      ? [
          'norm1.pre',
          'qkv',
          'scores',
          'weights',
          'heads',
          'out_proj',
          'add1',
          'norm2.pre',
          'linear1',
          'activation',
          'linear2',
          'add2',
        ]
      : [
          'qkv',
          'scores',
          'weights',
          'heads',
          'out_proj',
          'add1',
          'norm1',
          'linear1',
          'activation',
          'linear2',
          'add2',
          'norm2',
        ]
  );
  // the trace's logits are the generator's (the same engine, the same prefix), bit for bit,
  // and its most likely word is their argmax
  const end = await traced(page);
  const sampling = await page.evaluate((s) => document.querySelector(s).sampling, sel);
  assert.equal(end.sampled, null, 'no word drawn yet: the trace shows what comes next');
  assert.deepEqual(end.logits, sampling.logits);
  const argmax = sampling.logits.reduce((b, z, i, a) => (z > a[b] ? i : b), 0);
  assert.equal(end.argmax, argmax);
  assert.equal(end.top[0].id, argmax);
  assert.match(await tr.locator('.tr-top li').first().textContent(), /most likely/);
  assert.match(await tr.locator('.tr-live').textContent(), new RegExp(`Most likely next word: “${end.top[0].token}”`));

  // greedy decoding (T = 0) draws that word; the trace follows the new step and marks it
  await page.locator(sel).locator('[name=next]').click();
  await page.waitForFunction((s) => document.querySelector(s).sampling?.sampled, sel, { timeout: 30000 });
  const drawn = (await page.evaluate((s) => document.querySelector(s).sampling, sel)).sampled;
  assert.equal(drawn.id, argmax);
  await page.waitForFunction((s) => document.querySelector(`${s} .lm-trace`).trace.sampled !== null, sel);
  const after = await traced(page);
  assert.equal(after.sampled, drawn.id);
  assert.equal(after.argmax, drawn.id);
  assert.equal(after.step, after.steps - 1, 'the step shown stays');
  assert.match(await tr.locator('.tr-top li.tr-argmax').textContent(), /drawn/);

  mkdirSync(docShots, { recursive: true });
  await tr.locator('.tr-prev').focus();
  // back to layer 2's scores, the causal mask in grey
  for (let k = 0; k < 30 && ((await traced(page)).id !== 'scores' || (await traced(page)).layer !== 1); ++k)
    await page.keyboard.press('ArrowLeft');
  assert.equal((await traced(page)).id, 'scores');
  await tr.screenshot({ path: path.join(docShots, 'lm-trace-1280-en.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§1 trace in Korean at 375 px: Korean labels, no overflow, axe clean', async (t) => {
  const page = await open(t, 'ko', 375);
  if (!page) return;
  const tr = await start(page);
  const demo = page.locator('[data-demo=lm]');
  const ids = await walk(page, tr);
  assert.equal(ids.length, config.dec_layers * 12 + 6);
  await page.keyboard.press('Home');
  assert.match(await tr.locator('.tr-what').textContent(), /토큰 임베딩/);
  assert.match(await tr.locator('.tr-pos').textContent(), /단계/);
  assert.match(await tr.locator('.tr-live').textContent(), /단계/);
  assert.match(await tr.locator('.tr-prev').textContent(), /이전 단계/);
  // Q, K and V per head, Korean labels: "Q, 헤드 2: [1 × 16]"
  for (let k = 0; k < 3; ++k) await page.keyboard.press('ArrowRight');
  const s = await traced(page);
  assert.equal(s.id, 'qkv');
  const hs = config.d_model / config.heads;
  assert.equal(s.figures.length, 3 * config.heads);
  const caption = await tr.locator('figcaption').nth(3).textContent();
  assert.equal(caption.trim(), `Q, 헤드 2: [1 × ${hs}]`);
  assert.match(
    await tr.locator('figcaption').nth(4).textContent(),
    new RegExp(`K, 헤드 2: \\[${s.tokens.length} × ${hs}\\]`)
  );
  for (const id of ['scores', 'weights', 'heads', 'out_proj', 'add1', 'norm1']) {
    const over = await demo.evaluate((d) => d.scrollWidth - d.clientWidth);
    assert.ok(over <= 0, `${(await traced(page)).id}: the demo overflows by ${over} px`);
    const page_over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(page_over <= 0, `the page overflows by ${page_over} px`);
    await page.keyboard.press('ArrowRight');
    assert.equal((await traced(page)).id, id);
  }
  // back from the layer norm to the softmax weights, the mask in grey
  for (let k = 0; k < 4; ++k) await page.keyboard.press('ArrowLeft');
  assert.equal((await traced(page)).id, 'weights');
  assert.match(await tr.locator('.note').last().textContent(), /인과 마스크/);
  assert.deepEqual(await axeDemo(page, 'lm', { tags: ['wcag22aa'] }), []); // with target size at phone width
  mkdirSync(docShots, { recursive: true });
  await tr.screenshot({ path: path.join(docShots, 'lm-trace-375-ko.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});
