// The Luong kind in the wasm module through the JS Session: the registry lists it with its
// capabilities and training defaults, a session on dates trains with them, lowers the held-out
// alignment error rate, inspects one alignment map per pass (rows over the real source), decodes
// stepwise, and round-trips through a checkpoint.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine } from './engine.mjs';

const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

test('the registry lists luong: recurrent, aligns, its training defaults', () => {
  assert.ok(engine.modelKinds().includes('luong'));
  const k = engine.kindInfo().luong;
  assert.equal(k.recurrent, true);
  assert.equal(k.aligns, true);
  assert.equal(k.takes_points, false);
  assert.ok(k.train.lr > 0 && k.train.batch >= 1 && k.train.clip > 0);
});

for (const score of ['dot', 'general', 'concat']) {
  test(`luong (${score}) on dates: trains, aligns, decodes, round-trips a checkpoint`, () => {
    const { lr, batch, clip, schedule } = engine.kindInfo().luong.train;
    const s = engine.createSession({
      model: { model: 'luong', emb: 16, hidden: 32, score },
      task: 'dates',
      seed: 1,
      train: { lr, batch, clip, schedule },
    });
    assert.equal(s.info().config.score, score);
    const before = s.evaluate(60, 41);
    const r = s.train(400);
    assert.equal(r.losses.length, 400);
    assert.ok(r.losses.every(Number.isFinite));
    assert.ok(r.losses.at(-1) < 0.5 * r.losses[0], `loss ${r.losses[0]} -> ${r.losses.at(-1)}`);
    const after = s.evaluate(60, 41);
    assert.ok(after.aer >= 0 && after.aer <= 1);
    assert.ok(after.aer < before.aer - 0.2, `aer ${before.aer} -> ${after.aer}`);
    assert.ok(Object.keys(after.perLength).length > 0);

    const ex = s.examples(1);
    const insp = s.inspect(ex.src);
    const map = insp.maps.find((m) => m.name === 'alignment');
    assert.ok(map, 'an alignment map');
    assert.equal(map.H, 1);
    assert.equal(map.S, ex.src[0].length);
    for (let t = 0; t < map.T; t++) {
      const row = Array.from(map.weights.slice(t * map.S, (t + 1) * map.S));
      assert.ok(Math.abs(row.reduce((a, b) => a + b) - 1) < 1e-4, `row ${t}`);
    }
    const out = s.decode(ex.src);
    const bytes = s.save();
    const back = engine.loadSession(bytes);
    assert.equal(back.info().config.model, 'luong');
    assert.deepEqual(back.decode(ex.src), out);
    back.dispose();
    s.dispose();
  });
}
