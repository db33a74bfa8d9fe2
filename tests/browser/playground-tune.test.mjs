// The playground a student tunes: an imported checkpoint switches the playground to its own
// model and task (or is refused with a sentence saying why) and shows its step; the learning
// rate, batch, dropout, optimizer and schedule are controls and share-link keys that reach the
// engine's config; the held-out loss is drawn while it trains; a step button trains one step;
// a kept run stays on the chart beside the next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { unavailable } from '../unavailable.mjs';
import { root, usePage } from './harness.mjs';

const { server, browser } = usePage();

async function openPlayground(hash, { lang = 'en' } = {}) {
  const page = await browser.newPage();
  await page.goto(`${server.url}${lang === 'en' ? '?lang=en' : ''}#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=playground]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 30000 });
  page.pending = (await page.locator('[data-demo=playground]').getAttribute('data-pending')) === '1';
  return page;
}
const pg = (page, fn, arg) => page.evaluate(fn, arg);

test('import: the shipped phrases model under "reverse" switches the playground to its model and task and shows its step', async (t) => {
  const page = await openPlayground('playground.model=rnnsearch&playground.task=reverse&playground.steps=100');
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  await page.waitForSelector('[data-demo=playground] .run-untrained:not([hidden])', { timeout: 30000 });
  await demo
    .locator('[name=import]')
    .setInputFiles(path.join(root, 'web', 'public', 'models', 'transformer-phrases.safetensors'));
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').imported, null, {
    timeout: 60000,
  });
  const { info, metrics } = await pg(page, () => document.querySelector('[data-demo=playground]').imported);
  assert.equal(info.task, 'phrases');
  assert.ok(info.step > 0, `the checkpoint's step: ${info.step}`);
  assert.equal(await demo.locator('select[name=model]').inputValue(), 'transformer');
  assert.equal(await demo.locator('select[name=task]').inputValue(), 'phrases');
  assert.match(new URL(page.url()).hash, /playground\.task=phrases/);
  // measured on its own task: the shipped model is good at it (not 12 nats on another task)
  assert.ok(metrics.loss < 2, `held-out loss on its own task: ${metrics.loss}`);
  const io = await demo.locator('[name=io]').textContent();
  assert.match(
    io,
    /transformer-phrases\.safetensors: [\d,]+ parameters; Transformer, trained [\d,]+ steps on the task “phrases”/
  );
  // the readouts are the imported model's: its step, not the untrained model's
  assert.ok(await demo.locator('.run-untrained').isHidden(), 'the untrained note is gone');
  assert.match(await demo.locator('.run-status').textContent(), new RegExp(`step ${info.step} `));
  assert.match(await demo.locator('[name=metrics]').textContent(), new RegExp(`^Imported model, step ${info.step}:`));
  const chart = await pg(page, () => document.querySelector('[data-demo=playground] .chart-host').chartData);
  assert.ok(chart.data[0].includes(info.step), `the chart has a point at step ${info.step}: ${chart.data[0]}`);
  assert.ok(await demo.locator('[name=export]').isEnabled());
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('import: a checkpoint of a model the playground does not train is refused with a sentence, nothing switches', async (t) => {
  const page = await openPlayground('playground.model=rnnsearch&playground.task=reverse&playground.steps=100', {
    lang: 'ko',
  });
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  await demo
    .locator('[name=import]')
    .setInputFiles(path.join(root, 'web', 'public', 'models', 'lm-moby-dick.safetensors'));
  await page.waitForFunction(
    () => /가져오지 못했습니다/.test(document.querySelector('[data-demo=playground] [name=io]').textContent),
    null,
    { timeout: 60000 }
  );
  const io = await demo.locator('[name=io]').textContent();
  assert.match(io, /“lm” 종류의 모델이라 이 놀이터에서는 학습하지 않습니다/);
  assert.equal(await demo.locator('select[name=model]').inputValue(), 'rnnsearch');
  assert.equal(await demo.locator('select[name=task]').inputValue(), 'reverse');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('tuning: rate, batch, optimizer and schedule from the link reach the engine; the held-out loss is drawn while it trains', async (t) => {
  const page = await openPlayground(
    'playground.model=rnnsearch&playground.task=reverse&playground.steps=150&playground.lr=0.1&playground.batch=16&playground.optimizer=sgd&playground.schedule=noam'
  );
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  for (const [name, value] of Object.entries({ lr: '0.1', batch: '16', optimizer: 'sgd', schedule: 'noam' }))
    assert.equal(await demo.locator(`select[name=${name}]`).inputValue(), value, name);
  assert.match(
    await demo.locator('[name=train-note]').textContent(),
    /SGD with momentum 0\.9.*noam: the rate climbs for 15 steps to 0\.1/
  );
  // every new control is named and at least 24 px
  for (const name of ['lr', 'batch', 'optimizer', 'schedule', 'run-step']) {
    const box = await demo.locator(`[name=${name}]`).boundingBox();
    assert.ok(box.height >= 24 && box.width >= 24, `${name}: ${box.width}×${box.height}`);
  }
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 90000 });
  // the final measure comes after the run is done
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').metrics, null, {
    timeout: 60000,
  });
  const { config, heldOut, chart } = await pg(page, () => {
    const el = document.querySelector('[data-demo=playground]');
    return { config: el.config, heldOut: el.heldOut, chart: el.querySelector('.chart-host').chartData };
  });
  assert.equal(config.train.optimizer, 'sgd');
  assert.equal(config.train.momentum, 0.9);
  assert.equal(config.train.batch, 16);
  assert.equal(config.train.schedule, 'noam');
  assert.equal(config.train.warmup, 15);
  // noam's peak (step = warm-up) is the chosen rate: factor · 64^-0.5 · 15^-0.5 = 0.1
  assert.ok(Math.abs(config.train.lr_factor / Math.sqrt(64 * 15) - 0.1) < 1e-6, `factor ${config.train.lr_factor}`);
  assert.ok(heldOut.length >= 2, `held-out points: ${JSON.stringify(heldOut)}`);
  assert.ok(heldOut[0][0] < 150, 'a held-out point measured before the end');
  assert.equal(heldOut.at(-1)[0], 150);
  assert.deepEqual(chart.labels, ['training loss', 'held-out loss']);
  const metrics = await pg(page, () => document.querySelector('[data-demo=playground]').metrics);
  assert.ok(Math.abs(heldOut.at(-1)[1] - metrics.loss) < 1e-6, 'the last held-out point is the final measure');
  // a control change writes the link
  await demo.locator('select[name=lr]').selectOption('0.03');
  await page.waitForFunction(() => location.hash.includes('playground.lr=0.03'), null, { timeout: 5000 });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('one step at a time, then Start goes on; a kept run stays on the chart beside the next run', async (t) => {
  const page = await openPlayground('playground.model=rnnsearch&playground.task=reverse&playground.steps=50');
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=playground]');
  const losses = () => pg(page, () => document.querySelector('[data-demo=playground]').losses.length);
  await demo.locator('[name=run-step]').click();
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').losses.length === 1, null, {
    timeout: 90000,
  });
  await page.waitForFunction(() => !document.querySelector('[data-demo=playground] [name=run-step]').disabled);
  assert.match(await demo.locator('.run-status').textContent(), /^step 1 \/ 50 /);
  assert.equal(await demo.locator('[name=run-toggle]').textContent(), 'Resume');
  await demo.locator('[name=run-step]').press('Enter'); // keyboard-operable
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').losses.length === 2, null, {
    timeout: 90000,
  });
  await page.waitForFunction(() => !document.querySelector('[data-demo=playground] [name=run-step]').disabled);
  assert.equal(await losses(), 2);
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  assert.equal(await losses(), 50, 'Start trained the other 48 steps');
  assert.ok(await demo.locator('[name=run-step]').isDisabled(), 'a finished run takes no more steps');
  // keep it, change the rate, run again: four curves, the kept ones named with their settings
  await demo.locator('[name=keep-run]').click();
  await demo.locator('select[name=lr]').selectOption('0.003');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  const chart = await pg(page, () => document.querySelector('[data-demo=playground] .chart-host').chartData);
  assert.equal(chart.labels.length, 4);
  assert.match(chart.labels[2], /^training loss, kept run \(learning rate 0\.01 · batch 32 · Adam · constant\)$/);
  const count = (i) => chart.data[i + 1].filter((v) => v !== null).length;
  assert.ok(count(1) >= 1 && count(3) >= 1, 'both runs have held-out points');
  const kept0 = await pg(page, () => document.querySelector('[data-demo=playground]').kept);
  assert.equal(count(2), kept0.points.length, 'every point of the kept run');
  assert.equal(kept0.points.at(-1)[0], 50);
  assert.ok(count(0) >= 2, "the new run's own curve");
  const kept = await pg(page, () => document.querySelector('[data-demo=playground]').kept);
  assert.ok(kept.points.length >= 2);
  await demo.locator('[name=drop-kept]').click();
  assert.equal(
    (await pg(page, () => document.querySelector('[data-demo=playground] .chart-host').chartData)).labels.length,
    2
  );
  assert.deepEqual(page.errors, []);
  await page.close();
});
