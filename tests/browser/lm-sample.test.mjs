// §1 sampling: the generator's bars are the engine's next-word logits reshaped by temperature
// and top-k. Checked against the logits the page shows (el.sampling.logits, from the Worker's
// session.inspect) and, where the node build exists, against the engine called directly: the
// orange bars equal softmax(z/T) over the k largest logits, the drawn word is among those k,
// T = 0 draws the argmax, a seed reproduces the text, and the controls are labelled in both
// languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unavailable } from '../unavailable.mjs';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { shots, root, usePage } from './harness.mjs';
import { loadNodeApi, hasBuild } from '../node/engine.mjs';

const { server, browser } = usePage();

const ckpt = path.join(root, 'web', 'public', 'models', 'lm-moby-dick.safetensors');
const sel = '[data-demo=lm] .lm-sample';

async function open(t, lang, hash = '') {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=${lang}${hash ? `#${hash}` : ''}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=lm]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=lm][data-ready="1"]', { timeout: 30000 });
  if ((await page.locator('[data-demo=lm]').getAttribute('data-pending')) === '1') {
    await page.close();
    unavailable(t, 'engine build without model sessions or no checkpoint');
    return null;
  }
  await page.waitForFunction((s) => document.querySelector(s)?.sampling, sel, { timeout: 30000 });
  return page;
}

