// The engine API (web/core/api.js over the Embind module) in both builds: the standalone
// functions against plain JS formulas, info(), and C++ errors arriving as JS Errors with the
// module still usable afterwards.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine, hasBuild } from './engine.mjs';

const builds = ['wasm', ...(hasBuild('wasm-mt') || process.env.ATTNLAB_REQUIRE_MT ? ['wasm-mt'] : [])];
const engines = {};
for (const b of builds) engines[b] = await loadNodeApi(b);
after(() => Object.values(engines).forEach(releaseEngine));

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

for (const build of builds) {
  const engine = engines[build];

  test(`${build}: info names the build`, () => {
    const info = engine.info();
    assert.equal(info.build, build);
    assert.equal(info.threads, build === 'wasm-mt');
    assert.equal(info.simd, true);
    assert.ok(info.maxHeapBytes >= info.heapBytes && info.heapBytes > 0);
  });

  test(`${build}: softmax of given scores, rows and temperature`, () => {
    const x = [0.5, -1, 2, 3, 3, 3];
    for (const temperature of [1, 0.5, 4]) {
      const y = engine.softmax(x, { cols: 3, temperature });
      for (let r = 0; r < 2; r++) {
        const row = x.slice(r * 3, r * 3 + 3).map((v) => Math.exp(v / temperature));
        const z = row.reduce((a, b) => a + b);
        row.forEach((e, j) => close(y[r * 3 + j], e / z, 1e-6, `T=${temperature} [${r},${j}]`));
      }
    }
  });

  test(`${build}: positional encoding table matches the sin/cos formula`, () => {
    const L = 20,
      C = 10,
      pe = engine.positionalEncoding(L, C);
    assert.equal(pe.length, L * C);
    for (let p = 0; p < L; p++)
      for (let c = 0; c < C; c++) {
        const angle = p / 10000 ** ((2 * Math.floor(c / 2)) / C);
        close(pe[p * C + c], c % 2 ? Math.cos(angle) : Math.sin(angle), 1e-6, `PE[${p},${c}]`);
      }
  });

  test(`${build}: content addressing is a softmax of beta * cosine similarity`, () => {
    const memory = Float32Array.from([1, 2, 0, -1, 0.5, 0.5, 3, 0, 1]),
      key = Float32Array.from([1, 1, 0]);
    const beta = 3,
      r = engine.contentAddress(memory, key, beta);
    const sims = [0, 1, 2].map((i) => {
      const m = memory.slice(i * 3, i * 3 + 3);
      const dot = m.reduce((a, v, j) => a + v * key[j], 0);
      return dot / Math.hypot(...m) / Math.hypot(...key);
    });
    const e = sims.map((s) => Math.exp(beta * s)),
      z = e.reduce((a, b) => a + b);
    sims.forEach((s, i) => close(r.similarity[i], s, 1e-6, `similarity ${i}`));
    e.forEach((v, i) => close(r.weights[i], v / z, 1e-6, `weight ${i}`));
  });

  test(`${build}: C++ errors become Errors and the module stays usable`, () => {
    assert.throws(() => engine.softmax([1, 2], { cols: 3 }), /softmax: got 2 scores, expected R\*C = 3/);
    assert.throws(
      () => engine.positionalEncoding(0, 4),
      (e) => e instanceof Error && /positionalEncoding: L must be an integer in \[1, 16777216\], got 0$/.test(e.message)
    );
    assert.throws(() => engine.contentAddress([1, 2, 3], [1, 2], 1), /not a multiple of the key length/);
    assert.throws(
      () => engine.contentAddress([1, 2], [1, 2], -1),
      /contentAddress: beta must be in \[0, 1e\+30\], got -1/
    );
    assert.throws(
      () => engine.attention(new Float32Array(3), new Float32Array(4), new Float32Array(4), { T: 2, Dk: 2 }),
      /q has 3 values/
    );
    for (let i = 0; i < 200; i++) assert.throws(() => engine.softmax([NaN], {}), /finite/);
    close(engine.softmax([0, 0], {})[0], 0.5, 1e-7, 'after errors');
  });
}

if (builds.length === 2) {
  test('both builds give the same attention weights', () => {
    const q = Float32Array.from({ length: 4 * 8 }, (_, i) => Math.sin(i)),
      k = Float32Array.from({ length: 4 * 8 }, (_, i) => Math.cos(i * 1.3));
    const a = engines.wasm.attention(q, k, k, { T: 4, Dk: 8, causal: true });
    const b = engines['wasm-mt'].attention(q, k, k, { T: 4, Dk: 8, causal: true });
    a.weights.forEach((w, i) => close(w, b.weights[i], 1e-7, `weight ${i}`));
  });
}
