// Model sessions in the wasm module, directly and through the Worker runtime: training on a
// task and on given ids, inspection data with shapes, decoding, evaluation, checkpoints through
// IndexedDB, the errors the page can cause (each an Error, the module usable afterwards), the
// runtime's progress events, pause/resume/cancel and latest-wins snapshots, and the alignment
// error rate of RNNsearch on dates (directly and carried by snapshots).
import 'fake-indexeddb/auto';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine, hasBuild, workerClient } from './engine.mjs';
import { ModelStore } from '../../web/core/persist.js';

const CONFIG = {
  model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout: 0 },
  task: 'reverse',
  task_options: { min_len: 2, max_len: 5, symbols: 6 },
  seed: 3,
  train: { batch: 16, warmup: 30 },
};
const builds = ['wasm', ...(hasBuild('wasm-mt') ? ['wasm-mt'] : [])];
const engines = {};
for (const b of builds) engines[b] = await loadNodeApi(b);
after(() => Object.values(engines).forEach(releaseEngine));

for (const build of builds) {
  const engine = engines[build];

  test(`${build}: a session trains, inspects, decodes and evaluates`, () => {
    const s = engine.createSession(CONFIG);
    const info = s.info();
    assert.equal(info.model, 'transformer');
    assert.equal(info.task, 'reverse');
    assert.ok(info.params > 1000);
    const r = s.train(40);
    assert.equal(r.losses.length, 40);
    assert.equal(r.step, 40);
    assert.ok(r.losses.every(Number.isFinite));
    assert.ok(r.losses[39] < r.losses[0], `loss ${r.losses[0]} -> ${r.losses[39]}`);
    const ex = s.examples(2, { split: 'test', seed: 5 });
    assert.equal(ex.src.length, 2);
    const insp = s.inspect(ex.src, ex.tgt);
    assert.equal(insp.B, 2);
    assert.equal(insp.logits.length, insp.B * insp.T * insp.V);
    const names = insp.maps.map((m) => m.name);
    assert.equal(names.length, 3, names.join()); // encoder self, decoder self, cross
    for (const m of insp.maps) {
      assert.equal(m.H, 2);
      assert.equal(m.weights.length, m.B * m.H * m.T * m.S);
    }
    const out = s.decode(ex.src, { beam: 2 });
    assert.equal(out.length, 2);
    assert.ok(out.every((row) => Array.isArray(row) && row.every(Number.isInteger)));
    const ev = s.evaluate(20, 1);
    assert.ok(ev.tokenAccuracy >= 0 && ev.tokenAccuracy <= 1 && Number.isFinite(ev.loss));
    assert.equal(ev.aer, undefined, 'a transformer reports no alignment error rate');
    s.dispose();
  });

  test(`${build}: trainBatch on given ids; rnnsearch alignments have one head`, () => {
    const s = engine.createSession({
      model: { model: 'rnnsearch', src_vocab: 12, tgt_vocab: 12, emb: 8, hidden: 16 },
      train: { schedule: 'constant', lr: 0.02 },
    });
    const src = [
        [3, 4, 5, 6],
        [7, 8, 9],
      ],
      tgt = [
        [6, 5, 4, 3],
        [9, 8, 7],
      ];
    const first = s.trainBatch(src, tgt).losses[0];
    let last = first;
    for (let i = 0; i < 60; i++) last = s.trainBatch(src, tgt).losses[0];
    assert.ok(last < 0.25 * first, `${first} -> ${last}`);
    assert.deepEqual(s.decode(src), tgt);
    const insp = s.inspect(src);
    assert.deepEqual(insp.tgt, tgt);
    assert.ok(insp.maps.length >= 1 && insp.maps.every((m) => m.H === 1));
    assert.throws(() => s.train(1), /needs a task/);
    s.dispose();
  });

  test(`${build}: bad configs, tokens and checkpoints raise Errors; the module stays usable`, () => {
    assert.throws(
      () => engine.createSession({ ...CONFIG, model: { ...CONFIG.model, heads: 3 } }),
      (e) => e instanceof Error && /d_model 16 is not divisible by heads 3/.test(e.message)
    );
    assert.throws(
      () =>
        engine.createSession({
          ...CONFIG,
          model: { model: 'transformer', d_model: 16384, d_ff: 65536, enc_layers: 64, dec_layers: 64 },
        }),
      /MB this engine can still allocate/
    );
    assert.throws(() => engine.createSession('{"model": '), /not valid JSON/);
    const s = engine.createSession(CONFIG);
    const V = s.info().srcVocab;
    assert.throws(() => s.decode([[3, V]]), new RegExp(`token ${V} is out of range for a vocabulary of ${V}`));
    assert.throws(
      () => s.inspect([[3, 4]], [[-2]]),
      (e) => e instanceof RangeError && /tgt\[0\]\[0\] is not an integer/.test(e.message)
    );
    assert.throws(() => s.trainBatch([[3]], [[3], [4]]), /as many target rows/);
    assert.throws(() => s.decode([5]), /decode: src\[0\]: expected an array or typed array, got number/);
    const bytes = s.save();
    assert.throws(() => engine.loadSession(bytes.slice(0, bytes.length - 9)), Error);
    assert.throws(() => engine.loadSession(new Uint8Array(64).fill(7)), Error);
    const badHeader = bytes.slice();
    badHeader[10] = 0x5d; // breaks the JSON header
    assert.throws(() => engine.loadSession(badHeader), Error);
    for (let i = 0; i < 50; i++) assert.throws(() => s.decode([[999]]), /out of range/);
    assert.equal(s.train(2).losses.length, 2);
    assert.ok(engine.estimateBytes(CONFIG) > 0);
    s.dispose();
  });
}

