// Scaled dot-product attention from node with the WebAssembly engine.
//   npm run build:engine && node examples/attention.mjs
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const dir = new URL('../build/wasm/', import.meta.url);
const engine = await require(new URL('attnlab-node.cjs', dir).pathname)({
  wasmBinary: readFileSync(new URL('attnlab-node.wasm', dir)),
});

// Three tokens with d_k = 2: the third query points the same way as the first key.
const q = new Float32Array([1, 0, 0, 1, 2, 0]);
const k = new Float32Array([1, 0, 0, 1, -1, 0]);
const v = new Float32Array([1, 0, 0, 1, 1, 1]);
const { weights, out } = engine.attention(q, k, v, { T: 3, Dk: 2, causal: false });
for (let i = 0; i < 3; i++) {
  const row = Array.from(weights.slice(i * 3, i * 3 + 3), (w) => w.toFixed(3)).join('  ');
  console.log(`query ${i}: weights ${row}  ->  out ${out[i * 2].toFixed(3)}, ${out[i * 2 + 1].toFixed(3)}`);
}
