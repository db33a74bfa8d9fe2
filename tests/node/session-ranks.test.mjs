// Sessions on thread ranks in the pthread build (train.thread_split, api/model_session.hpp):
// the session reports its plan in info().threads, trains on 2 ranks with the losses of one
// thread (to rounding), its checkpoint records the rank count and a session loaded from it
// resumes on 2 ranks, bit for bit; the default splits kernels. The module is loaded with the
// pthread pool the page gives it (web/core/engine.js: 2 * threads - 1 workers). In the
// single-thread build a ranks session plans one rank. The engine line names a plan on ranks.
// On 4 threads, 2 ranks that each split their kernel calls over 2 threads (thread_split 'both',
// each rank on a kernel pool of its own) give the bits of the 2 ranks alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasBuild, loadNodeApi, releaseEngine } from './engine.mjs';
import { engineLabel, pthreadWorkers } from '../../web/core/engine.js';
import { unavailable } from '../unavailable.mjs';

const config = (threads, split, dropout = 0) => ({
  model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout, max_len: 24 },
  task: 'reverse',
  seed: 3,
  train: { batch: 12, schedule: 'constant', lr: 1e-3, threads, thread_split: split },
});

const equalBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

test('wasm-mt: a session trains on thread ranks, reports its plan and resumes bit for bit', async (t) => {
  if (!hasBuild('wasm-mt')) return unavailable(t, 'build/wasm-mt is not built (node scripts/build.mjs)');
  const engine = await loadNodeApi('wasm-mt', { threads: pthreadWorkers(2) });
  t.after(() => releaseEngine(engine));
  assert.equal(engine.info().build, 'wasm-mt');

  const ranks = engine.createSession(config(2, 'ranks'));
  const plan = ranks.info().threads;
  assert.equal(plan.mode, 'ranks');
  assert.equal(plan.ranks, 2);
  assert.equal(plan.kernel_threads, 1);
  assert.match(plan.why, /ranks/);
  const one = engine.createSession(config(1, 'ranks'));
  assert.equal(one.info().threads.mode, 'one');
  const a = ranks.train(4);
  const b = one.train(4);
  assert.equal(a.step, 4);
  assert.equal(a.tokens, b.tokens);
  for (let i = 0; i < 4; i++) {
    assert.ok(Number.isFinite(a.losses[i]));
    assert.ok(Math.abs(a.losses[i] - b.losses[i]) <= 1e-5 * Math.abs(b.losses[i]), `${a.losses[i]} vs ${b.losses[i]}`);
  }
  const fresh = engine.createSession(config(2, 'ranks'));
  assert.ok(!equalBytes(ranks.save(), fresh.save()), 'the weights did not move');
  fresh.dispose();
  assert.deepEqual(ranks.info().threads, plan);
  ranks.dispose();
  one.dispose();

  // the default splits kernels
  const plain = { ...config(2, 'kernels') };
  delete plain.train.thread_split;
  const k = engine.createSession(plain);
  assert.equal(k.info().threads.mode, 'kernels');
  k.dispose();

  // with dropout: 3 steps, a checkpoint, 3 more from it = 6 in one go
  const straight = engine.createSession(config(2, 'ranks', 0.1));
  straight.train(6);
  const whole = straight.save({ optimizer: true });
  const first = engine.createSession(config(2, 'ranks', 0.1));
  first.train(3);
  const half = first.save({ optimizer: true });
  const resumed = engine.loadSession(half);
  assert.equal(resumed.info().threads.ranks, 2);
  assert.match(resumed.info().threads.why, /resumes/);
  resumed.train(3);
  assert.ok(equalBytes(resumed.save({ optimizer: true }), whole), 'the resumed run differs');
  for (const s of [straight, first, resumed]) s.dispose();
});

test('wasm-mt: 2 ranks x 2 kernel threads give the bits of 2 ranks alone', async (t) => {
  if (!hasBuild('wasm-mt')) return unavailable(t, 'build/wasm-mt is not built (node scripts/build.mjs)');
  const engine = await loadNodeApi('wasm-mt', { threads: pthreadWorkers(4) });
  t.after(() => releaseEngine(engine));
  // wide enough that each rank's projections are split over its 2 kernel threads
  const wide = (threads, split) => {
    const c = config(threads, split);
    return { ...c, model: { ...c.model, d_model: 128, heads: 4, d_ff: 512 } };
  };
  const both = engine.createSession(wide(4, 'both'));
  const plan = both.info().threads;
  assert.equal(plan.mode, 'both');
  assert.equal(plan.ranks, 2);
  assert.equal(plan.kernel_threads, 2);
  assert.equal(engineLabel({ build: 'wasm-mt', poolSize: 4, plan }), 'WebAssembly SIMD128 · 2 ranks × 2 threads');
  const ranks = engine.createSession(wide(2, 'ranks'));
  assert.equal(ranks.info().threads.kernel_threads, 1);
  const a = both.train(3);
  const b = ranks.train(3);
  assert.deepEqual(a.losses, b.losses);
  // the tensors of the two checkpoints (their headers name other train.threads)
  const tensors = (bytes) =>
    bytes.subarray(8 + Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true)));
  assert.ok(equalBytes(tensors(both.save()), tensors(ranks.save())), 'split kernels changed the bits');
  const fresh = engine.createSession(wide(2, 'ranks'));
  assert.ok(!equalBytes(tensors(both.save()), tensors(fresh.save())), 'the weights did not move');
  for (const s of [both, ranks, fresh]) s.dispose();
});

test('wasm: a ranks session in the single-thread build plans one rank', async (t) => {
  if (!hasBuild('wasm')) return unavailable(t, 'build/wasm is not built (npm run build:engine)');
  const engine = await loadNodeApi('wasm');
  const s = engine.createSession(config(2, 'ranks'));
  assert.equal(s.info().threads.ranks, 1);
  assert.match(s.info().threads.why, /no threads/);
  assert.equal(s.train(2).step, 2);
  s.dispose();
});

test('engineLabel: a session plan on ranks reads "N threads as ranks"', () => {
  const info = { build: 'wasm-mt', poolSize: 4 };
  assert.equal(engineLabel(info), 'WebAssembly SIMD128 · 4 threads');
  assert.equal(engineLabel({ ...info, plan: { mode: 'ranks', ranks: 3 } }), 'WebAssembly SIMD128 · 3 threads as ranks');
  assert.equal(engineLabel({ ...info, plan: { mode: 'kernels', ranks: 1 } }), 'WebAssembly SIMD128 · 4 threads');
  assert.equal(
    engineLabel({ ...info, plan: { mode: 'both', ranks: 2, kernel_threads: 2 } }),
    'WebAssembly SIMD128 · 2 ranks × 2 threads'
  );
  assert.equal(engineLabel({ build: 'wasm', plan: { mode: 'ranks', ranks: 2 } }), 'WebAssembly SIMD128 · 1 thread');
  assert.equal(pthreadWorkers(8), 15);
});
