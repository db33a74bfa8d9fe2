// The model figures in the prose are filled on the page from the models themselves
// (web/demos/common/facts.js): every [data-fact] span gets a value, in both languages, equal to
// what the node side reads from the same checkpoint headers, index.json and demo settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import path from 'node:path';
import { root, usePage } from './harness.mjs';
import { readHeader, modelFacts, resolveFacts, demoFacts, formatFact } from '../../web/demos/common/facts.js';

const { server, browser } = usePage();

const pub = path.join(root, 'web', 'public');
const index = JSON.parse(readFileSync(path.join(pub, 'models', 'index.json'), 'utf8'));
const loaders = {
  async model(name) {
    return modelFacts(
      index[name],
      await readHeader(Readable.toWeb(createReadStream(path.join(pub, index[name].file))))
    );
  },
  demo: demoFacts,
};

for (const lang of ['en', 'ko']) {
  test(`${lang}: every fact in the prose is filled from its model`, async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}?lang=${lang}`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.waitForFunction(
      () => {
        const all = [...document.querySelectorAll('[data-fact]')];
        return all.length > 0 && all.every((s) => s.dataset.filled);
      },
      null,
      { timeout: 30000 }
    );
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('[data-fact]')].map((s) => [s.dataset.fact, s.textContent, s.dataset.filled])
    );
    assert.ok(shown.length >= 10, `${shown.length} facts`);
    const expected = await resolveFacts([...new Set(shown.map((s) => s[0]))], loaders);
    for (const [key, text, filled] of shown) {
      assert.equal(filled, '1', `${key} was filled`);
      assert.equal(text, formatFact(expected[key]), key);
    }
    assert.ok(shown.some(([k, v]) => k === 'model.translate-de-en.d_model' && v === '256'));
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
