// Hostile input through the JS API of the wasm module: every case gets a JS Error (TypeError /
// RangeError where a caller would expect one) with a message, never a trap or an abort, and
// the module is exactly as before afterwards: 100,000 caught errors leave the heap in use, the
// wasm stack and the Embind handle count unchanged, and a valid call gives the same answer.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine, hasBuild } from './engine.mjs';

const CONFIG = {
  model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout: 0 },
  task: 'reverse',
  task_options: { min_len: 2, max_len: 5, symbols: 6 },
  seed: 3,
  train: { batch: 8, warmup: 30 },
};

// A .safetensors buffer: header (JSON) and data, both editable.
function parseCheckpoint(bytes) {
  const b = new Uint8Array(bytes);
  const n = Number(new DataView(b.buffer, b.byteOffset).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + n))), data: b.slice(8 + n) };
}
function writeCheckpoint({ header, data }) {
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}
function setFloat(ck, name, index, value) {
  const [begin] = ck.header[name].data_offsets;
  new DataView(ck.data.buffer, ck.data.byteOffset).setFloat32(begin + 4 * index, value, true);
}
const firstWeight = (ck) => Object.keys(ck.header).find((k) => k !== '__metadata__' && ck.header[k].shape.length === 2);

function deepJson(levels) {
  return '{"model":' + '['.repeat(levels) + ']'.repeat(levels) + '}';
}

const builds = ['wasm', ...(hasBuild('wasm-mt') ? ['wasm-mt'] : [])];
const engines = {};
for (const b of builds) engines[b] = await loadNodeApi(b);
after(() => Object.values(engines).forEach(releaseEngine));

// The module's state that an error must not change.
function moduleState(engine) {
  const mod = engine.module;
  return {
    heapUsed: engine.info().heapUsedBytes,
    stack: typeof mod.stackSave === 'function' ? mod.stackSave() : 0,
    handles: typeof mod.count_emval_handles === 'function' ? mod.count_emval_handles() : 0,
  };
}

