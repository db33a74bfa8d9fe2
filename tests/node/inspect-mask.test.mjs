// inspect(src, tgt, {causal}) on the wasm module, directly and through the Worker protocol:
// with the mask the decoder's self-attention has exact zeros above the diagonal; with
// {causal: false} it has positive weights there, rows still sum to 1, and the option is
// rejected with an Error for models without a causal decoder.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine, workerClient } from './engine.mjs';

const CONFIG = {
  model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout: 0 },
  task: 'reverse', task_options: { min_len: 2, max_len: 5, symbols: 6 }, seed: 5,
  train: { batch: 8, warmup: 20 },
};
const SRC = [[3, 4, 5, 6]], TGT = [[6, 5, 4, 3]];
const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

// Attention mass strictly above the diagonal, and the largest |row sum - 1|, of a [B,H,L,L] map.
function upper(map) {
  const { B, H, T, S, weights } = map;
  assert.equal(T, S);
  let mass = 0, worst = 0;
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
  const a = upper(masked), b = upper(open);
  assert.equal(a.mass, 0);
  assert.ok(b.mass > 0.1, `mass above the diagonal without the mask: ${b.mass}`);
  assert.ok(a.worst < 1e-5 && b.worst < 1e-5);
  // the mask is back for the next call and for training
  assert.equal(upper(selfMap(s.inspect(SRC, TGT, { causal: true }))).mass, 0);
  assert.equal(upper(selfMap(s.inspect(SRC, TGT))).mass, 0);
  assert.ok(Number.isFinite(s.train(1).losses[0]));
  s.dispose();

  const enc = engine.createSession({ ...CONFIG, model: { ...CONFIG.model, model: 'encoder' } });
  assert.throws(() => enc.inspect(SRC, TGT, { causal: false }), (e) => e instanceof Error && /causal = false/.test(e.message));
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
