// The engine's bound on one call's work (cpp/models/cost.hpp), seen from JS: a call whose estimated
// cost exceeds it is refused before any work, as a JS Error carrying the engine's message (the
// call, the cost, the bound and what to ask for instead), directly on the module and through the
// Worker runtime; the session and the module stay usable.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadNodeApi, releaseEngine, root, workerClient } from './engine.mjs';

const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

const REFUSED =
  /this call would take about [\d.]+e\d+ units of work \(.*\), [\d.e]+ times the [\d.]+e\d+ one call may do; /;

// A trained pointer checkpoint (sort, 5-10 points) and the same bytes opened on 1,000-point sets.
function pointerBytes() {
  const s = engine.createSession({
    model: { model: 'pointer', hidden: 32, embed: 32, glimpse: true },
    task: 'sort',
    task_options: { n_min: 5, n_max: 10 },
    seed: 1,
    train: { batch: 8 },
  });
  s.train(2);
  const bytes = s.save();
  s.dispose();
  return bytes;
}
const WIDE = { task_options: { n_min: 5, n_max: 1000 } };

test('a measure far over the bound is refused at once with the engine message', () => {
  const bytes = pointerBytes();
  const s = engine.loadSession(bytes, WIDE);
  const t0 = performance.now();
  assert.throws(
    () => s.evaluate(200, 1),
    (e) =>
      e instanceof Error &&
      e.message.startsWith('evaluate(200): ') &&
      REFUSED.test(e.message) &&
      /evaluate fewer samples \(that many point sets of each size from 5 to 1000 points\)$/.test(e.message)
  );
  const ms = performance.now() - t0;
  assert.equal(s.info().step, 2, 'nothing ran');
  s.dispose();
  // the same checkpoint on its own point sets is measured as before
  const ok = engine.loadSession(bytes);
  const ev = ok.evaluate(20, 1);
  assert.equal(ev.samples, 20 * 6);
  ok.dispose();
  assert.ok(ms < 1000, `the refusal took ${ms} ms`);
});

test('decoding and training too much in one call are refused', () => {
  // the translator's model (the guide's §7), 200 rows of 120 tokens with beam 64
  const tr = engine.loadSession(readFileSync(path.join(root, 'web/public/models/translate-de-en.safetensors')));
  const rows = Array.from({ length: 200 }, () => Array(120).fill(5));
  assert.throws(
    () => tr.decode(rows, { beam: 64 }),
    (e) => /^decode: /.test(e.message) && REFUSED.test(e.message) && /with a smaller beam or max_len$/.test(e.message)
  );
  tr.dispose();
  const s = engine.createSession({
    model: { model: 'transformer', d_model: 128, heads: 8, d_ff: 256, enc_layers: 2, dec_layers: 2 },
    task: 'reverse',
    task_options: { min_len: 3, max_len: 20, symbols: 10 },
    train: { batch: 8 },
  });
  assert.throws(
    () => s.train(100000),
    (e) =>
      /^train\(100000\): /.test(e.message) && REFUSED.test(e.message) && /train fewer steps per call/.test(e.message)
  );
  assert.equal(s.info().step, 0);
  // the session still works
  assert.equal(s.train(1).step, 1);
  assert.equal(s.decode([[3, 4, 5]]).length, 1);
  s.dispose();
});

test('through the Worker runtime the refusal is a rejected promise with the message', async (t) => {
  const { client } = await workerClient(t, engine);
  const s = await client.loadSession(pointerBytes(), WIDE);
  await assert.rejects(
    s.evaluate(200, 1),
    (e) => e instanceof Error && /^evaluate\(200\): /.test(e.message) && REFUSED.test(e.message)
  );
  // the runtime answers the next request
  assert.deepEqual(Array.from(await client.softmax([0, 0])), [0.5, 0.5]);
  await s.dispose();
});