for (const build of builds) {
  const engine = engines[build];

  test(`${build}: sizes whose 32-bit product wraps are refused, the module lives on`, () => {
    const before = engine.softmax([1, 2, 3], { rows: 1, cols: 3 });
    assert.throws(() => engine.softmax([], { rows: 65536, cols: 65536 }), /softmax/);
    assert.throws(() => engine.positionalEncoding(65536, 65536), /L\*C <= 2\^24/);
    assert.throws(() => engine.attention([1], [1], [1], { T: 65536, Dk: 65536 }), /attention: q has 1 values/);
    assert.throws(
      () =>
        engine.attention(new Float32Array(65536), new Float32Array((65536 * 65536) / 65536), new Float32Array(65536), {
          T: 65536,
          S: 65536,
          Dk: 1,
        }),
      /attention/
    );
    for (const call of [
      () => engine.module.benchGemm(65536, 65536, 1, false, false, 1, 0.01),
      () => engine.module.benchAttention(1, 1, 65536, 65536, 1, false, 0.01),
    ]) {
      assert.throws(call, (e) => e instanceof Error && e.message.length > 0);
    }
    assert.deepEqual(engine.softmax([1, 2, 3], { rows: 1, cols: 3 }), before);
    const pe = engine.positionalEncoding(4, 8);
    assert.equal(pe.length, 32);
    assert.equal(pe[0], 0);
  });

  test(`${build}: deep or huge JSON is refused with the limit named`, () => {
    for (const levels of [10_000, 1_000_000]) {
      assert.throws(() => engine.createSession(deepJson(levels)), /nested deeper than the limit of 64/);
      assert.throws(() => engine.estimateBytes(deepJson(levels)), /limit of 64/);
    }
    const deepField = (key) => `{"task":"reverse","${key}":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    for (const key of ['train', 'task_options'])
      assert.throws(() => engine.createSession(deepField(key)), /limit of 64/);
    const big = '[' + '0,'.repeat(25 * 1024 * 1024) + '0]'; // 50 MB
    assert.throws(() => engine.createSession(big), /limit of 16777216/);
    const s = engine.createSession(CONFIG);
    assert.equal(s.info().model, 'transformer');
    s.dispose();
  });

  test(`${build}: a step with a non-finite loss stops training and keeps the last finite weights`, () => {
    for (const train of [
      { schedule: 'constant', lr: 1e30 },
      { lr_factor: 1e30, warmup: 1 },
    ]) {
      const s = engine.createSession({ ...CONFIG, train: { ...CONFIG.train, ...train } });
      let error = null,
        steps = 0;
      for (let i = 0; i < 50 && !error; ++i) {
        try {
          s.train(1);
          ++steps;
        } catch (e) {
          error = e;
        }
      }
      assert.ok(error instanceof Error, `training with ${JSON.stringify(train)} went on for ${steps} steps`);
      assert.match(error.message, /training step \d+: the (loss|gradient norm) is not finite/);
      assert.equal(s.info().step, steps, 'the failed step is not counted');
      const ck = parseCheckpoint(s.save());
      const floats = new Float32Array(ck.data.buffer, ck.data.byteOffset, ck.data.byteLength / 4);
      assert.ok(floats.every(Number.isFinite), 'saved weights are finite');
      s.dispose();
    }
    assert.throws(
      () => engine.createSession({ ...CONFIG, train: { schedule: 'constant', lr: -1 } }),
      /learning rate must be a positive/
    );
    assert.throws(() => engine.createSession({ ...CONFIG, train: { lr_factor: 0 } }), /factor must be a positive/);
  });

  test(`${build}: token arrays must hold integer ids in the vocabulary`, () => {
    const s = engine.createSession(CONFIG);
    assert.throws(
      () => s.inspect([['a', 'b']]),
      (e) => e instanceof TypeError && /src\[0\]\[0\] is not a number/.test(e.message)
    );
    assert.throws(
      () => s.inspect([[2 ** 32 + 3]]),
      (e) => e instanceof RangeError && /src\[0\]\[0\]/.test(e.message)
    );
    assert.throws(() => s.inspect([[3.5]]), RangeError);
    assert.throws(
      () => s.inspect([[3, -1]]),
      (e) => e instanceof RangeError && /\[0\]\[1\]/.test(e.message)
    );
    assert.throws(() => s.decode([[3, 99]]), /out of range for a vocabulary/);
    assert.throws(() => s.trainBatch('3 4', [[3]]), TypeError);
    assert.throws(() => s.train(-5), RangeError);
    assert.throws(() => s.train(2 ** 32 + 1), RangeError);
    assert.throws(() => s.train('10'), TypeError);
    assert.throws(() => s.evaluate(NaN), RangeError);
    assert.throws(() => s.evaluate(null), TypeError);
    assert.throws(() => s.decode([[3, 4]], { beam: 1e9 }), RangeError);
    assert.equal(s.decode([[3, 4]]).length, 1);
    s.dispose();
  });

  test(`${build}: array-likes, wrong argument types and bench errors are Errors before any copy`, () => {
    const t0 = performance.now();
    assert.throws(() => engine.softmax({ length: 1.2e9 }), TypeError);
    assert.throws(() => engine.loadSession({ length: 1.2e9 }), TypeError);
    assert.throws(
      () =>
        engine.attention(new Float32Array(4), new Float32Array(4), new Float32Array(4), { T: 2, Dk: 2, causal: 'yes' }),
      TypeError
    );
    assert.throws(() => engine.softmax([1, NaN]), RangeError);
    assert.throws(() => engine.softmax([1, 2], 7), TypeError);
    assert.ok(performance.now() - t0 < 10_000);
    for (const call of [
      () => engine.module.benchGemm(0, 4, 4, false, false, 1, 0.005),
      () => engine.module.benchSimdPeak(-1),
    ]) {
      try {
        call();
        assert.fail('no error');
      } catch (e) {
        assert.ok(e instanceof Error, `threw ${typeof e} ${e}`);
      }
    }
  });

  test(`${build}: a model too large is refused with sizes that read right`, () => {
    const huge = { ...CONFIG, model: { ...CONFIG.model, d_model: 65536, d_ff: 262144, heads: 4 } };
    assert.throws(
      () => engine.createSession(huge),
      (e) => /needs about \d+ MB/.test(e.message) && !/-\d+ MB/.test(e.message)
    );
  });

  test(`${build}: checkpoints of the wrong kind, with missing tensors or non-finite weights are refused`, () => {
    const s = engine.createSession(CONFIG);
    s.train(3);
    const bytes = s.save();
    s.dispose();
    const ck = parseCheckpoint(bytes);
    for (const kind of ['lm', 'encoder']) {
      const relabelled = structuredClone(ck);
      const meta = JSON.parse(relabelled.header.__metadata__.attnlab);
      relabelled.header.__metadata__.attnlab = JSON.stringify({ ...meta, model: kind });
      assert.throws(() => engine.loadSession(writeCheckpoint(relabelled)), Error, `a transformer loaded as ${kind}`);
    }
    const empty = {
      header: {
        __metadata__: {
          attnlab: JSON.stringify({
            model: 'lm',
            d_model: 16384,
            heads: 16,
            d_ff: 16,
            dec_layers: 1,
            src_vocab: 2 ** 20,
            tgt_vocab: 2 ** 20,
            max_len: 64,
          }),
        },
      },
      data: new Uint8Array(0),
    };
    assert.throws(() => engine.loadSession(writeCheckpoint(empty)), Error);
    assert.throws(() => engine.lmScore(writeCheckpoint(empty), ['a b']), Error);
    const name = firstWeight(ck);
    for (const bad of [NaN, Infinity]) {
      const broken = structuredClone(ck);
      setFloat(broken, name, 0, bad);
      assert.throws(() => engine.loadSession(writeCheckpoint(broken)), /not finite/);
    }
    assert.throws(() => engine.loadSession(bytes.subarray(0, bytes.length - 10)), Error);
    const ok = engine.loadSession(bytes);
    assert.equal(ok.info().step, 3);
    ok.dispose();
  });

  test(`${build}: beam search on huge finite weights decodes without a trap`, () => {
    const s = engine.createSession(CONFIG);
    s.train(2);
    const ck = parseCheckpoint(s.save());
    s.dispose();
    for (const name of Object.keys(ck.header).filter((k) => k !== '__metadata__' && ck.header[k].shape.length === 2)) {
      const n = ck.header[name].shape.reduce((x, y) => x * y, 1);
      for (let i = 0; i < n; i += 3) setFloat(ck, name, i, i % 2 ? 3e38 : -3e38);
    }
    const loaded = engine.loadSession(writeCheckpoint(ck));
    for (const beam of [1, 4]) {
      const out = loaded.decode([[3, 4, 5], [6]], { beam });
      assert.equal(out.length, 2);
      for (const row of out)
        assert.ok(row.every((id) => Number.isInteger(id) && id >= 0 && id < loaded.info().tgtVocab));
    }
    loaded.dispose();
  });

  test(`${build}: 100,000 caught errors leave the module exactly as it was`, () => {
    const s = engine.createSession(CONFIG);
    s.train(2);
    const reference = s.inspect([[3, 4, 5]], [[5, 4, 3]]).logits;
    const invalid = JSON.stringify({ ...CONFIG, model: { ...CONFIG.model, heads: 3 }, padding: 'x'.repeat(1 << 20) });
    // warm-up: lazily created JS objects and first-use allocations settle before the baseline
    for (let i = 0; i < 100; ++i) {
      try {
        engine.softmax([], { rows: 65536, cols: 65536 });
      } catch {
        /* expected */
      }
      try {
        s.inspect([['a']]);
      } catch {
        /* expected */
      }
    }
    const base = moduleState(engine);
    let caught = 0;
    for (let i = 0; i < 100_000; ++i) {
      try {
        switch (i % 4) {
          case 0:
            engine.softmax([], { rows: 65536, cols: 65536 });
            break;
          case 1:
            s.inspect([['a', 'b']]);
            break;
          case 2:
            s.train(0);
            break;
          default:
            engine.positionalEncoding(65536, 65536);
        }
      } catch (e) {
        if (e instanceof Error) ++caught;
      }
    }
    for (let i = 0; i < 100; ++i) {
      try {
        engine.createSession(invalid);
      } catch (e) {
        if (e instanceof Error) ++caught;
      }
    }
    assert.equal(caught, 100_100);
    assert.deepEqual(moduleState(engine), base);
    assert.deepEqual(s.inspect([[3, 4, 5]], [[5, 4, 3]]).logits, reference);
    s.dispose();
  });
}
