// Property-based fuzzing of the whole JS API (fast-check, fixed seed, bounded runs): every
// exported function, every session method (Transformer, RNNsearch and pointer sessions) and the
// Worker protocol get arbitrary arguments — wrong types, huge, negative and fractional sizes,
// NaN/Infinity, mismatched lengths, array-likes, deep and huge JSON, random bytes as
// checkpoints — and must return a value or throw an Error, never trap (WebAssembly.RuntimeError)
// or abort; after every run a small valid call still gives the same answer in the same module.
// FUZZ_RUNS=N (npm run fuzz sets it) runs longer; FUZZ_SEED picks another seed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { loadNodeApi, releaseEngine } from './engine.mjs';
import { Runtime } from '../../web/core/runtime.js';

const RUNS = Number(process.env.FUZZ_RUNS || 300);
const SEED = Number(process.env.FUZZ_SEED || 20261201);

const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

const TRANSFORMER = {
  model: { model: 'transformer', d_model: 8, heads: 2, d_ff: 16, enc_layers: 1, dec_layers: 1, dropout: 0 },
  task: 'reverse',
  task_options: { min_len: 2, max_len: 4, symbols: 5 },
  train: { batch: 4 },
};
const RNN = {
  model: { model: 'rnnsearch', emb: 4, hidden: 8 },
  task: 'reverse',
  task_options: { min_len: 2, max_len: 4, symbols: 5 },
  train: { batch: 4 },
};
const POINTER = { model: 'pointer', task: 'convex-hull', n_min: 4, n_max: 5, hidden: 8, train: { batch: 4 } };

// The checks that the module still works and answers as before.
const probe = engine.createSession(TRANSFORMER);
probe.train(2);
const reference = {
  softmax: Array.from(engine.softmax([1, 2, 3])),
  logits: Array.from(probe.inspect([[3, 4]], [[4, 3]]).logits),
};
function stillWorks() {
  assert.deepEqual(Array.from(engine.softmax([1, 2, 3])), reference.softmax);
  assert.deepEqual(Array.from(probe.inspect([[3, 4]], [[4, 3]]).logits), reference.logits);
}
after(() => probe.dispose());
const checkpoint = probe.save();

// Values a hostile caller passes. Numbers come from a set of edge cases rather than the whole
// range, so that a valid-but-large count (100,000 training steps) does not turn the fuzz into
// a long training run.
const edgeNumber = fc.constantFrom(
  0,
  -0,
  1,
  2,
  3,
  -1,
  1.5,
  -7.25,
  NaN,
  Infinity,
  -Infinity,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32 + 3,
  2 ** 53,
  -(2 ** 31),
  1e308,
  -1e308,
  5e-324,
  1e9
);
// Sizes whose 32-bit products wrap (65536 * 65536 = 2^32).
const sizeNumber = fc.oneof(edgeNumber, fc.constant(65536), fc.constant(46341));
const smallInt = fc.integer({ min: -3, max: 12 });
const deepJson = fc.integer({ min: 65, max: 20000 }).map((n) => '['.repeat(n) + ']'.repeat(n));
const jsonText = fc.oneof(
  fc.json(),
  deepJson,
  fc.constantFrom('', '{', 'null', '[]', '{"model":{"model":"nope"}}', '{"task":"convex-hull"}')
);
const idRows = fc.array(fc.array(fc.oneof(smallInt, edgeNumber, fc.string({ maxLength: 2 })), { maxLength: 6 }), {
  maxLength: 4,
});
const floats = fc.oneof(
  fc.array(fc.oneof(fc.double(), edgeNumber), { maxLength: 64 }),
  fc.float32Array({ maxLength: 64 })
);
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 256 }),
  fc.uint8Array({ minLength: 8, maxLength: 64 }).map((b) => {
    const u = new Uint8Array(b);
    new DataView(u.buffer).setBigUint64(0, BigInt(u.length - 8), true);
    return u;
  })
);
// A real checkpoint with a few bytes changed (header, metadata or weights).
const mutatedCheckpoint = fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 8 }).map((edits) => {
  const b = checkpoint.slice();
  for (const [at, v] of edits) b[at % b.length] = v;
  return b;
});
const arrayLike = fc.constantFrom(
  { length: 1.2e9 },
  { length: -1 },
  { length: 'x' },
  new ArrayBuffer(8),
  new DataView(new ArrayBuffer(8)),
  new BigInt64Array(2)
);
const options = fc.record(
  {
    rows: fc.oneof(smallInt, sizeNumber),
    cols: fc.oneof(smallInt, sizeNumber),
    temperature: edgeNumber,
    B: fc.oneof(smallInt, sizeNumber),
    H: fc.oneof(smallInt, sizeNumber),
    T: fc.oneof(smallInt, sizeNumber),
    S: fc.oneof(smallInt, sizeNumber),
    Dk: fc.oneof(smallInt, sizeNumber),
    Dv: fc.oneof(smallInt, sizeNumber),
    causal: fc.anything(),
    keyPad: fc.oneof(fc.uint8Array({ maxLength: 8 }), fc.anything()),
    beam: fc.oneof(smallInt, edgeNumber),
    maxLen: fc.oneof(smallInt, edgeNumber),
    alpha: edgeNumber,
    split: fc.constantFrom('train', 'test', 'x', 3),
    seed: fc.oneof(smallInt, edgeNumber),
    n: fc.oneof(smallInt, edgeNumber),
  },
  { requiredKeys: [] }
);
const hostile = fc.oneof(
  { weight: 3, arbitrary: fc.anything() },
  { weight: 3, arbitrary: edgeNumber },
  { weight: 2, arbitrary: smallInt },
  { weight: 2, arbitrary: floats },
  { weight: 2, arbitrary: idRows },
  { weight: 2, arbitrary: bytes },
  { weight: 2, arbitrary: mutatedCheckpoint },
  { weight: 2, arbitrary: jsonText },
  { weight: 1, arbitrary: arrayLike },
  { weight: 2, arbitrary: options },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant(null) }
);
const args = (n) => fc.array(hostile, { minLength: 0, maxLength: n });

