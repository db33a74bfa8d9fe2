// The wasm benchmark entry points (cpp/bindings/bench_bind.cpp) that `npm run bench` times:
// they run the real kernels on tiny sizes and return positive, finite rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeEngine } from './engine.mjs';

const mod = await loadNodeEngine('wasm');
const positive = (x, what) => assert.ok(Number.isFinite(x) && x > 0, `${what}: ${x}`);

test('wasm bench: GEMM rates for every transpose and a batch', () => {
  for (const [ta, tb] of [[false, false], [false, true], [true, false], [true, true]])
    positive(mod.benchGemm(7, 13, 5, ta, tb, 1, 0.005), `benchGemm ${ta} ${tb}`);
  positive(mod.benchGemm(16, 8, 4, false, true, 3, 0.005), 'benchGemm batched');
});

test('wasm bench: SIMD peak and attention timing', () => {
  positive(mod.benchSimdPeak(0.005), 'benchSimdPeak');
  positive(mod.benchAttention(1, 2, 5, 7, 3, true, 0.005), 'benchAttention');
});

test('wasm bench: bad sizes are rejected', () => {
  assert.throws(() => mod.benchGemm(0, 4, 4, false, false, 1, 0.005));
});