test('a trained model survives a reload through IndexedDB and gives the same logits', async () => {
  const engine = engines.wasm;
  const s = engine.createSession(CONFIG);
  s.train(10);
  const src = [[3, 4, 5]],
    tgt = [[5, 4, 3]];
  const before = s.inspect(src, tgt).logits;
  const store = new ModelStore(indexedDB, 'attnlab-session-test');
  await store.save('reverse', s.save(), { step: s.info().step });
  store.close();
  s.dispose();
  const again = new ModelStore(indexedDB, 'attnlab-session-test');
  const rec = await again.load('reverse');
  const t = engine.loadSession(rec.bytes);
  assert.equal(t.info().step, 10);
  assert.equal(rec.meta.step, 10);
  assert.deepEqual(Array.from(t.inspect(src, tgt).logits), Array.from(before));
  t.dispose();
  again.close();
});

test('runtime: progress, pause/resume, cancel, latest-wins snapshots', async (t) => {
  const { client } = await workerClient(t, engines.wasm);
  const s = await client.createSession(CONFIG);
  assert.equal(s.info.task, 'reverse');

  const progress = [],
    states = [],
    snaps = [];
  s.on('progress', (p) => progress.push(p));
  s.on('state', (e) => states.push(e.state));
  s.on('snapshot', (e) => snaps.push(e));
  const ex = await s.examples(1);
  // pause as soon as the first chunk reports: the run is long enough (hundreds of chunks of
  // ~5 ms) that the pause always lands while it trains, however fast the machine
  const STEPS = 3000;
  const paused = new Promise((r) => {
    const off = s.on('state', (e) => {
      if (e.state === 'paused') {
        off();
        r();
      }
    });
  });
  const offFirst = s.on('progress', () => {
    offFirst();
    s.pause();
  });
  const run = s.train(STEPS, { chunkMs: 5, snapshot: { src: ex.src, tgt: ex.tgt, everyMs: 0 } });
  await Promise.race([paused, run]);
  const pausedAt = progress.length;
  assert.equal(s.state, 'paused');
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(progress.length, pausedAt, 'no progress while paused');
  await assert.rejects(s.inspect(ex.src), /is training: pause or cancel it/);
  s.resume();
  const done = await run;
  assert.equal(done.steps, STEPS);
  assert.equal(done.cancelled, false);
  assert.equal(done.losses.length, STEPS);
  assert.deepEqual(
    progress.flatMap((p) => p.losses),
    Array.from(done.losses)
  );
  assert.equal(progress.at(-1).step, STEPS);
  assert.ok(progress.every((p) => p.tokensPerSec > 0 && Number.isFinite(p.loss)));
  assert.ok(states.includes('paused') && states.at(-1) === 'idle');
  assert.ok(snaps.length >= 1 && snaps.length <= progress.length);
  assert.ok(
    snaps.every((e, i) => i === 0 || e.step > snaps[i - 1].step),
    'snapshots only move forward'
  );
  assert.equal(snaps.at(-1).data.maps.length, 3);

  const run2 = s.train(100000, { chunkMs: 5 });
  await new Promise((r) => setTimeout(r, 40));
  s.cancel();
  const c = await run2;
  assert.equal(c.cancelled, true);
  assert.ok(c.steps < 100000);
  assert.equal((await s.refreshInfo()).step, STEPS + c.steps);

  const bytes = await s.save();
  const u = await client.loadSession(bytes);
  assert.equal(u.info.step, STEPS + c.steps);
  await u.dispose();
  await s.dispose();
  await assert.rejects(s.save(), /no session/);
});

