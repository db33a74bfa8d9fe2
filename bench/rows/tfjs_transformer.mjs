// The peer for the wasm training benchmark: the same encoder-decoder Transformer as attnlab's
// (post-LN, sinusoidal positions, ReLU FFN, no dropout) written with TF.js ops and trained
// with TF.js's Adam on its wasm backend (XNNPACK, SIMD, 1 thread) in node. Embedding lookups
// are one-hot products (the backend lacks the kernel of gather's gradient; V is 32 here).
// tfjs-core's node bundle registers no gradients; its ES-module gradient files are loaded
// through a resolve hook (their relative imports carry no extension) into the shared registry.
import { createRequire, register } from 'node:module';
import path from 'node:path';

const hook = `export async function resolve(s, c, next) {
  if ((s.startsWith('./') || s.startsWith('../')) && !/\\.[cm]?js$/.test(s) && c.parentURL?.includes('/tfjs-core/dist/'))
    return next(s + '.js', c);
  return next(s, c);
}`;

let tf = null;

export async function loadTfjsWasm() {
  if (tf) return tf;
  register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url);
  const require = createRequire(import.meta.url);
  tf = require('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'))}/dist/`);
  wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  return tf;
}

function positional(L, C) {
  const pe = new Float32Array(L * C);
  for (let p = 0; p < L; p++)
    for (let c = 0; c < C; c++) {
      const a = p / 10000 ** ((2 * Math.floor(c / 2)) / C);
      pe[p * C + c] = c % 2 ? Math.cos(a) : Math.sin(a);
    }
  return pe;
}

// A model of config {V, C, H, F, layers} and a train step on int32 batches src [B,S],
// tgtIn/tgtOut [B,T]. Returns {step(src, tgtIn, tgtOut) -> loss, dispose()}.
export function tfjsTransformer({ V, C, H, F, layers, maxLen = 256 }) {
  const hs = C / H;
  const glorot = (shape) =>
    tf.variable(tf.randomUniform(shape, -Math.sqrt(6 / (shape[0] + shape[1])), Math.sqrt(6 / (shape[0] + shape[1]))));
  const zeros = (n) => tf.variable(tf.zeros([n]));
  const ones = (n) => tf.variable(tf.ones([n]));
  const attnParams = () => ({
    wq: glorot([C, C]),
    bq: zeros(C),
    wk: glorot([C, C]),
    bk: zeros(C),
    wv: glorot([C, C]),
    bv: zeros(C),
    wo: glorot([C, C]),
    bo: zeros(C),
  });
  const ffnParams = () => ({ w1: glorot([C, F]), b1: zeros(F), w2: glorot([F, C]), b2: zeros(C) });
  const ln = () => ({ g: ones(C), b: zeros(C) });
  const P = {
    srcEmb: tf.variable(tf.randomNormal([V, C], 0, C ** -0.5)),
    tgtEmb: tf.variable(tf.randomNormal([V, C], 0, C ** -0.5)),
    enc: Array.from({ length: layers }, () => ({ sa: attnParams(), ffn: ffnParams(), ln1: ln(), ln2: ln() })),
    dec: Array.from({ length: layers }, () => ({
      sa: attnParams(),
      ca: attnParams(),
      ffn: ffnParams(),
      ln1: ln(),
      ln2: ln(),
      ln3: ln(),
    })),
    out: glorot([C, V]),
    outB: zeros(V),
  };
  const pe = tf.tensor2d(positional(maxLen, C), [maxLen, C]);
  const optimizer = tf.train.adam(1e-3, 0.9, 0.98, 1e-9);

  const linear = (x, w, b) => tf.add(tf.matMul(x, w), b); // x [N,in]
  const layerNorm = (x, p) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), p.g), p.b);
  };
  const heads = (x, B, L) => tf.transpose(tf.reshape(x, [B, L, H, hs]), [0, 2, 1, 3]); // [B,H,L,hs]
  const mha = (xq, xkv, p, B, T, S, mask) => {
    const q = heads(linear(xq, p.wq, p.bq), B, T),
      k = heads(linear(xkv, p.wk, p.bk), B, S),
      v = heads(linear(xkv, p.wv, p.bv), B, S);
    let scores = tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(hs));
    if (mask) scores = tf.add(scores, mask);
    const o = tf.matMul(tf.softmax(scores), v); // [B,H,T,hs]
    return linear(tf.reshape(tf.transpose(o, [0, 2, 1, 3]), [B * T, C]), p.wo, p.bo);
  };
  const ffn = (x, p) => linear(tf.relu(linear(x, p.w1, p.b1)), p.w2, p.b2);

  function loss(src, tgtIn, tgtOut) {
    const [B, S] = src.shape,
      T = tgtIn.shape[1];
    // one-hot times the table: the wasm backend has no kernel for gather's gradient
    const embed = (E, ids, L) =>
      tf.add(
        tf.mul(tf.matMul(tf.oneHot(tf.reshape(ids, [B * L]), V), E), Math.sqrt(C)),
        tf.tile(tf.slice(pe, [0, 0], [L, C]), [B, 1])
      );
    let x = embed(P.srcEmb, src, S);
    for (const l of P.enc) {
      x = layerNorm(tf.add(x, mha(x, x, l.sa, B, S, S, null)), l.ln1);
      x = layerNorm(tf.add(x, ffn(x, l.ffn)), l.ln2);
    }
    const causal = tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), -1e9);
    let y = embed(P.tgtEmb, tgtIn, T);
    for (const l of P.dec) {
      y = layerNorm(tf.add(y, mha(y, y, l.sa, B, T, T, causal)), l.ln1);
      y = layerNorm(tf.add(y, mha(y, x, l.ca, B, T, S, null)), l.ln2);
      y = layerNorm(tf.add(y, ffn(y, l.ffn)), l.ln3);
    }
    const logits = linear(y, P.out, P.outB); // [B*T,V]
    return tf.losses.softmaxCrossEntropy(tf.oneHot(tf.reshape(tgtOut, [B * T]), V), logits);
  }

  return {
    step(src, tgtIn, tgtOut) {
      const l = tf.tidy(() => optimizer.minimize(() => loss(src, tgtIn, tgtOut), true));
      const v = l.dataSync()[0];
      l.dispose();
      return v;
    },
    dispose() {
      optimizer.dispose();
      pe.dispose();
      tf.disposeVariables();
    },
  };
}
