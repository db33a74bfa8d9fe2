// Scaled dot-product attention from Node.js with attnlab's npm package (the WebAssembly engine).
//   npm install attnlab && node attention.mjs
// In this repository, after `npm run build && npm pack` (or `node scripts/package.mjs`), the
// package resolves to the repository itself, so `node examples/node/attention.mjs` runs too.
import { loadEngine } from 'attnlab';

const engine = await loadEngine(); // synchronous calls on this thread

// Three tokens with d_k = 2: the third query points the same way as the first key.
const q = new Float32Array([1, 0, 0, 1, 2, 0]);
const k = new Float32Array([1, 0, 0, 1, -1, 0]);
const v = new Float32Array([1, 0, 0, 1, 1, 1]);
const { weights, out } = engine.attention(q, k, v, { T: 3, Dk: 2, causal: false });
for (let i = 0; i < 3; i++) {
  const row = Array.from(weights.slice(i * 3, i * 3 + 3), (w) => w.toFixed(3)).join('  ');
  console.log(`query ${i}: weights ${row}  ->  out ${out[i * 2].toFixed(3)}, ${out[i * 2 + 1].toFixed(3)}`);
}