// a range input takes its value from script, with the input event a drag would fire
const setRange = (loc, v) =>
  loc.evaluate((el, x) => {
    el.value = x;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, String(v));
const sampling = (page) => page.evaluate((s) => document.querySelector(s).sampling, sel);

// softmax(z/T) over the k largest logits (k = 0: all), as a map id -> p, in plain JS.
function expected(z, T, k) {
  const order = z
    .map((v, i) => [v, i])
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map((x) => x[1]);
  const keep = k ? order.slice(0, k) : order;
  const m = z[keep[0]];
  const e = keep.map((i) => Math.exp((z[i] - m) / T));
  const s = e.reduce((a, b) => a + b, 0);
  return { keep, p: new Map(keep.map((i, j) => [i, e[j] / s])), argmax: order[0] };
}

function checkShown(s) {
  const { keep, p } = expected(s.logits, s.T, s.k);
  const zmax = Math.max(...s.logits);
  const z1 = s.logits.reduce((a, v) => a + Math.exp(v - zmax), 0);
  for (const row of s.shown) {
    assert.ok(Math.abs(row.before - Math.exp(s.logits[row.id] - zmax) / z1) < 1e-6, `before of ${row.token}`);
    assert.ok(
      Math.abs(row.after - (p.get(row.id) ?? 0)) < 1e-6,
      `after of ${row.token}: ${row.after} vs ${p.get(row.id) ?? 0}`
    );
  }
  if (s.sampled) assert.ok(keep.includes(s.sampled.id), `drawn ${s.sampled.token} is in the top-${s.k}`);
}

test('§1 sampling: bars are softmax(z/T) over the top k of the engine’s logits; T = 0 is the argmax; a seed repeats', async (t) => {
  const page = await open(t, 'en', 'lm.prompt=the%20whale&lm.temp=0.8&lm.topk=5&lm.seed=3');
  if (!page) return;
  const box = page.locator(sel);
  // the controls carry their values and labels
  assert.equal(await box.locator('[name=temp]').inputValue(), '0.8');
  assert.equal(await box.locator('[name=topk]').inputValue(), '5');
  assert.equal(await box.locator('[name=seed]').inputValue(), '3');
  for (const [name, label] of [
    ['temp', 'temperature T'],
    ['topk', 'top-k'],
    ['seed', 'seed'],
    ['prompt', 'start with'],
  ])
    assert.match(
      await box.locator(`label:has([name=${name}])`).textContent(),
      new RegExp(label.replace(/[()]/g, '\\$&'))
    );

  let s = await sampling(page);
  assert.equal(s.sampled, null, 'nothing drawn before the first press');
  assert.equal(s.logits.length, 2000);
  checkShown(s);

  // the page's logits are the engine's: the same checkpoint inspected by the node build
  if (hasBuild('wasm') && existsSync(ckpt)) {
    const engine = await loadNodeApi('wasm');
    const session = engine.loadSession(new Uint8Array(readFileSync(ckpt)), {
      task: 'copy',
      task_options: { min_len: 1, max_len: 8, symbols: 10 },
    });
    const ids = [...engine.module.lmScore(new Uint8Array(readFileSync(ckpt)), ['the whale'])[0].ids].slice(0, -1);
    const r = session.inspect([[]], [ids]);
    const z = Array.from(r.logits.subarray((r.T - 1) * r.V, r.T * r.V));
    assert.ok(
      z.every((v, i) => Math.abs(v - s.logits[i]) < 1e-3),
      'page logits = engine logits'
    );
    session.dispose();
  }

  await box.locator('[name=next]').click();
  await page.waitForFunction((q) => document.querySelector(q).sampling?.sampled, sel);
  s = await sampling(page);
  checkShown(s);
  assert.equal(await box.locator('.lm-dist-row.sampled').count(), 1);
  assert.equal(await box.locator('.lm-dist-row.sampled').getAttribute('data-id'), String(s.sampled.id));
  assert.equal((await box.locator('.lm-dist-row').count()) >= 5, true);

  // top-k = 1: only the argmax survives, whatever T
  await box.locator('[name=topk]').fill('1');
  await box.locator('[name=topk]').dispatchEvent('change');
  await page.waitForFunction((q) => document.querySelector(q).sampling.k === 1, sel);
  s = await sampling(page);
  checkShown(s);
  assert.equal(s.sampled.id, expected(s.logits, 1, 0).argmax);

  // T -> 0 (the slider's end): greedy, all probability on the argmax
  await box.locator('[name=topk]').fill('0');
  await box.locator('[name=topk]').dispatchEvent('change');
  await setRange(box.locator('[name=temp]'), 0);
  await page.waitForFunction(
    (q) => document.querySelector(q).sampling.T === 0 && document.querySelector(q).sampling.k === 0,
    sel
  );
  s = await sampling(page);
  const arg = expected(s.logits, 1, 0).argmax;
  assert.equal(s.sampled.id, arg);
  assert.equal(s.shown.find((r) => r.id === arg).after, 1);
  assert.match(await box.locator('.lm-legend').textContent(), /greedy/);

  // T = 1.5, k = 20 then ten more words; the same seed and settings repeat the text
  await setRange(box.locator('[name=temp]'), 1.5);
  await box.locator('[name=topk]').fill('20');
  await box.locator('[name=topk]').dispatchEvent('change');
  await box.locator('[name=restart]').click();
  await page.waitForFunction((q) => {
    const x = document.querySelector(q).sampling;
    return x && !x.sampled && x.k === 20;
  }, sel);
  await box.locator('[name=generate]').click();
  await page.waitForFunction((q) => document.querySelector(q).querySelectorAll('mark.lm-gen').length === 10, sel, {
    timeout: 30000,
  });
  s = await sampling(page);
  checkShown(s);
  const text = s.text;
  assert.match(page.url(), /lm\.temp=1\.5/);
  await box.locator('[name=restart]').click();
  await page.waitForFunction((q) => !document.querySelector(q).sampling.sampled, sel);
  await box.locator('[name=generate]').click();
  await page.waitForFunction((q) => document.querySelector(q).querySelectorAll('mark.lm-gen').length === 10, sel, {
    timeout: 30000,
  });
  assert.equal((await sampling(page)).text, text, 'same seed, same text');
  await box.screenshot({ path: path.join(shots, 'lm-sample-en.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§1 sampling in Korean: labelled controls and the same arithmetic', async (t) => {
  const page = await open(t, 'ko', 'lm.temp=1.2&lm.topk=8');
  if (!page) return;
  const box = page.locator(sel);
  assert.match(await box.locator('label:has([name=temp])').textContent(), /온도 T/);
  assert.match(await box.locator('label:has([name=topk])').textContent(), /top-k/);
  assert.match(await box.locator('[name=next]').textContent(), /다음 단어/);
  await box.locator('[name=next]').click();
  await page.waitForFunction((q) => document.querySelector(q).sampling?.sampled, sel);
  const s = await sampling(page);
  assert.equal(s.T, 1.2);
  assert.equal(s.k, 8);
  checkShown(s);
  assert.match(await box.locator('.lm-legend').textContent(), /T = 1\.20/);
  assert.match(await box.locator('.lm-dist-row.sampled').textContent(), /뽑힘/);
  await box.screenshot({ path: path.join(shots, 'lm-sample-ko.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});
