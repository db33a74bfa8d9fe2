// §1's sampling arithmetic (web/demos/lm/sample.js) against sums written out by hand: the
// reshaped distribution is softmax(z/T) over the k largest logits, T = 0 puts everything on the
// argmax, the inverse-CDF draw follows the cumulative sums, bad settings are refused, and the
// shipped checkpoint's word list is read from its metadata; top-p keeps the smallest likeliest set
// whose mass reaches p; BPE pieces decode into words at ▁ (bytes into UTF-8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unavailable } from '../unavailable.mjs';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { reshape, pick, softmax, ranked, checkpointVocab, decodePieces, isSubword } from '../../web/demos/lm/sample.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const close = (a, b, tol = 1e-12) => assert.ok(Math.abs(a - b) < tol, `${a} vs ${b}`);

test('reshape: softmax(z/T) restricted to the top k, renormalised', () => {
  const z = [1, 3, 2, 0.5];
  const { p, keep } = reshape(z, { T: 0.5, k: 2 });
  assert.deepEqual(keep, [1, 2]);
  const e1 = Math.exp(3 / 0.5),
    e2 = Math.exp(2 / 0.5);
  close(p[1], e1 / (e1 + e2));
  close(p[2], e2 / (e1 + e2));
  assert.equal(p[0], 0);
  assert.equal(p[3], 0);
  // k = 0 keeps all; T = 1 is the plain softmax
  const all = reshape(z, { T: 1, k: 0 }).p,
    plain = softmax(z);
  z.forEach((_, i) => close(all[i], plain[i]));
  close(
    plain.reduce((a, b) => a + b, 0),
    1
  );
});

test('T = 0 is greedy, whatever k; ties rank the lower id first', () => {
  const z = [0.2, 5, 5, -1];
  assert.deepEqual(ranked(z), [1, 2, 0, 3]);
  const g = reshape(z, { T: 0, k: 3 });
  assert.deepEqual(g.keep, [1]);
  assert.equal(g.p[1], 1);
  assert.equal(pick(g, 0.999), 1);
});

test('pick: the first kept token whose cumulative probability passes u', () => {
  const d = reshape([0, Math.log(3)], { T: 1, k: 0 }); // p = [0.25, 0.75], ranked [1, 0]
  assert.equal(pick(d, 0), 1);
  assert.equal(pick(d, 0.74), 1);
  assert.equal(pick(d, 0.76), 0);
});

test('bad settings are refused with a clear error', () => {
  assert.throws(() => reshape([1, 2], { T: -1, k: 0 }), /temperature must be a number >= 0/);
  assert.throws(() => reshape([1, 2], { T: NaN, k: 0 }), /temperature/);
  assert.throws(() => reshape([1, 2], { T: 1, k: 1.5 }), /top-k must be an integer >= 0/);
});

test('checkpointVocab reads the shipped LM word list; garbage gives null', (t) => {
  const f = path.join(root, 'web', 'public', 'models', 'lm-moby-dick.safetensors');
  if (!existsSync(f)) return unavailable(t, 'no shipped LM checkpoint');
  const vocab = checkpointVocab(new Uint8Array(readFileSync(f)));
  assert.equal(vocab.length, 2000);
  assert.deepEqual(vocab.slice(0, 4), ['<pad>', '<s>', '</s>', '<unk>']);
  assert.equal(checkpointVocab(new Uint8Array([1, 2, 3])), null);
});

test('top-p: the fewest likeliest tokens whose probabilities reach p, renormalised; after top-k', () => {
  const z = [Math.log(0.1), Math.log(0.5), Math.log(0.3), Math.log(0.1)]; // softmax = these
  const a = reshape(z, { T: 1, k: 0, p: 0.7 }); // 0.5 < 0.7 <= 0.5 + 0.3
  assert.deepEqual(a.keep, [1, 2]);
  close(a.p[1], 0.5 / 0.8);
  close(a.p[2], 0.3 / 0.8);
  assert.equal(a.p[0] + a.p[3], 0);
  assert.deepEqual(reshape(z, { T: 1, k: 0, p: 0.5 }).keep, [1]); // the mass reaches p exactly
  assert.deepEqual(reshape(z, { T: 1, k: 0, p: 1 }).keep, [1, 2, 0, 3]);
  // top-k first (renormalised over the top 2: 0.625, 0.375), then the nucleus of 0.6
  const b = reshape(z, { T: 1, k: 2, p: 0.6 });
  assert.deepEqual(b.keep, [1]);
  assert.equal(b.p[1], 1);
  assert.throws(() => reshape(z, { T: 1, k: 0, p: 0 }), /top-p must be in \(0, 1\]/);
  assert.throws(() => reshape(z, { T: 1, k: 0, p: 1.5 }), /top-p/);
});

test('decodePieces: BPE pieces join into words at ▁, byte tokens into UTF-8; word tokens with spaces', () => {
  const vocab = [
    '<pad>',
    '<s>',
    '</s>',
    '<unk>',
    '▁Call',
    '▁me',
    '▁Ish',
    'ma',
    'el',
    '.',
    '<0xE2>',
    '<0x98>',
    '<0x83>',
  ];
  assert.equal(isSubword(vocab), true);
  assert.equal(decodePieces(vocab, [1, 4, 5, 6, 7, 8, 9, 2]), 'Call me Ishmael.');
  assert.equal(decodePieces(vocab, [5, 10, 11, 12]), 'me\u2603');
  const words = ['<pad>', '<s>', '</s>', '<unk>', 'the', 'whale', '.'];
  assert.equal(isSubword(words), false);
  assert.equal(decodePieces(words, [4, 5, 3, 6, 2]), 'the whale <unk> .');
});
