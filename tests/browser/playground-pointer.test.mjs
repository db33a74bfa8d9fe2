// The playground's pointer network: a short convex-hull run in the Worker lowers the loss, the
// heatmap is the engine's pointer distributions on one held-out point set (each row a
// distribution over that set's points and the end mark, the argmax of each row the point the
// network chose), the engine's held-out metrics are shown (also on larger sets), the exported
// .safetensors imports back with the same metrics, and the shipped pointer-hull checkpoint
// imports with its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { shots, root, usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

const io = (page) => page.locator('[data-demo=playground] [name=io]').textContent();

test('playground: the pointer network trains on convex hulls, shows its pointer distributions and metrics, and round-trips its weights', async (t) => {
  const page = await browser.newPage();
  // an old link: "reverse" is no pointer task, so the model's first task (convex-hull) is used
  await page.goto(
    `${server.url}?lang=en#playground.model=pointer&playground.task=reverse&playground.size=small&playground.steps=150&playground.seed=1`
  );
  await page.waitForSelector('body[data-ready="1"]');
  const demo = page.locator('[data-demo=playground]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 30000 });
  if ((await demo.getAttribute('data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  assert.equal(await demo.locator('[name=model]').inputValue(), 'pointer');
  assert.equal(await demo.locator('[name=task]').inputValue(), 'convex-hull');
  // the link's invalid task is gone; convex-hull is the pointer model's default, which a link leaves out
  assert.doesNotMatch(new URL(page.url()).hash, /playground\.task=/);
  assert.deepEqual(await demo.locator('[name=task] option').evaluateAll((o) => o.map((x) => x.value)), [
    'convex-hull',
    'tsp',
    'sort',
  ]);

  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').metrics, null, { timeout: 30000 });
  const { losses, map, example, metrics, heat } = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=playground]');
    const h = el.querySelector('al-heatmap');
    return {
      losses: el.losses,
      map: { T: el.map.T, S: el.map.S, order: el.map.order },
      example: el.example,
      metrics: el.metrics,
      heat: { rows: h.rows, cols: h.cols, values: [...h.values], colLabels: h.colLabels },
    };
  });

  // the loss falls: the mean of the last 25 steps against the first 25
  assert.equal(losses.length, 150);
  const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
  const first = mean(losses.slice(0, 25)),
    last = mean(losses.slice(-25));
  assert.ok(last < first - 0.1, `loss ${first.toFixed(3)} -> ${last.toFixed(3)}`);

  // the heatmap: one column per point of the held-out set plus "end", rows are distributions
  assert.equal(example.n, 10);
  assert.equal(heat.cols, example.n + 1);
  assert.equal(heat.colLabels.length, example.n + 1);
  assert.deepEqual(heat.colLabels.slice(0, 3), ['1', '2', '3']);
  assert.deepEqual([heat.rows, heat.cols], [map.T, map.S]);
  assert.ok(
    heat.rows === map.order.length || heat.rows === map.order.length + 1,
    `${heat.rows} rows for ${map.order.length} picks`
  );
  for (let r = 0; r < heat.rows; r++) {
    const row = heat.values.slice(r * heat.cols, (r + 1) * heat.cols);
    assert.ok(Math.abs(mean(row) * row.length - 1) < 1e-3, `row ${r} sums to ${mean(row) * row.length}`);
    const pick = row.indexOf(Math.max(...row));
    assert.equal(
      pick,
      r < map.order.length ? map.order[r] : example.n,
      `row ${r}: the drawn argmax is the chosen point`
    );
  }
  assert.match(
    await demo.locator('[name=example]').textContent(),
    /A held-out convex hull example with 10 inputs\. Exact answer: \d/
  );

  // the engine's held-out metrics, shown
  assert.ok(
    metrics.samples > 0 && metrics.areaCoverage >= 0 && metrics.areaCoverage <= 1 && metrics.sequenceAccuracy >= 0
  );
  assert.match(
    await demo.locator('[name=metrics]').textContent(),
    new RegExp(
      `${metrics.samples} point sets: ${(100 * metrics.sequenceAccuracy).toFixed(1)}% exact hulls, area coverage ${(100 * metrics.areaCoverage).toFixed(1)}%`
    )
  );

  // the same weights measured on larger sets than training saw (11 to 15 points)
  await demo.locator('[name=longer]').click();
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').longer, null, { timeout: 30000 });
  const longer = await page.evaluate(() => document.querySelector('[data-demo=playground]').longer);
  assert.deepEqual(
    Object.keys(longer.metrics.perLength)
      .map(Number)
      .sort((a, b) => a - b),
    [11, 12, 13, 14, 15]
  );
  assert.match(
    await demo.locator('[name=longer-out]').textContent(),
    new RegExp(
      `^With 11 to 15 inputs: Held-out, ${longer.metrics.samples} point sets: ${(100 * longer.metrics.sequenceAccuracy).toFixed(1)}% exact hulls`
    )
  );

  // export, then import back: the same held-out metrics
  const [download] = await Promise.all([page.waitForEvent('download'), demo.locator('[name=export]').click()]);
  const file = path.join(shots, '..', 'playground-pointer.safetensors');
  await download.saveAs(file);
  const bytes = readFileSync(file);
  const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8'));
  assert.equal(JSON.parse(header.__metadata__.attnlab).model, 'pointer');
  await demo.locator('[name=import]').setInputFiles(file);
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').imported, null, { timeout: 30000 });
  const back = await page.evaluate(() => document.querySelector('[data-demo=playground]').imported);
  assert.equal(back.info.task, 'convex-hull');
  assert.deepEqual(back.metrics, metrics);
  assert.match(
    await io(page),
    /playground-pointer\.safetensors: a pointer network for convex hull, \d+ parameters\. Held-out/
  );
  await demo.screenshot({ path: path.join(shots, 'playground-pointer.png') });

  // the shipped checkpoint (trained natively) imports with its own, much better, metrics
  await page.evaluate(() => {
    document.querySelector('[data-demo=playground]').imported = null;
  });
  await demo
    .locator('[name=import]')
    .setInputFiles(path.join(root, 'web', 'public', 'models', 'pointer-hull.safetensors'));
  await page.waitForFunction(() => document.querySelector('[data-demo=playground]').imported, null, { timeout: 30000 });
  const shipped = await page.evaluate(() => document.querySelector('[data-demo=playground]').imported);
  assert.equal(shipped.info.task, 'convex-hull');
  assert.ok(
    shipped.metrics.areaCoverage >= 0.9 && shipped.metrics.sequenceAccuracy > metrics.sequenceAccuracy + 0.3,
    `shipped: ${JSON.stringify(shipped.metrics)}`
  );
  assert.match(
    await io(page),
    new RegExp(`pointer-hull\\.safetensors: .*${(100 * shipped.metrics.sequenceAccuracy).toFixed(1)}% exact hulls`)
  );

  // switching the model back to RNNsearch gives its tasks and a valid hash
  await demo.locator('[name=model]').selectOption('rnnsearch');
  assert.equal(await demo.locator('[name=task]').inputValue(), 'reverse');
  // (both are the defaults, which a link leaves out)
  assert.doesNotMatch(new URL(page.url()).hash, /playground\.(model|task)=/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('playground: the steps field keeps to its limits (50–20,000 in steps of 50) whatever is typed', async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#playground.steps=300`);
  await page.waitForSelector('body[data-ready="1"]');
  const demo = page.locator('[data-demo=playground]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 30000 });
  const steps = demo.locator('input[name=steps]');
  for (const [typed, kept] of [
    ['-5', '50'],
    ['123', '100'],
    ['99999', '20000'],
    ['', '20000'],
    ['1e3', '1000'],
  ]) {
    await steps.fill(typed);
    await steps.dispatchEvent('change');
    await page.waitForFunction(
      ([k]) => document.querySelector('[data-demo=playground] input[name=steps]').value === k,
      [kept]
    );
    assert.match(new URL(page.url()).hash, new RegExp(`playground\\.steps=${kept}\\b`));
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
