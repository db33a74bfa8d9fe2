// The wasm benchmark entry points (cpp/bindings/bench_bind.cpp) that `npm run bench` times:
// they run the real kernels on tiny sizes and return positive, finite rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeEngine } from './engine.mjs';

const mod = await loadNodeEngine('wasm');
const positive = (x, what) => assert.ok(Number.isFinite(x) && x > 0, `${what}: ${x}`);

test('wasm bench: GEMM rates for every transpose and a batch', () => {
  for (const [ta, tb] of [
    [false, false],
    [false, true],
    [true, false],
    [true, true],
  ])
    positive(mod.benchGemm(7, 13, 5, ta, tb, 1, 0.005), `benchGemm ${ta} ${tb}`);
  positive(mod.benchGemm(16, 8, 4, false, true, 3, 0.005), 'benchGemm batched');
});

test('wasm bench: a prepared GEMM runs once per JS call', () => {
  assert.equal(mod.benchGemmPrepare(7, 13, 5, false, true, 3), 2 * 7 * 13 * 5 * 3);
  mod.benchGemmRun();
  assert.throws(() => mod.benchGemmPrepare(7, 0, 5, false, false, 1), /N/);
});

test('wasm bench: SIMD peak and attention timing', () => {
  positive(mod.benchSimdPeak(0.005), 'benchSimdPeak');
  positive(mod.benchAttention(1, 2, 5, 7, 3, true, 0.005), 'benchAttention');
});

test('wasm bench: the SIMD peak is the largest of its parts, the GEMM tile among them', () => {
  const p = mod.benchSimdPeakParts(0.01);
  positive(p.mulAdd, 'mul+add chains');
  positive(p.tile, 'GEMM tile on L1 data');
  assert.equal(p.fma, 0, 'the plain SIMD128 build has no fused multiply-add chains');
  assert.equal(p.gflops, Math.max(p.mulAdd, p.fma, p.tile));
  assert.throws(() => mod.benchSimdPeakParts(-1), /minSeconds/);
});

test('wasm bench: bad sizes are rejected', () => {
  assert.throws(() => mod.benchGemm(0, 4, 4, false, false, 1, 0.005));
});

// The bench driver's helpers (bench/peers/): the peer's environment, the FLOP formula,
// the goals and the comparison with the previous run.
const { peerEnv, blasCore, trainStepFlops } = await import('../../bench/peers/env.mjs');
const { checkGoals, compareRuns } = await import('../../bench/peers/report.mjs');

test('bench: a peer gets full strength: no OPENBLAS_CORETYPE/L2_SIZE, bounded or passive OpenMP waits, pinned threads', () => {
  const base = {
    PATH: '/usr/bin',
    OPENBLAS_CORETYPE: 'Haswell',
    OPENBLAS_L2_SIZE: '1048576',
    OMP_WAIT_POLICY: 'ACTIVE',
    OMP_NUM_THREADS: '8',
  };
  const env = peerEnv(2, base);
  assert.equal(env.OPENBLAS_CORETYPE, undefined);
  assert.equal(env.OPENBLAS_L2_SIZE, undefined);
  assert.equal(env.OMP_WAIT_POLICY, undefined, 'the bounded spin replaces an inherited wait policy');
  assert.equal(env.GOMP_SPINCOUNT, '30000');
  const passive = peerEnv(2, base, { wait: 'passive' });
  assert.equal(passive.OMP_WAIT_POLICY, 'PASSIVE');
  assert.equal(passive.GOMP_SPINCOUNT, undefined);
  assert.throws(() => peerEnv(2, base, { wait: 'active' }), /spin' or 'passive/);
  assert.deepEqual([env.OMP_NUM_THREADS, env.OPENBLAS_NUM_THREADS, env.MKL_NUM_THREADS], ['2', '2', '2']);
  assert.equal(env.PATH, '/usr/bin');
  assert.equal(base.OPENBLAS_CORETYPE, 'Haswell', "the caller's environment is left alone");
  assert.equal(blasCore('OpenBLAS: something\nCore: SkylakeX\n{"x": 1}'), 'SkylakeX');
  assert.equal(blasCore('{"x": 1}'), null);
});

test('bench: model FLOPs of a training step, by hand for a one-layer model', () => {
  // B=1, S=T=2, C=2, F=4, V=3, one encoder and one decoder layer:
  // matmuls 6 * (2 * (4*4 + 2*2*4) + 2 * (8*4 + 2*2*4 + 2*3)) = 6 * (64 + 108) = 1032
  // attention 12 * 1 * 2 * (4 + (4 + 4)) = 288
  assert.equal(trainStepFlops({ B: 1, S: 2, T: 2, C: 2, F: 4, V: 3, enc: 1, dec: 1 }), 1032 + 288);
});

test('bench: goals mark rows met or missed; --compare reports the change since the last run', () => {
  const rows = checkGoals([
    { name: 'gemm 512×512×512 native 1T', unit: 'GFLOP/s', attnlab: 90, ratio: 0.9 },
    { name: 'gemm 512×512×512 wasm', unit: 'GFLOP/s', attnlab: 30, ratio: 1.2 },
    { name: 'gemm 512×512×512 A·Bᵀ wasm', unit: 'GFLOP/s', attnlab: 30, ratio: 0.5 },
    { name: 'Transformer training step (fwd+bwd+Adam), config M, 1 thread', unit: 'ms', attnlab: 10, ratio: 1.3 },
    // at 2 threads the goal is against PyTorch's passive-wait time: 19 / 10 = 1.9 < 2
    {
      name: 'Transformer training step (fwd+bwd+Adam), config M, 2 threads',
      unit: 'ms',
      attnlab: 10,
      ratio: 2.5,
      peer_passive: 19,
    },
    { name: 'thread split of a training step, config de-en: 2 threads (auto) / 1 thread', unit: 'x', attnlab: 1.85 },
    { name: 'thread split of a training step, config S: 2 threads (ranks) / 1 thread', unit: 'x', attnlab: 1.2 },
    { name: 'model FLOP/s, training config base (149.69 GFLOP/step), native 2T', unit: 'GFLOP/s', pct_peak: 58.2 },
    { name: 'model FLOP/s, training config S (0.75 GFLOP/step), native 2T', unit: 'GFLOP/s', pct_peak: 30 },
  ]);
  assert.deepEqual(
    rows.map((r) => r.goal_met),
    [false, true, undefined, true, false, true, undefined, false, undefined]
  );
  assert.equal(rows[4].goal_value, 1.9);
  assert.equal(rows[7].goal, '>= 60%');
  const lines = compareRuns(
    [
      { name: 'gemm 512×512×512 wasm', attnlab: 25, commit: 'abc', load: [1.5, 1, 1] },
      {
        name: 'Transformer training step (fwd+bwd+Adam), config M, 1 thread',
        attnlab: 8,
        commit: 'abc',
        load: [1, 1, 1],
      },
    ],
    rows
  );
  assert.match(lines[0], /new/);
  assert.match(lines[1], /25 -> 30 GFLOP\/s \(\+20\.0%, better/);
  assert.match(lines[3], /8 -> 10 ms \(\+25\.0%, worse/);
});
