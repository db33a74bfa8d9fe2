// §10 pointer demo: a Ptr-Net trains live in the Worker; clicked points get an answer whose
// polygon is drawn beside the exact hull, with the metrics shown; the exact hull and the area
// coverage agree with a plain-JS computation from the clicked coordinates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { shots, usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

const area = (p, order) =>
  Math.abs(
    order.reduce((s, i, k) => {
      const j = order[(k + 1) % order.length];
      return s + p[i][0] * p[j][1] - p[j][0] * p[i][1];
    }, 0)
  ) / 2;

// The locator's box once two reads 250 ms apart agree.
async function stableBox(locator) {
  let box = await locator.boundingBox();
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const next = await locator.boundingBox();
    if (next && box && ['x', 'y', 'width', 'height'].every((k) => Math.abs(next[k] - box[k]) < 0.5)) return next;
    box = next;
  }
  return box;
}

test('§10: clicked points get the pointer network’s hull, drawn with its metrics', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en#pointer.steps=150`);
  await page.waitForSelector('body[data-ready="1"]');
  const demo = page.locator('[data-demo=pointer]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=pointer][data-ready="1"]', { timeout: 30000 });
  if ((await demo.getAttribute('data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=pointer] .run[data-state=done]', { timeout: 300000 });
  await demo.locator('[name=clear]').click(); // the random set the run answered while training

  const clicks = [
    [0.1, 0.1],
    [0.9, 0.15],
    [0.5, 0.5],
    [0.85, 0.9],
    [0.15, 0.8],
    [0.45, 0.35],
  ];
  for (const [k, [x, y]] of clicks.entries()) {
    // Click where the square is once the page has stopped moving (demos further up may still be
    // mounting and shift it), as a reader aims at what they see.
    const square = demo.locator('.pointer-panel svg').first();
    await square.scrollIntoViewIfNeeded();
    const box = await stableBox(square);
    await page.mouse.click(box.x + x * box.width, box.y + (1 - y) * box.height);
    assert.equal(
      await page.evaluate(() => document.querySelector('[data-demo=pointer]').points.length),
      k + 1,
      `click ${k + 1} adds a point`
    );
  }
  await demo.locator('[name=point]').click();
  await page.waitForFunction(() => document.querySelector('[data-demo=pointer]').answer);
  const { answer, points } = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=pointer]');
    return { answer: el.answer, points: el.points };
  });
  assert.deepEqual([...answer.exact].sort(), [0, 1, 3, 4], 'the exact hull is the four corners');
  assert.ok(answer.order.length >= 1 && answer.order.every((i) => i >= 0 && i < 6));
  answer.order.forEach((i, k) => assert.ok(answer.probs[k][i] > 0 && answer.probs[k][i] <= 1));
  const cover = answer.order.length >= 3 ? area(points, answer.order) / area(points, answer.exact) : 0;
  assert.ok(
    Math.abs(cover - answer.areaCoverage) < 1e-3 || answer.areaCoverage === 0,
    `coverage ${answer.areaCoverage} vs ${cover}`
  );
  assert.match(await demo.locator('.pointer-metrics').textContent(), /held-out point sets/);
  const drawn = await demo.locator('polygon.pointer-answer').getAttribute('points');
  assert.equal(drawn.trim().split(/\s+/).length, answer.order.length);
  assert.equal((await demo.locator('polygon.pointer-exact').getAttribute('points')).trim().split(/\s+/).length, 4);
  assert.match(await demo.locator('.pointer-metrics').textContent(), /area coverage [\d.]+% of the exact hull/);
  await demo.screenshot({ path: path.join(shots, 'pointer-answer.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

// With the shipped checkpoint (npm run models) the demo starts from it: the reader sees where it
// came from, and on the held-out sets the engine measures it is far better than an untrained
// network, whose hulls are almost never exact.
test('§10: the shipped pointer network answers without training here; "untrained" starts over', async (t) => {
  const index = await (await fetch(`${server.url}models/index.json`)).json().catch(() => ({}));
  if (!index['pointer-hull']) return unavailable(t, 'this build ships no pointer-hull checkpoint');
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en`);
  await page.waitForSelector('body[data-ready="1"]');
  const demo = page.locator('[data-demo=pointer]');
  await demo.scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=pointer][data-ready="1"]', { timeout: 30000 });
  if ((await demo.getAttribute('data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  assert.equal(await demo.evaluate((el) => el.start), 'shipped');
  assert.match(
    await demo.locator('.pretrained-host').textContent(),
    /Pre-trained.*attn train --model pointer --task convex-hull --n-min 5 --n-max 20 /s
  );
  const heldOut = async () => {
    await demo.locator('[name=random]').click();
    await demo.evaluate((el) => {
      el.heldOut = null;
      el.answer = null;
    });
    await demo.locator('[name=point]').click();
    await page.waitForFunction(() => document.querySelector('[data-demo=pointer]').answer, null, { timeout: 60000 });
    return demo.evaluate((el) => el.heldOut);
  };
  const trained = await heldOut();
  assert.ok(trained.sequenceAccuracy >= 0.4, `shipped model: held-out exact hulls ${trained.sequenceAccuracy}`);
  assert.ok(trained.areaCoverage >= 0.9, `shipped model: held-out area coverage ${trained.areaCoverage}`);
  await demo.locator('[name=start]').selectOption('fresh');
  await page.waitForFunction(() => document.querySelector('[data-demo=pointer]').start === 'fresh');
  assert.equal((await demo.locator('.pretrained-host').textContent()).trim(), '');
  const fresh = await heldOut();
  assert.ok(
    fresh.sequenceAccuracy < trained.sequenceAccuracy - 0.3,
    `untrained ${fresh.sequenceAccuracy} vs shipped ${trained.sequenceAccuracy}`
  );
  assert.deepEqual(page.errors, []);
  await page.close();
});
