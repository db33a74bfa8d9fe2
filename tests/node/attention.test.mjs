// The Embind module's attention() against a plain JS computation, its masks, and its errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeEngine } from './engine.mjs';

const engine = await loadNodeEngine();

function reference(q, k, v, T, S, D, causal) {
  const w = new Float64Array(T * S),
    out = new Float64Array(T * D);
  for (let i = 0; i < T; i++) {
    const s = [];
    for (let j = 0; j < S; j++) {
      let d = 0;
      for (let c = 0; c < D; c++) d += q[i * D + c] * k[j * D + c];
      s.push(causal && j > i ? -Infinity : d / Math.sqrt(D));
    }
    const mx = Math.max(...s);
    const e = s.map((x) => Math.exp(x - mx));
    const z = e.reduce((a, b) => a + b, 0);
    e.forEach((x, j) => {
      w[i * S + j] = x / z;
      for (let c = 0; c < D; c++) out[i * D + c] += (x / z) * v[j * D + c];
    });
  }
  return { w, out };
}

function seeded(n, seed) {
  let a = seed;
  return Float32Array.from({ length: n }, () => {
    a = (a * 1103515245 + 12345) % 2147483648;
    return (a / 2147483648) * 2 - 1;
  });
}

for (const [T, D, causal] of [
  [1, 1, false],
  [5, 3, false],
  [9, 16, true],
  [17, 33, true],
]) {
  test(`attention matches a plain JS reference (T=${T}, d_k=${D}, causal=${causal})`, () => {
    const q = seeded(T * D, 1 + T),
      k = seeded(T * D, 2 + D),
      v = seeded(T * D, 3);
    const r = engine.attention(q, k, v, { T, Dk: D, causal });
    const ref = reference(q, k, v, T, T, D, causal);
    assert.equal(r.weights.length, T * T);
    r.weights.forEach((x, i) => assert.ok(Math.abs(x - ref.w[i]) < 1e-5, `weight ${i}: ${x} vs ${ref.w[i]}`));
    r.out.forEach((x, i) => assert.ok(Math.abs(x - ref.out[i]) < 1e-5, `out ${i}: ${x} vs ${ref.out[i]}`));
  });
}

test('key padding mask gives masked keys zero weight', () => {
  const q = seeded(12, 5),
    k = seeded(12, 6),
    v = seeded(12, 7);
  const r = engine.attention(q, k, v, { T: 4, Dk: 3, keyPad: new Uint8Array([0, 1, 0, 1]) });
  for (let i = 0; i < 4; i++) {
    assert.equal(r.weights[i * 4 + 1], 0);
    assert.equal(r.weights[i * 4 + 3], 0);
    assert.ok(Math.abs(r.weights[i * 4] + r.weights[i * 4 + 2] - 1) < 1e-6);
  }
});

test('bad input raises an Error with the C++ message and the module stays usable', () => {
  assert.throws(
    () => engine.attention(new Float32Array(3), new Float32Array(4), new Float32Array(4), { T: 2, Dk: 2 }),
    (e) => e instanceof Error && /q has 3 values, expected B\*H\*T\*Dk = 4/.test(e.message)
  );
  assert.throws(
    () => engine.attention(new Float32Array(4), new Float32Array(4), new Float32Array(4), { T: 0, Dk: 2 }),
    (e) => e instanceof Error && /option 'T' must be an integer in \[1, 16777216\], got 0$/.test(e.message)
  );
  assert.throws(
    () => engine.attention(new Float32Array(4), new Float32Array(4), new Float32Array(4), null),
    (e) => e instanceof Error && /options object is required/.test(e.message)
  );
  assert.throws(
    () => engine.attention(new Float32Array(4), new Float32Array(4), new Float32Array(4)),
    (e) => e instanceof Error && /expected 4 args/.test(e.message)
  );
  const ok = engine.attention(new Float32Array([1, 0, 0, 1]), new Float32Array([1, 0, 0, 1]), new Float32Array(4), {
    T: 2,
    Dk: 2,
  });
  assert.ok(Math.abs(ok.weights[0] - 0.6697615) < 1e-6);
});