function isTrap(e) {
  return (
    e instanceof WebAssembly.RuntimeError ||
    !(e instanceof Error) ||
    /unreachable|out of bounds|abort|signature mismatch/i.test(e.message)
  );
}

// Calls f; a value or an Error is fine, a trap, an abort or a thrown non-Error fails the run.
function survives(f) {
  try {
    const r = f();
    if (r && typeof r.dispose === 'function') r.dispose();
  } catch (e) {
    if (isTrap(e)) throw new Error(`trap or non-Error thrown: ${e?.name}: ${e?.message ?? e}`);
  }
}

const property = (n, f) =>
  fc.property(args(n), (a) => {
    survives(() => f(a));
    stillWorks();
  });
const check = (p) => fc.assert(p, { numRuns: RUNS, seed: SEED, endOnFailure: true });

test('fuzz: the standalone functions', () => {
  const fns = [
    'softmax',
    'positionalEncoding',
    'contentAddress',
    'attention',
    'estimateBytes',
    'createSession',
    'loadSession',
    'lmScore',
    'modelKinds',
    'taskNames',
    'info',
  ];
  for (const name of fns) check(property(5, (a) => engine[name](...a)));
  const mod = engine.module;
  for (const name of ['formatDate', 'convexHull', 'tspOptimal', 'dateFormats', 'registry'])
    check(property(5, (a) => mod[name](...a)));
  // Benchmarks get a short time budget as their last argument, everything else arbitrary.
  check(property(6, (a) => mod.benchGemm(...a.slice(0, 6), 0.001)));
  check(property(6, (a) => mod.benchAttention(...a.slice(0, 6), 0.001)));
});

test('fuzz: session methods of every kind', () => {
  const fns = ['train', 'trainBatch', 'evaluate', 'decode', 'inspect', 'examples', 'save', 'info'];
  for (const config of [TRANSFORMER, RNN, POINTER]) {
    const s = engine.createSession(config);
    const runs = Math.max(20, Math.floor(RUNS / 3));
    for (const name of fns) {
      fc.assert(
        fc.property(args(4), (a) => {
          try {
            s[name](...a);
          } catch (e) {
            if (isTrap(e)) throw new Error(`${config.model.model ?? config.model}.${name}: ${e?.message ?? e}`);
          }
          stillWorks();
        }),
        { numRuns: runs, seed: SEED, endOnFailure: true }
      );
    }
    assert.ok(s.info().step >= 0);
    s.dispose();
  }
});

test('fuzz: the Worker protocol', async () => {
  const replies = [];
  const runtime = new Runtime(
    (m) => replies.push(m),
    async () => engine
  );
  await runtime.handle({ id: 0, type: 'init' });
  const created = await (async () => {
    await runtime.handle({ id: 1, type: 'create', config: TRANSFORMER });
    return replies.at(-1).result.session;
  })();
  const msg = fc.record(
    {
      id: fc.oneof(smallInt, fc.anything()),
      type: fc.constantFrom('call', 'create', 'load', 'session', 'train', 'dispose', 'pause', 'resume', 'nope', 3),
      fn: fc.constantFrom('softmax', 'attention', 'positionalEncoding', 'estimateBytes', 'constructor', '__proto__'),
      method: fc.constantFrom('train', 'decode', 'inspect', 'evaluate', 'save', 'dispose', 'toString'),
      session: fc.oneof(fc.constant(created), smallInt, fc.anything()),
      args: args(4),
      config: hostile,
      bytes: hostile,
      overrides: hostile,
      steps: fc.constantFrom(1, 2, 0, -1, NaN, 1.5, '3', null),
    },
    { requiredKeys: ['type'] }
  );
  await fc.assert(
    fc.asyncProperty(msg, async (m) => {
      const before = replies.length;
      await runtime.handle(m);
      for (const r of replies.slice(before)) {
        if (r.ok === false) {
          assert.equal(typeof r.error.message, 'string');
          assert.ok(!/unreachable|out of bounds|signature mismatch/i.test(r.error.message), r.error.message);
        }
      }
      stillWorks();
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true }
  );
});
