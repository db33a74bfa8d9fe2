// Word dropout in the JS session (train.word_dropout with train.unk, the unknown-word id): the
// playground's own-data training uses it through trainBatch. Two sessions of one seed draw the
// same words, a session without it trains on other inputs, a session saved with its optimizer and
// loaded again continues step for step, and a missing id is an Error naming the key.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine } from './engine.mjs';

const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

const config = (p, unk = 3) => ({
  model: {
    model: 'transformer',
    d_model: 16,
    heads: 2,
    d_ff: 32,
    enc_layers: 1,
    dec_layers: 1,
    dropout: 0,
    src_vocab: 12,
    tgt_vocab: 12,
    max_len: 16,
  },
  seed: 9,
  train: { batch: 4, warmup: 10, word_dropout: p, ...(unk === null ? {} : { unk }) },
});
const src = [
    [4, 5, 6, 7],
    [8, 9, 4, 5, 6],
  ],
  tgt = [
    [7, 6, 5, 4],
    [6, 5, 4, 9, 8],
  ];
const steps = (s, n) => Array.from({ length: n }, () => s.trainBatch(src, tgt).losses[0]);

test('word dropout: the same seed draws the same words; without it the inputs differ', () => {
  const a = engine.createSession(config(0.4)),
    b = engine.createSession(config(0.4)),
    c = engine.createSession(config(0));
  const la = steps(a, 5);
  assert.deepEqual(steps(b, 5), la);
  assert.notEqual(steps(c, 1)[0], la[0]);
  for (const s of [a, b, c]) s.dispose();
});

test('word dropout: a session saved with its optimizer continues the run step for step', () => {
  const whole = engine.createSession(config(0.4));
  const all = steps(whole, 6);
  const half = engine.createSession(config(0.4));
  steps(half, 3);
  const again = engine.loadSession(half.save({ optimizer: true }));
  assert.deepEqual(steps(again, 3), all.slice(3));
  for (const s of [whole, half, again]) s.dispose();
});

test('word dropout: without an unknown-word id, or above 0.9, the session is refused with the key named', () => {
  assert.throws(
    () => engine.createSession(config(0.2, null)),
    (e) => e instanceof Error && /train\.word_dropout needs train\.unk/.test(e.message)
  );
  assert.throws(
    () => engine.createSession(config(0.95)),
    (e) => e instanceof Error && /train\.word_dropout must be in \[0, 0\.9\]/.test(e.message)
  );
  assert.throws(() => engine.createSession(config(0.2, 99)), /inside both vocabularies/);
});
