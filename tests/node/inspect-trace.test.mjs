// inspect(src, tgt, {trace: true}) on the wasm module with the shipped language model, directly
// and through the Worker protocol: one trace per row, its tensors in computation order with
// their shapes, its last logits row the inspection's own (bit for bit), softmax of its scores
// the attention map's weights, the causal mask at -Infinity; the step list §1's step-through
// draws from it (web/demos/lm/trace.js) has 6 fixed steps and 12 per layer and ends at the
// logits' argmax; an encoder-decoder and a bad option value are Errors with a message.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadNodeApi, releaseEngine, workerClient, root } from './engine.mjs';

const dir = path.join(root, 'web', 'public', 'models');
const bytes = new Uint8Array(readFileSync(path.join(dir, 'lm-moby-dick.safetensors')));
const meta = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'))['lm-moby-dick'];
const LOAD_AS = { task: 'copy', task_options: { min_len: 1, max_len: 8, symbols: 10 } };
const IDS = [5, 17, 9, 40]; // a few words of the model's vocabulary
const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

const { d_model: C, heads: H, d_ff: F, dec_layers: L, tgt_vocab: V } = meta.config;
const hs = C / H;

function checkTrace(tr, logits, T) {
  const n = IDS.length + 1;
  assert.deepEqual(Array.from(tr.tokens), [1, ...IDS]); // <s> then the text
  assert.equal(tr.first, 0);
  assert.equal(tr.tensors.length, 3 + 15 * L + 2);
  const by = new Map(tr.tensors.map((x) => [x.name, x]));
  assert.deepEqual(by.get('embed').dims, [n, C]);
  assert.deepEqual(by.get('decoder.layers.0.self_attn.q').dims, [H, n, hs]);
  assert.deepEqual(by.get('decoder.layers.1.self_attn.scores').dims, [H, n, n]);
  assert.deepEqual(by.get('decoder.layers.1.linear1').dims, [n, F]);
  assert.deepEqual(by.get('decoder.norm').dims, [n, C]);
  assert.deepEqual(by.get('logits').dims, [n, V]);
  assert.equal(tr.tensors.at(-1).name, 'logits');
  // every logits row is the inspection's, bit for bit
  const lg = by.get('logits').values;
  assert.equal(T, n);
  assert.deepEqual(
    new Uint32Array(lg.buffer, lg.byteOffset, lg.length),
    new Uint32Array(logits.buffer, logits.byteOffset, logits.length)
  );
  // softmax of each score row is the weight row; the mask is -Infinity above the diagonal
  const sc = by.get('decoder.layers.0.self_attn.scores').values,
    w = by.get('decoder.layers.0.self_attn.weights').values;
  for (let r = 0; r < H * n; r++) {
    const i = r % n;
    const row = Array.from(sc.subarray(r * n, (r + 1) * n));
    row.forEach((s, j) => assert.equal(s === -Infinity, j > i, `score ${r},${j}`));
    const mx = Math.max(...row);
    const e = row.map((s) => Math.exp(s - mx));
    const z = e.reduce((a, b) => a + b, 0);
    e.forEach((x, j) => assert.ok(Math.abs(x / z - w[r * n + j]) < 1e-6, `weight ${r},${j}`));
  }
  for (const x of tr.tensors)
    for (const v of x.values) assert.ok(Number.isFinite(v) || (v === -Infinity && x.name.endsWith('.scores')), x.name);
}

test('inspect trace: the shipped LM, directly and through the Worker', async (t) => {
  const s = engine.loadSession(bytes, LOAD_AS);
  const plain = s.inspect([[]], [IDS]);
  assert.equal(plain.traces, undefined);
  const r = s.inspect([[]], [IDS], { trace: true });
  assert.equal(r.traces.length, 1);
  checkTrace(r.traces[0], r.logits, r.T);
  assert.deepEqual(Array.from(r.logits), Array.from(plain.logits));
  // bad values are refused by the binding; an encoder-decoder has no single stack to trace
  assert.throws(
    () => s.handle.inspect([[]], [IDS], { trace: 'yes' }),
    (e) => e instanceof TypeError && /inspect: trace must be true or false/.test(e.message)
  );
  s.dispose();
  const ed = engine.createSession({
    model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1 },
    task: 'reverse',
    task_options: { min_len: 2, max_len: 5, symbols: 6 },
  });
  assert.throws(
    () => ed.inspect([[3, 4]], [[4, 3]], { trace: true }),
    (e) => e instanceof Error && /trace follows a decoder-only/.test(e.message)
  );
  ed.dispose();

  const { client } = await workerClient(t, engine);
  const remote = await client.loadSession(bytes, LOAD_AS);
  const w = await remote.inspect([[]], [IDS], { trace: true });
  checkTrace(w.traces[0], w.logits, w.T);

  // §1's steps: 3 for the embedding, 12 per layer, the final norm, the logits and their softmax
  const { traceSteps } = await import('../../web/demos/lm/trace.js');
  const steps = traceSteps(w.traces[0]);
  assert.equal(steps.length, 6 + 12 * L);
  assert.deepEqual(
    steps.filter((x) => x.layer === 0).map((x) => x.id),
    [
      'qkv',
      'scores',
      'weights',
      'heads',
      'out_proj',
      'add1',
      'norm1',
      'linear1',
      'activation',
      'linear2',
      'add2',
      'norm2',
    ]
  );
  const qkv = steps.find((x) => x.id === 'qkv');
  assert.equal(qkv.figures.length, 3 * H);
  assert.deepEqual([qkv.figures[0].rows, qkv.figures[0].cols], [1, hs]);
  await remote.dispose();
});