test('runtime: two sessions train at once, taking turns; pausing one leaves the other training', async (t) => {
  const { client } = await workerClient(t, engines.wasm);
  const a = await client.createSession(CONFIG);
  const b = await client.createSession({ ...CONFIG, seed: 4 });
  const order = [];
  a.on('progress', () => order.push('a'));
  b.on('progress', () => order.push('b'));
  const ex = await a.examples(1);
  const within = (p, what) =>
    Promise.race([
      p,
      new Promise((_, no) => setTimeout(() => no(new Error(`${what} did not happen within 60 s`)), 60000)),
    ]);
  const event = (s, pred) =>
    new Promise((r) => {
      const off = s.on('state', (e) => {
        if (pred(e)) {
          off();
          r();
        }
      });
    });
  // a's run is far longer than the test (it is cancelled at the end), so its pause always lands
  // while it trains, however the two loops and the port's messages interleave
  const pausedA = event(a, (e) => e.state === 'paused');
  const offFirst = a.on('progress', () => {
    offFirst();
    a.pause();
  });
  const runA = a.train(100000, { chunkMs: 5, snapshot: { src: ex.src, tgt: ex.tgt, everyMs: 0 } });
  const runB = b.train(1500, { chunkMs: 5, snapshot: { src: ex.src, tgt: ex.tgt, everyMs: 0 } });
  let bDone = false;
  runB.then(() => {
    bDone = true;
  });
  await within(pausedA, 'the pause');
  const pausedAt = order.filter((x) => x === 'a').length;
  const bBefore = order.filter((x) => x === 'b').length;
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(order.filter((x) => x === 'a').length, pausedAt, 'the paused session makes no progress');
  assert.ok(order.filter((x) => x === 'b').length > bBefore || bDone, 'the other session goes on training');
  // a training session can be saved between two chunks (the page keeps it in IndexedDB)
  const mid = await b.save();
  const restored = await client.loadSession(mid);
  assert.ok(restored.info.step >= 1 && restored.info.step <= 1500, `saved at step ${restored.info.step}`);
  await restored.dispose();
  await assert.rejects(a.inspect(ex.src), /is training/, 'a paused training still holds its session');
  const rb = await within(runB, 'the other run');
  assert.equal(rb.steps, 1500);
  assert.equal(rb.step, 1500);
  a.resume();
  await within(
    new Promise((r) => {
      const off = a.on('progress', () => {
        off();
        r();
      });
    }),
    'progress after resume'
  );
  a.cancel();
  const ra = await within(runA, 'the cancelled run');
  assert.equal(ra.cancelled, true);
  assert.ok(ra.steps > 0 && order.indexOf('b') < order.lastIndexOf('a'), 'the two loops interleave');
  // the same seed trained alone gives the same losses: interleaving does not mix sessions
  const alone = engines.wasm.createSession(CONFIG);
  assert.deepEqual(Array.from(alone.train(ra.steps).losses), Array.from(ra.losses));
  alone.dispose();
  await a.dispose();
  await b.dispose();
});

