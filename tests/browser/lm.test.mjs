// §1 language model: the bars are sentence log-probabilities computed by the engine in the
// Worker from the shipped Moby-Dick checkpoint; they equal a direct call of the same engine
// (the node build of the module on the same bytes), the grammatical sentence outscores its
// shuffled words, hovering a bar lists per-token log-probs, and a typed sentence is scored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { shots, root, usePage } from './harness.mjs';
import { loadNodeEngine, hasBuild } from '../node/engine.mjs';
import { unavailable } from '../unavailable.mjs';

const { server, browser } = usePage();

const ckpt = path.join(root, 'web', 'public', 'models', 'lm-moby-dick.safetensors');

test('§1: sentence log-probabilities from the engine, grammatical above shuffled', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${server.url}?lang=en`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=lm]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=lm][data-ready="1"]', { timeout: 30000 });
  if ((await page.locator('[data-demo=lm]').getAttribute('data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions or no checkpoint');
  }
  const demo = page.locator('[data-demo=lm]');
  const first = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=lm]');
    return { scores: el.scores, sentences: el.sentences };
  });
  const [good, shuffled] = first.scores;
  assert.ok(good.total > shuffled.total + 2, `grammatical ${good.total} vs shuffled ${shuffled.total}`);
  for (const s of first.scores) {
    const sum = s.logprobs.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - s.total) < 1e-3 && s.logprobs.every((x) => x < 0), 'per-token log-probs add up');
    assert.equal(s.tokens.at(-1), '</s>');
  }
  assert.equal(await demo.locator('.bar-row').count(), first.sentences.length);
  // each bar says its total and its mean per token (the fair comparison the text recommends)
  const goodText = await demo.locator('.bar-row').first().textContent();
  assert.ok(
    goodText.includes(`log p = ${good.total.toFixed(1)}`) &&
      goodText.includes(`mean ${(good.total / good.logprobs.length).toFixed(2)} per token`),
    goodText
  );

  if (hasBuild('wasm') && existsSync(ckpt)) {
    const mod = await loadNodeEngine('wasm');
    const direct = mod.lmScore(new Uint8Array(readFileSync(ckpt)), first.sentences);
    direct.forEach((d, i) =>
      assert.ok(
        Math.abs(d.total - first.scores[i].total) < 1e-3,
        `sentence ${i}: page ${first.scores[i].total} vs engine ${d.total}`
      )
    );
  }

  await demo.locator('.bar-row').nth(1).hover();
  await page.waitForFunction(() => document.querySelector('[data-demo=lm] .lm-tokens').textContent.includes('sea'));
  assert.equal(await demo.locator('.lm-token').count(), shuffled.tokens.length);

  await demo.locator('[name=text]').fill('the whale is a fish .');
  await page.waitForFunction(() =>
    (document.querySelector('[data-demo=lm]').sentences ?? []).includes('the whale is a fish .')
  );
  const own = await page.evaluate(() => document.querySelector('[data-demo=lm]').scores.at(-1));
  assert.deepEqual(own.tokens, ['the', 'whale', 'is', 'a', 'fish', '.', '</s>']);
  // a word the model never learned is scored, and shown, as <unk>
  await demo.locator('[name=text]').fill('the qzxv is a fish .');
  await page.waitForFunction(() =>
    (document.querySelector('[data-demo=lm]').sentences ?? []).includes('the qzxv is a fish .')
  );
  const unk = await page.evaluate(() => document.querySelector('[data-demo=lm]').scores.at(-1));
  assert.equal(unk.tokens[1], '<unk>');
  await demo.locator('.bar-row').last().hover();
  await page.waitForFunction(() => document.querySelector('[data-demo=lm] .lm-tokens').textContent.includes('<unk>'));
  await demo.locator('[name=text]').fill('the whale is a fish .');
  await page.waitForFunction(() =>
    (document.querySelector('[data-demo=lm]').sentences ?? []).includes('the whale is a fish .')
  );
  assert.match(page.url(), /lm\.text=/);
  await demo.screenshot({ path: path.join(shots, 'lm-scores.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});
