// inspect(src, tgt, {causal, parts, mute}) on the wasm module, directly and through the Worker
// protocol: with the mask the decoder's self-attention has exact zeros above the diagonal; with
// {causal: false} it has positive weights there, rows still sum to 1, and the option is
// rejected with an Error for models without a causal decoder. {parts: true} gives each map's
// per-head q, k, v, and the engine's attention() on them gives back the map and a weighted sum
// of v; {mute} changes the logits for that call only; bad options are Errors with a message.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine, workerClient } from './engine.mjs';

const CONFIG = {
  model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout: 0 },
  task: 'reverse',
  task_options: { min_len: 2, max_len: 5, symbols: 6 },
  seed: 5,
  train: { batch: 8, warmup: 20 },
};
const SRC = [[3, 4, 5, 6]],
  TGT = [[6, 5, 4, 3]];
const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

// Attention mass strictly above the diagonal, and the largest |row sum - 1|, of a [B,H,L,L] map.
function upper(map) {
  const { B, H, T, S, weights } = map;
  assert.equal(T, S);
  let mass = 0,
    worst = 0;
  for (let r = 0; r < B * H * T; r += 1) {
    const i = r % T;
    let sum = 0;
    for (let j = 0; j < S; j += 1) {
      const w = weights[r * S + j];
      sum += w;
      if (j > i) mass += w;
    }
    worst = Math.max(worst, Math.abs(sum - 1));
  }
  return { mass, worst };
}

const selfMap = (insp) => insp.maps.find((m) => m.name === 'decoder.layers.0.self_attn');

test('inspect with and without the causal mask (direct API)', () => {
  const s = engine.createSession(CONFIG);
  s.train(3);
  const masked = selfMap(s.inspect(SRC, TGT));
  const open = selfMap(s.inspect(SRC, TGT, { causal: false }));
  const a = upper(masked),
    b = upper(open);
  assert.equal(a.mass, 0);
  assert.ok(b.mass > 0.1, `mass above the diagonal without the mask: ${b.mass}`);
  assert.ok(a.worst < 1e-5 && b.worst < 1e-5);
  // the mask is back for the next call and for training
  assert.equal(upper(selfMap(s.inspect(SRC, TGT, { causal: true }))).mass, 0);
  assert.equal(upper(selfMap(s.inspect(SRC, TGT))).mass, 0);
  assert.ok(Number.isFinite(s.train(1).losses[0]));
  s.dispose();

  const enc = engine.createSession({ ...CONFIG, model: { ...CONFIG.model, model: 'encoder' } });
  assert.throws(
    () => enc.inspect(SRC, TGT, { causal: false }),
    (e) => e instanceof Error && /causal = false/.test(e.message)
  );
  assert.ok(enc.inspect(SRC, TGT).maps.length > 0);
  enc.dispose();
});

test('inspect options travel through the Worker protocol', async (t) => {
  const { client } = await workerClient(t, engine);
  const s = await client.createSession(CONFIG);
  const open = selfMap(await s.inspect(SRC, TGT, { causal: false }));
  const masked = selfMap(await s.inspect(SRC, TGT, { causal: true }));
  assert.ok(upper(open).mass > 0.1);
  assert.equal(upper(masked).mass, 0);
  await s.dispose();
});

test('inspect parts: attention() on the returned q, k, v gives back every map', () => {
  const s = engine.createSession({ ...CONFIG, model: { ...CONFIG.model, heads: 4, dec_layers: 2 } });
  s.train(3);
  const insp = s.inspect(SRC, TGT, { parts: true });
  assert.equal(insp.maps.length, 5);
  for (const m of insp.maps) {
    assert.equal(m.hs, 4, m.name);
    assert.equal(m.q.length, m.B * m.H * m.T * m.hs);
    assert.equal(m.k.length, m.B * m.H * m.S * m.hs);
    const causal = m.name.startsWith('decoder.') && m.name.endsWith('self_attn');
    const r = engine.attention(m.q, m.k, m.v, { B: m.B, H: m.H, T: m.T, S: m.S, Dk: m.hs, Dv: m.hs, causal });
    let worst = 0;
    m.weights.forEach((w, i) => {
      worst = Math.max(worst, Math.abs(w - r.weights[i]));
    });
    assert.ok(worst < 1e-5, `${m.name}: |attention(q,k,v) - map| = ${worst}`);
    // out = weights · v, per head and query
    const { hs, T, S } = m;
    for (let h = 0; h < m.H; h += 1) {
      for (let t = 0; t < T; t += 1) {
        for (let d = 0; d < hs; d += 1) {
          let want = 0;
          for (let j = 0; j < S; j += 1) want += m.weights[(h * T + t) * S + j] * m.v[(h * S + j) * hs + d];
          assert.ok(Math.abs(r.out[(h * T + t) * hs + d] - want) < 1e-5);
        }
      }
    }
  }
  assert.equal(s.inspect(SRC, TGT).maps[0].q, undefined);
  s.dispose();
});

test('inspect mute: one call only, through the Worker too; bad masks are Errors', async (t) => {
  const s = engine.createSession({ ...CONFIG, model: { ...CONFIG.model, heads: 4 } });
  s.train(3);
  const plain = Array.from(s.inspect(SRC, TGT).logits);
  const muted = Array.from(s.inspect(SRC, TGT, { mute: { 'decoder.layers.0.multihead_attn': [0, 2] } }).logits);
  assert.ok(muted.some((x, i) => Math.abs(x - plain[i]) > 1e-4));
  assert.deepEqual(Array.from(s.inspect(SRC, TGT).logits), plain);
  for (const [mute, re] of [
    [{ 'encoder.layers.9.self_attn': [0] }, /no attention sublayer named "encoder.layers.9.self_attn"/],
    [{ 'encoder.layers.0.self_attn': [4] }, /head 4 of encoder.layers.0.self_attn is out of range/],
    [{ 'encoder.layers.0.self_attn': [-1] }, /inspect: mute\["encoder.layers.0.self_attn"\]/],
    [{ 'encoder.layers.0.self_attn': 2 }, /inspect: mute/],
    [[1, 2], /mute must be an object/],
  ])
    assert.throws(
      () => s.inspect(SRC, TGT, { mute }),
      (e) => e instanceof Error && re.test(e.message),
      JSON.stringify(mute)
    );
  assert.deepEqual(Array.from(s.inspect(SRC, TGT).logits), plain);
  s.dispose();

  const rnn = engine.createSession({
    model: { model: 'rnnsearch', emb: 8, hidden: 16, attn: 8 },
    task: 'reverse',
    task_options: CONFIG.task_options,
    seed: 1,
  });
  assert.throws(
    () => rnn.inspect(SRC, TGT, { mute: { bahdanau: [0] } }),
    (e) => e instanceof Error && /no attention heads to mute/.test(e.message)
  );
  rnn.dispose();

  const { client } = await workerClient(t, engine);
  const r = await client.createSession({ ...CONFIG, model: { ...CONFIG.model, heads: 4 } });
  const a = Array.from((await r.inspect(SRC, TGT)).logits);
  const b = await r.inspect(SRC, TGT, { mute: { 'encoder.layers.0.self_attn': [0, 1, 2, 3] }, parts: true });
  assert.ok(Array.from(b.logits).some((x, i) => Math.abs(x - a[i]) > 1e-4));
  assert.equal(b.maps[0].q.length, 4 * SRC[0].length * 4);
  await r.dispose();
});