test('rnnsearch on dates: evaluate reports the held-out alignment error rate; snapshots can carry it', async (t) => {
  const config = {
    model: { model: 'rnnsearch', emb: 24, hidden: 48, attn: 48 },
    task: 'dates',
    seed: 1,
    train: { batch: 32, schedule: 'constant', lr: 0.01, clip: 1 },
  };
  const s = engines.wasm.createSession(config);
  const before = s.evaluate(100, 41);
  assert.ok(before.aer >= 0 && before.aer <= 1, `aer ${before.aer}`);
  assert.ok(Object.keys(before.perLength).length > 0);
  assert.deepEqual(s.evaluate(100, 41), before, 'the same draw gives the same numbers');
  s.train(120);
  const after = s.evaluate(100, 41);
  assert.ok(after.aer < before.aer - 0.3, `aer ${before.aer} -> ${after.aer}`);

  // the same run through the Worker runtime: the last snapshot's evaluation is the session's
  const { client } = await workerClient(t, engines.wasm);
  const r = await client.createSession(config);
  const snaps = [];
  r.on('snapshot', (e) => snaps.push(e));
  const ex = await r.examples(1);
  await r.train(120, {
    chunkMs: 20,
    snapshot: { src: ex.src, tgt: ex.tgt, everyMs: 0, evaluate: { samples: 100, seed: 41, everyMs: 1000 } },
  });
  await new Promise((res) => setTimeout(res, 20));
  assert.equal(snaps.at(-1).step, 120);
  assert.deepEqual(snaps.at(-1).evaluation, { ...after, step: 120 });
  assert.ok(
    snaps.every((e) => !e.evaluation || (e.evaluation.aer >= 0 && e.evaluation.aer <= 1 && e.evaluation.step <= e.step))
  );
  await r.dispose();
  s.dispose();
});

test('pointer sessions: train on convex hull, decode with pointer distributions, checkpoint', () => {
  const engine = engines.wasm;
  const s = engine.createSession({
    model: { model: 'pointer', hidden: 16, embed: 8, glimpse: true },
    task: 'convex-hull',
    task_options: { n_min: 5, n_max: 5 },
    seed: 2,
    train: { batch: 16 },
  });
  assert.equal(s.kind, 'pointer');
  assert.throws(() => engine.createSession({ model: { model: 'pointer', embed: -1 }, task: 'convex-hull' }), /embed/);
  assert.equal(s.info().config.embed, 8);
  const r = s.train(30);
  assert.equal(r.losses.length, 30);
  assert.equal(r.step, 30);
  assert.ok(r.losses.every((l) => Number.isFinite(l) && l > 0));
  const ex = s.examples(1, { n: 6 });
  assert.equal(ex.x.length, 12);
  const d = s.decode(ex.x, 6);
  assert.equal(d.probs.length, d.steps * 7);
  for (let t = 0; t < d.steps; t++) {
    const row = Array.from(d.probs.slice(t * 7, t * 7 + 7));
    assert.ok(Math.abs(row.reduce((a, b) => a + b) - 1) < 1e-4, `step ${t} sums to ${row.reduce((a, b) => a + b)}`);
  }
  assert.equal(new Set(d.order).size, d.order.length, 'no input chosen twice');
  const ev = s.evaluate(20, 1);
  assert.ok(ev.areaCoverage >= 0 && ev.sequenceAccuracy >= 0 && ev.sequenceAccuracy <= 1);
  assert.ok(ev.invalidRate >= 0 && ev.samples === 20 && ev.perLength['5'] === ev.sequenceAccuracy);
  assert.ok(Number.isFinite(ev.loss) && ev.tokenAccuracy >= 0);
  assert.throws(() => s.decode([1, 2, 3], 2), /expected n\*dim = 4/);
  assert.throws(() => s.decode([NaN, 0, 1, 1], 2), /finite/);
  const t = engine.loadSession(s.save());
  assert.equal(t.kind, 'pointer');
  assert.equal(t.info().step, 30);
  assert.deepEqual(Array.from(t.decode(ex.x, 6).probs), Array.from(d.probs));
  assert.deepEqual(Array.from(t.inspect(ex.x).probs), Array.from(d.probs));
  assert.throws(() => engine.createSession({ model: 'pointer', task: 'reverse' }), /does not train on task reverse/);
  assert.throws(() => t.trainBatch([[3]], [[3]]), /trains on its task only/);
  // The engine decides the model: a point task alone gets the pointer network; "sort" is the
  // token task unless the model is the pointer network, the same in C++ and here.
  const hull = engine.createSession({ task: 'convex-hull', train: { batch: 4 } });
  assert.equal(hull.kind, 'pointer');
  assert.equal(hull.dim, 2);
  hull.dispose();
  const sort = engine.createSession({ task: 'sort' });
  assert.equal(sort.kind, 'transformer');
  sort.dispose();
  const psort = engine.createSession({ model: 'pointer', task: 'sort' });
  assert.equal(psort.dim, 1);
  psort.dispose();
  t.dispose();
  s.dispose();
});
