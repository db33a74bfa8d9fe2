// The shipped German→English translator (web/public/models/translate-de-en.safetensors) in the
// wasm engine against the native engine: tests/fixtures/translate-de-en-parity.jsonl holds what
// `attn translate --input test.tsv --limit 100 --beam 4` printed for the same file (written by
// experiments/translator.mjs); the wasm engine must give the same tokens and text for every one of
// the 100 sentences, from the same source pieces. Also: the text API (encodeText, decodeText,
// pieces, translate) and its errors on a model without a text vocabulary, and translate()'s
// record of its beam search ({trace: true}), which leaves the output as it is.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadNodeApi, releaseEngine, root } from './engine.mjs';

const model = readFileSync(path.join(root, 'web', 'public', 'models', 'translate-de-en.safetensors'));
const fixture = readFileSync(path.join(root, 'tests', 'fixtures', 'translate-de-en-parity.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const examples = JSON.parse(
  readFileSync(path.join(root, 'web', 'public', 'models', 'translate-de-en.examples.json'), 'utf8')
);
const index = JSON.parse(readFileSync(path.join(root, 'web', 'public', 'models', 'index.json'), 'utf8'))[
  'translate-de-en'
];

const engine = await loadNodeApi('wasm');
const session = engine.loadSession(model);
after(() => {
  session.dispose();
  releaseEngine(engine);
});

test('the shipped translator is the one index.json describes, and small enough for the page', () => {
  const info = session.info();
  assert.deepEqual(info.vocabulary, { kind: 'bpe', size: info.srcVocab });
  const n = Number(model.readBigUInt64LE(0));
  const header = JSON.parse(model.subarray(8, 8 + n).toString('utf8'));
  const stored = Object.entries(header)
    .filter(([k]) => k !== '__metadata__')
    .reduce((sum, [, t]) => sum + t.shape.reduce((a, c) => a * c, 1), 0);
  assert.equal(stored, index.params, 'index.json counts the parameters the file holds');
  assert.equal(header['generator.weight'], undefined, 'the tied generator is stored once');
  assert.equal(model.length, index.bytes);
  assert.ok(model.length <= 16 * 2 ** 20, `${model.length} bytes`);
  assert.equal(fixture.length, 100);
});

test("wasm beam search (4) gives native attn translate's tokens for the first 100 test sentences", () => {
  const differ = [];
  fixture.forEach((want, i) => {
    const de = want.source;
    if (i < examples.pairs.length)
      assert.equal(de, examples.pairs[i].de, "the page's examples are the test split's first pairs");
    const src = session.encodeText(de);
    assert.deepEqual(Array.from(src), want.src, `sentence ${i}: source pieces`);
    const out = Array.from(session.decode([src], { beam: 4, alpha: 0.6, maxLen: 2 * src.length + 10 })[0]);
    if (JSON.stringify(out) !== JSON.stringify(want.tokens))
      differ.push({ i, de, wasm: session.decodeText(out), native: want.text });
    else assert.equal(session.decodeText(out), want.text);
  });
  assert.deepEqual(differ, [], `${differ.length} of 100 translations differ from the native engine`);
});

test("translate() returns the text, the BPE pieces and every layer's cross-attention, rows summing to 1", () => {
  const cfg = session.info().config;
  const r = session.translate(examples.pairs[0].de, { beam: 4 });
  const want = fixture[0];
  assert.deepEqual(Array.from(r.out.ids), want.tokens);
  assert.equal(r.text, want.text);
  assert.equal(r.src.pieces.length, r.src.ids.length);
  assert.equal(r.src.pieces.join('').replace(/▁/g, ' ').trim(), examples.pairs[0].de.trim().replace(/\s+/g, ' '));
  assert.equal(r.cross.length, cfg.dec_layers);
  for (const m of r.cross) {
    assert.match(m.name, /^decoder\.layers\.\d+\.multihead_attn$/);
    assert.equal(m.H, cfg.heads);
    assert.equal(m.T, r.out.ids.length + 1);
    assert.equal(m.S, r.src.ids.length);
    for (let h = 0; h < m.H; h++)
      for (let t = 0; t < m.T; t++) {
        let sum = 0;
        for (let s = 0; s < m.S; s++) sum += m.weights[(h * m.T + t) * m.S + s];
        assert.ok(Math.abs(sum - 1) < 1e-4, `layer ${m.name} head ${h} row ${t} sums to ${sum}`);
      }
  }
  // greedy is the beam-1 search
  const g = session.translate(examples.pairs[0].de, { beam: 1 });
  assert.deepEqual(
    Array.from(g.out.ids),
    Array.from(session.decode([g.src.ids], { maxLen: 2 * g.src.ids.length + 10 })[0])
  );
});

test('translate() with {trace: true}: the same output, and the search that found it, step by step', () => {
  for (const [i, beam] of [
    [0, 4],
    [1, 2],
    [2, 8],
  ]) {
    const de = fixture[i].source;
    const plain = session.translate(de, { beam });
    const r = session.translate(de, { beam, trace: true });
    assert.deepEqual(Array.from(r.out.ids), Array.from(plain.out.ids), `sentence ${i}, beam ${beam}`);
    if (beam === 4) assert.deepEqual(Array.from(r.out.ids), fixture[i].tokens);
    const { trace } = r;
    assert.equal(trace.beam, beam);
    assert.ok(Math.abs(trace.alpha - 0.6) < 1e-6);
    assert.equal(trace.path.length, trace.winner.step + 1);
    // the winner's path: parents chain back to step 0, its last candidate's text is the output
    const won = trace.steps[trace.winner.step][trace.winner.index];
    assert.equal(won.text, r.text);
    assert.notEqual(won.status, 'pruned');
    trace.path.forEach((j, s) => {
      const c = trace.steps[s][j];
      if (s > 0) {
        const kept = trace.steps[s - 1].map((x, k) => (x.status === 'kept' ? k : -1)).filter((k) => k >= 0);
        assert.equal(kept[c.parent], trace.path[s - 1]);
      }
      // the path spells the output, then </s> when the winner finished
      if (s < r.out.ids.length) assert.equal(c.token, r.out.ids[s]);
      else assert.equal(c.piece, '</s>');
    });
    for (const [s, step] of trace.steps.entries()) {
      const count = (st) => step.filter((c) => c.status === st).length;
      assert.ok(count('kept') <= beam);
      assert.equal(count('pruned'), beam);
      for (const c of step) {
        assert.ok(Number.isFinite(c.logp) && c.logp < 0);
        assert.ok(Math.abs(c.score - c.logp / ((5 + s + 1) / 6) ** 0.6) < 1e-6 * Math.abs(c.score));
      }
    }
  }
  // beam 1 is greedy decoding: no search to record
  const g = session.translate(fixture[0].source, { beam: 1, trace: true });
  assert.deepEqual(g.trace.steps, []);
  assert.equal(g.trace.winner, null);
});

test('the text API round-trips and refuses what it cannot do with a clear error', () => {
  const ids = session.encodeText('Das ist ein Test.');
  assert.equal(session.decodeText(ids), 'Das ist ein Test.');
  assert.throws(() => session.encodeText(''), /no words/);
  assert.throws(() => session.encodeText('wort '.repeat(400)), /at most/);
  assert.throws(() => session.decodeText([1e9]), /out of range/);
  assert.throws(() => session.pieces([-1]), RangeError);
  assert.throws(() => session.pieces([5000]), /out of range/);
  const plain = engine.createSession({ model: 'transformer', task: 'reverse' });
  try {
    assert.throws(() => plain.encodeText('Hallo'), /no text vocabulary/);
    assert.equal(plain.info().vocabulary, null);
  } finally {
    plain.dispose();
  }
  // a saved copy is still a translator (vocabulary and options kept)
  const again = engine.loadSession(session.save());
  try {
    assert.deepEqual(Array.from(again.encodeText('Guten Morgen')), Array.from(session.encodeText('Guten Morgen')));
  } finally {
    again.dispose();
  }
});
