// The phrases task the guide's §6–§8 demos and the shipped transformer-phrases model use writes
// English a reader can read: "an" before a vowel sound ("an urban area", "an economic policy"),
// "a" elsewhere ("a European union"), in the wasm engine the page runs; and the shipped model,
// trained on that task (lengths 2-6, as index.json says), translates the "an" phrases.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNodeApi, releaseEngine } from './engine.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));
const VOWEL_SOUND = new Set(['area', 'agency', 'economic', 'urban']);

test('phrases: "an" before a vowel sound and "a" elsewhere, in both splits', () => {
  const s = engine.createSession({
    task: 'phrases',
    task_options: { n_min: 2, n_max: 12 },
    seed: 4,
    model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1 },
  });
  try {
    const seen = { a: 0, an: 0 };
    for (const split of ['train', 'test']) {
      const ex = s.examples(600, { split, seed: 7 });
      for (const text of ex.srcText) {
        const w = text.split(' ');
        for (let i = 0; i + 1 < w.length; i++) {
          if (w[i] !== 'a' && w[i] !== 'an') continue;
          seen[w[i]]++;
          assert.equal(w[i], VOWEL_SOUND.has(w[i + 1]) ? 'an' : 'a', `"${text}"`);
        }
      }
    }
    assert.ok(seen.an > 20 && seen.a > 200, JSON.stringify(seen));
  } finally {
    s.dispose();
  }
});

test('the shipped phrase model translates "an" phrases: an urban area -> une zone urbaine', () => {
  const file = path.join(root, 'web', 'public', 'models', 'transformer-phrases.safetensors');
  const s = engine.loadSession(new Uint8Array(readFileSync(file)), {
    task: 'phrases',
    task_options: { n_min: 2, n_max: 6 },
  });
  try {
    const ex = s.examples(400, { split: 'test', seed: 11 });
    const picked = [];
    ex.srcText.forEach((t, i) => {
      if (/\ban (urban|economic|area|agency)\b/.test(t) && picked.length < 40) picked.push(i);
    });
    assert.ok(picked.length >= 10, `only ${picked.length} held-out "an" phrases`);
    const out = s.decode(
      picked.map((i) => ex.src[i]),
      { beam: 1 }
    );
    let right = 0;
    picked.forEach((i, k) => {
      if (out[k].join(' ') === ex.tgt[i].join(' ')) right++;
    });
    assert.ok(right >= 0.9 * picked.length, `${right} of ${picked.length} exact`);
  } finally {
    s.dispose();
  }
});
