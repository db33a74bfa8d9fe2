// Model demos in the browser, trained or loaded in the engine's Worker: the Bahdanau widget
// trains RNNsearch live and the attention mass on the gold alignment rises well above chance,
// and on dates it shows the engine's held-out alignment error rate, which falls, for RNNsearch
// and, through the score control, for Luong attention;
// the shipped Transformer loads for §6–§7 with its pre-trained note, rows of its attention sum
// to 1 and the decoder's self-attention is causal; the playground trains, exports its weights as
// .safetensors and imports them back. Skipped only when the engine build has no
// model sessions (then those demos show their pending note, checked in page.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { shots, usePage } from './harness.mjs';
import { loadNodeApi, releaseEngine, hasBuild } from '../node/engine.mjs';
import { HELD_OUT, sessionConfig } from '../../web/demos/bahdanau/config.js';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

async function openDemo(name, hash = '') {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator(`[data-demo="${name}"]`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 30000 });
  page.pending = (await page.locator(`[data-demo="${name}"]`).getAttribute('data-pending')) === '1';
  return page;
}

test('Bahdanau widget: RNNsearch trains live and the mass on the gold alignment rises', async (t) => {
  const page = await openDemo('bahdanau', 'bahdanau.task=reverse&bahdanau.steps=1500');
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=bahdanau]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction(
    () => (document.querySelector('[data-demo=bahdanau]').curve ?? []).some((p) => p.gold !== null),
    null,
    { timeout: 20000 }
  );
  const first = await page.evaluate(() =>
    document.querySelector('[data-demo=bahdanau]').curve.find((p) => p.gold !== null)
  );
  // the alignment is recognisable before the run's 1500 steps end (the bound is a hang bound: a
  // loaded machine only takes longer to get there)
  await page.waitForFunction(
    () => {
      const el = document.querySelector('[data-demo=bahdanau]');
      const g = (el.curve ?? []).filter((p) => p.gold !== null);
      return (g.length > 1 && g.at(-1).gold > 0.6) || el.querySelector('.run').dataset.state === 'done';
    },
    null,
    { timeout: 180000 }
  );
  // pause, unless the run has just ended (its toggle is then disabled)
  await page.evaluate(() => {
    const run = document.querySelector('[data-demo=bahdanau] .run');
    if (['running', 'training'].includes(run.dataset.state)) run.querySelector('[name=run-toggle]').click();
  });
  const curve = await page.evaluate(() => document.querySelector('[data-demo=bahdanau]').curve);
  const golds = curve.filter((p) => p.gold !== null);
  const a = await page.evaluate(() => document.querySelector('[data-demo=bahdanau]').alignment);
  const trace = golds.map((p) => `${p.step}:${p.gold.toFixed(3)}`).join(' ');
  assert.ok(golds.at(-1).gold > first.gold + 0.2, `gold mass by step: ${trace}`);
  assert.ok(golds.at(-1).gold > 3 / a.S, `above chance (${1 / a.S}): gold by step ${trace}`);
  for (let i = 0; i < a.T; i++) {
    const s = a.weights.slice(i * a.S, (i + 1) * a.S).reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(s - 1) < 1e-3, `row ${i} sums to ${s}`);
  }
  const losses = curve.filter((p) => p.loss !== null).map((p) => p.loss);
  assert.ok(losses.at(-1) < losses[0], 'loss fell');
  assert.match(await demo.locator('.run').getAttribute('data-state'), /paused|done/);
  await demo.screenshot({ path: path.join(shots, 'bahdanau-trained.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("Bahdanau widget on dates: the held-out alignment error rate shown is the engine's and falls", async (t) => {
  const steps = 200;
  const page = await openDemo('bahdanau', `bahdanau.task=dates&bahdanau.steps=${steps}`);
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=bahdanau]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=done]', { timeout: 40000 });
  const { curve, evaluation } = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=bahdanau]');
    return { curve: el.curve, evaluation: el.evaluation };
  });
  const aers = curve.filter((p) => p.aer !== null);
  assert.equal(evaluation.step, steps);
  assert.equal(evaluation.samples, HELD_OUT.samples);
  assert.ok(aers[0].aer > evaluation.aer + 0.2, `aer ${aers[0].aer} -> ${evaluation.aer}`);
  assert.match(
    await demo.locator('[name=metric]').textContent(),
    new RegExp(
      `^Step ${steps}: alignment error rate ${evaluation.aer.toFixed(3)} on ${HELD_OUT.samples} held-out examples`
    )
  );
  // the same run on the same build and thread count in node gives the same number
  const { isolated, hw } = await page.evaluate(() => ({
    isolated: crossOriginIsolated,
    hw: navigator.hardwareConcurrency,
  }));
  const build = isolated ? 'wasm-mt' : 'wasm';
  if (hasBuild(build)) {
    const engine = await loadNodeApi(build, { threads: Math.max(1, Math.min(8, hw || 4)) });
    const s = engine.createSession(sessionConfig('dates', 1));
    s.train(steps);
    const direct = s.evaluate(HELD_OUT.samples, HELD_OUT.seed);
    assert.ok(Math.abs(direct.aer - evaluation.aer) < 1e-9, `page ${evaluation.aer} vs engine ${direct.aer}`);
    s.dispose();
    releaseEngine(engine);
  }
  await demo.screenshot({ path: path.join(shots, 'bahdanau-dates.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Bahdanau widget: the score control switches to Luong attention, which trains, aligns and is scored', async (t) => {
  const steps = 200;
  const page = await openDemo('bahdanau', `bahdanau.task=dates&bahdanau.steps=${steps}`);
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=bahdanau]');
  assert.match(await demo.locator('[name=score-note]').textContent(), /^Bahdanau et al\. \(2015\)/);
  await demo.locator('select[name=score]').selectOption('dot');
  await page.waitForFunction(() => location.hash.includes('bahdanau.score=dot'), null, { timeout: 5000 });
  assert.match(
    await demo.locator('[name=score-note]').textContent(),
    /^Luong et al\. \(2015\), global attention, dot score/
  );
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=done]', { timeout: 60000 });
  const { curve, evaluation, alignment } = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=bahdanau]');
    return { curve: el.curve, evaluation: el.evaluation, alignment: el.alignment };
  });
  assert.equal(evaluation.step, steps);
  const aers = curve.filter((p) => p.aer !== null);
  assert.ok(aers[0].aer > evaluation.aer + 0.2, `aer ${aers[0].aer} -> ${evaluation.aer}`);
  assert.match(
    await demo.locator('[name=metric]').textContent(),
    new RegExp(`^Step ${steps}: alignment error rate ${evaluation.aer.toFixed(3)}`)
  );
  assert.ok(alignment.T > 0 && alignment.S > 0);
  for (let i = 0; i < alignment.T; i++) {
    const s = alignment.weights.slice(i * alignment.S, (i + 1) * alignment.S).reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(s - 1) < 1e-3, `row ${i} sums to ${s}`);
  }
  // the page trained the luong kind: the same run in node gives the same number
  const { isolated, hw } = await page.evaluate(() => ({
    isolated: crossOriginIsolated,
    hw: navigator.hardwareConcurrency,
  }));
  const build = isolated ? 'wasm-mt' : 'wasm';
  if (hasBuild(build)) {
    const engine = await loadNodeApi(build, { threads: Math.max(1, Math.min(8, hw || 4)) });
    const s = engine.createSession(sessionConfig('dates', 1, 'dot'));
    assert.equal(s.info().config.model, 'luong');
    s.train(steps);
    const direct = s.evaluate(HELD_OUT.samples, HELD_OUT.seed);
    assert.ok(Math.abs(direct.aer - evaluation.aer) < 1e-9, `page ${evaluation.aer} vs engine ${direct.aer}`);
    s.dispose();
    releaseEngine(engine);
  }
  await demo.screenshot({ path: path.join(shots, 'bahdanau-luong.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('§6/§7: the shipped Transformer loads with its pre-trained note; causal decoder self-attention', async (t) => {
  const page = await openDemo('self-attention');
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions or checkpoint');
  }
  const sa = page.locator('[data-demo=self-attention]');
  assert.match(await sa.locator('.pretrained').textContent(), /Pre-trained.*attn train/s);
  const sel = await page.evaluate(() => document.querySelector('[data-demo=self-attention]').selected);
  assert.ok(Math.abs(sel.row.reduce((x, y) => x + y, 0) - 1) < 1e-3);
  await sa.locator('.tokens button').nth(0).click();
  await page.waitForFunction(() => document.querySelector('[data-demo=self-attention]').selected.token === 0);
  await page.locator('[data-demo=decoder]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=decoder][data-ready="1"]', { timeout: 30000 });
  const d = await page.evaluate(() => document.querySelector('[data-demo=decoder]').decoded);
  assert.ok(d.out.length > 0, 'greedy decoding produced tokens');
  for (let i = 0; i < d.T; i++)
    for (let j = i + 1; j < d.T; j++) assert.equal(d.self[i * d.T + j], 0, `future weight ${i},${j}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('playground: the Transformer trains with the chosen width C, heads H and longest source', async (t) => {
  const page = await openDemo(
    'playground',
    'playground.model=transformer&playground.task=reverse&playground.width=16&playground.heads=4&playground.srclen=15&playground.steps=50'
  );
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  assert.equal(await demo.locator('[name=width]').inputValue(), '16');
  assert.equal(await demo.locator('[name=heads]').inputValue(), '4');
  assert.equal(await demo.locator('[name=srclen]').inputValue(), '15');
  assert.match(await demo.locator('[name=dk]').textContent(), /d_k = C\/H = 4$/);
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').map, null, { timeout: 20000 });
  const { config, map } = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=playground]');
    return { config: el.config, map: el.map };
  });
  assert.deepEqual(
    [config.model.d_model, config.model.heads, config.model.d_ff, config.task_options.max_len],
    [16, 4, 32, 15]
  );
  assert.equal(map.H, 4, 'the engine returned cross-attention with the chosen 4 heads');
  // A size is a preset of C and H; the recurrent model has neither; dates have no length option.
  await demo.locator('[name=size]').selectOption('medium');
  assert.deepEqual(
    [await demo.locator('[name=width]').inputValue(), await demo.locator('[name=heads]').inputValue()],
    ['64', '4']
  );
  assert.match(await demo.locator('[name=dk]').textContent(), /= 16$/);
  // the link keeps the size; C and H are the size's own, so it leaves them out
  assert.match(new URL(page.url()).hash, /playground\.size=medium/);
  assert.doesNotMatch(new URL(page.url()).hash, /playground\.(width|heads)=/);
  await demo.locator('[name=model]').selectOption('rnnsearch');
  assert.ok((await demo.locator('[name=width]').isHidden()) && (await demo.locator('[name=heads]').isHidden()));
  assert.ok(await demo.locator('[name=srclen]').isVisible());
  await demo.locator('[name=task]').selectOption('dates');
  assert.ok(await demo.locator('[name=srclen]').isHidden());
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('playground: trains a small RNNsearch, exports .safetensors and imports it back', async (t) => {
  const page = await openDemo(
    'playground',
    'playground.model=rnnsearch&playground.task=reverse&playground.size=small&playground.steps=60'
  );
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  const [download] = await Promise.all([page.waitForEvent('download'), demo.locator('[name=export]').click()]);
  const file = path.join(shots, '..', 'playground.safetensors');
  await download.saveAs(file);
  const { readFileSync } = await import('node:fs');
  const bytes = readFileSync(file);
  const headerLen = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLen).toString('utf8'));
  assert.ok(Object.keys(header).length > 5, 'safetensors header lists the tensors');
  await demo.locator('[name=import]').setInputFiles(file);
  await page.waitForFunction(
    () =>
      /playground\.safetensors: \d+ parameters/.test(
        document.querySelector('[data-demo=playground] [name=io]').textContent
      ),
    null,
    { timeout: 30000 }
  );
  // a file that is not a checkpoint: a sentence that names it and says what to pick, cleared by Reset
  await demo
    .locator('[name=import]')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not weights') });
  await page.waitForFunction(
    () =>
      /notes\.txt could not be imported \(.+\)\. Pick a \.safetensors file/.test(
        document.querySelector('[data-demo=playground] [name=io]').textContent
      ),
    null,
    { timeout: 30000 }
  );
  await demo.locator('[name=run-reset]').click();
  await page.waitForFunction(() => document.querySelector('[data-demo=playground] [name=io]').textContent === '');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('playground: its model list comes from the registry; Luong attention trains and exports', async (t) => {
  const page = await openDemo(
    'playground',
    'playground.model=luong&playground.task=reverse&playground.size=small&playground.steps=60'
  );
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  const models = await demo.locator('select[name=model] option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(models, ['transformer', 'rnnsearch', 'luong', 'pointer']);
  assert.equal(await demo.locator('select[name=model]').inputValue(), 'luong');
  assert.equal(
    await demo.locator('select[name=model] option[value=luong]').textContent(),
    'Luong attention (general score)'
  );
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  const [download] = await Promise.all([page.waitForEvent('download'), demo.locator('[name=export]').click()]);
  const file = path.join(shots, '..', 'playground-luong.safetensors');
  await download.saveAs(file);
  const { readFileSync } = await import('node:fs');
  const bytes = readFileSync(file);
  const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8'));
  assert.equal(JSON.parse(header.__metadata__.attnlab).model, 'luong');
  assert.ok('combine.W' in header, "the luong kind's own parameters");
  assert.deepEqual(page.errors, []);
  await page.close();
});
