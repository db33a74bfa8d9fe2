// The synchronous engine API over the Embind module: the guide's standalone functions with
// JS-friendly defaults, and model sessions. Used directly on the page's main thread for small
// computations, and inside the Worker (runtime.js) for training. Every engine error arrives as
// a JS Error with the engine's message (TypeError for an argument of the wrong type, RangeError
// for one out of range); the module stays usable and unchanged afterwards
// (wasm-build/errors.js, cpp/bindings/convert.hpp).

function toJson(x, what = 'config') {
  if (typeof x === 'string') return x;
  if (x !== undefined && x !== null && typeof x !== 'object')
    throw new TypeError(`${what} must be an object or JSON text, got ${typeof x}`);
  return JSON.stringify(x ?? {});
}

// Checkpoint bytes: a Uint8Array (or any typed array's bytes), an ArrayBuffer, or an Array of
// byte values; anything else is refused before it is copied.
function toBytes(bytes, what) {
  if (bytes instanceof Uint8Array || Array.isArray(bytes)) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError(`${what}: expected a Uint8Array or ArrayBuffer of .safetensors bytes`);
}

// A model session: the C++ api::Session behind a handle that must be disposed. One class for
// every model kind; the C++ session decides the kind from the config or checkpoint (a point
// task without a model gets the pointer network). Sessions of a model that reads point sets
// (kind 'pointer', dim > 0 float features per input) take point sets where the others take
// token rows: decode(x, n), inspect(x, n) (n defaults to x.length / dim) and
// examples(count, {n, split, seed}); they train on their task only.
export class Session {
  constructor(handle) {
    this.handle = handle;
    const info = JSON.parse(handle.info());
    this.dim = info.dim;
    this.kind = info.dim > 0 ? 'pointer' : info.model;
  }

  info() {
    return JSON.parse(this.handle.info());
  }
  // Trains `steps` steps on the session's task: {losses, tokens, step, lr, gradNorm}.
  train(steps) {
    return this.handle.train(steps);
  }
  // Trains one step on given token ids: src/tgt are arrays of rows (arrays of ids, no bos/eos).
  trainBatch(src, tgt) {
    return this.handle.trainBatch(src, tgt ?? []);
  }
  // The CLI's metrics on `samples` held-out examples (camelCase for every model):
  // {loss, tokenAccuracy, sequenceAccuracy, samples, perLength?, aer?}; point tasks add
  // areaCoverage and invalidRate (convex-hull) or tourLength and optimalTourLength (tsp), with
  // `samples` sets per n of the task's range.
  evaluate(samples = 200, seed = 1234) {
    return JSON.parse(this.handle.evaluate(samples, seed));
  }
  // Decodes each source row; beam > 1 uses beam search (one row at a time). Point sets: one set
  // x [n*dim] -> {n, order, probs [steps, n+1], steps}; the last column is "end".
  decode(src, opts) {
    if (this.dim > 0) return this.handle.decodePoints(src, typeof opts === 'number' ? opts : src.length / this.dim);
    const { beam = 1, maxLen = 0, alpha = 0.6 } = opts ?? {};
    return this.handle.decode(src, beam, maxLen, alpha);
  }
  // Inspection of one teacher-forced pass: {logits, V, T, maps: [{name, B, H, T, S, weights}]}.
  // {causal: false} lifts a Transformer decoder's causal mask for this pass only; {parts: true}
  // adds each multi-head map's hs and per-head q [B,H,T,hs], k and v [B,H,S,hs];
  // {mute: {'encoder.layers.0.self_attn': [1]}} zeroes those heads' outputs for this pass (and
  // for the greedy decoding that makes tgt when none is given); {trace: true} (decoder-only and
  // encoder-only Transformers) adds traces, one per row: {tokens, first, tensors: [{name, dims,
  // values}]}, every activation of the pass at every position of the row in the order it was
  // computed (embed.token, embed.position, embed, then per layer input, self_attn.q/k/v/scores/
  // weights/heads/out_proj, add1, norm1, linear1, activation, linear2, add2, norm2 — pre-LN
  // models norm before each sublayer — then the final norm and logits; the logits of position
  // first + t are row t of this call's logits). Point sets (the runtime's snapshots): the
  // decode of x with its pointer distributions.
  inspect(src, tgt, { causal = true, parts = false, trace = false, mute = null } = {}) {
    if (this.dim > 0) return this.decode(src, typeof tgt === 'number' ? tgt : undefined);
    return this.handle.inspect(src, tgt ?? [], {
      causal: causal !== false,
      parts: parts === true,
      trace: trace === true,
      mute: mute ?? undefined,
    });
  }
  // Examples from the task: {src: [[ids]], tgt: [[ids]], srcText: [..], tgtText: [..]}; point
  // tasks: {n, dim, x [count, n, dim], target [[positions]]} (n 0: the task's n_min).
  examples(n = 4, { n: size = 0, split = 'test', seed = 7 } = {}) {
    return this.dim > 0 ? this.handle.pointExamples(n, size, split, seed) : this.handle.examples(n, split, seed);
  }
  // The checkpoint as .safetensors bytes (the same format the native CLI writes); optimizer: true
  // adds Adam's moments and step, so that a session loaded from it trains on as the same run.
  save({ optimizer = false } = {}) {
    return optimizer ? this.handle.saveTraining() : this.handle.save();
  }
  // Text models (trained on a corpus; info().vocabulary is {kind: 'bpe', size}): text to its
  // BPE ids, ids back to text, and the vocabulary piece of each id ('▁' marks a word start).
  encodeText(text) {
    return this.handle.encodeText(text);
  }
  decodeText(ids) {
    return this.handle.decodeText(ids);
  }
  pieces(ids) {
    return this.handle.pieces(ids);
  }
  // Translates one text: beam search (beam 1: greedy), then one teacher-forced pass over the
  // output for the cross-attention of every decoder layer. Row t of each map is the attention
  // of output step t, exactly as it was while decoding (the decoder is causal). The output stops
  // at maxLen pieces, by default 2 × source pieces + 10 as in attn translate and attn eval.
  // -> {text, src: {ids, pieces}, out: {ids, pieces}, cross: [{name, H, T, S, weights}]}
  // {trace: true} adds `trace`, the engine's record of its beam search (the output is the same):
  // {beam, alpha, winner: {step, index} | null, path: the winner's index at each step,
  //  steps: [[{parent, token, piece, text, logp, score, status}]]}, each step's candidates best
  // log-probability first: the ones it took (status 'kept', or 'finished' by </s>), then the
  // best ones it pruned; parent: the index among the previous step's kept ones; text: the
  // hypothesis so far (</s> left out); score: logp / ((5 + length) / 6)^alpha, by which the
  // winner is chosen among the finished. Beam 1 decodes greedily: no steps, winner null.
  translate(text, { beam = 4, alpha = 0.6, maxLen = 0, trace = false } = {}) {
    const src = this.encodeText(text);
    const limit = maxLen || 2 * src.length + 10;
    let out, search;
    if (trace) {
      search = this.handle.decodeTrace(src, beam, limit, alpha);
      out = Array.from(search.tokens);
    } else {
      out = this.decode([src], { beam, alpha, maxLen: limit })[0];
    }
    const seen = this.inspect([src], [out]);
    const cross = seen.maps
      .filter((m) => m.name.endsWith('.multihead_attn'))
      .map(({ name, H, T, S, weights }) => ({ name, H, T, S, weights }));
    return {
      text: this.decodeText(out),
      src: { ids: src, pieces: this.pieces(src) },
      out: { ids: Int32Array.from(out), pieces: this.pieces(out) },
      cross,
      ...(trace ? { trace: this.#readTrace(search) } : {}),
    };
  }
  // decodeTrace's record with each candidate's piece and text, and the winner's path
  #readTrace({ beam, alpha, winner, steps }) {
    const prefixes = [[]]; // token prefixes of the previous step's kept candidates
    const out = steps.map((step) => {
      const kept = [];
      const rows = step.map((c) => {
        const toks = [...prefixes[c.parent], c.token];
        if (c.status === 'kept') kept.push(toks);
        const piece = this.pieces([c.token])[0];
        const words = piece === '</s>' ? toks.slice(0, -1) : toks;
        return { ...c, piece, text: this.decodeText(words) };
      });
      prefixes.splice(0, prefixes.length, ...kept);
      return rows;
    });
    const path = [];
    if (winner) {
      let i = winner.index;
      for (let s = winner.step; s >= 0; --s) {
        path.unshift(i);
        const parent = steps[s][i].parent;
        if (s > 0) i = steps[s - 1].map((c, j) => (c.status === 'kept' ? j : -1)).filter((j) => j >= 0)[parent];
      }
    }
    return { beam, alpha, winner, path, steps: out };
  }
  dispose() {
    if (this.handle) this.handle.delete();
    this.handle = null;
  }
}

// The largest .safetensors header the engine reads (its checkpoint reader refuses a longer one).
export const HEADER_MAX_BYTES = 1 << 24;

// The model kind stored in a .safetensors checkpoint's "attnlab" metadata (null if unreadable).
// A header over the engine's limit is not parsed here (on the page's thread): null, and the
// Worker's engine says why it refuses the file.
export function checkpointModel(bytes) {
  try {
    if (!(bytes instanceof Uint8Array || bytes instanceof ArrayBuffer || Array.isArray(bytes))) return null;
    const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const n = Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0, true));
    if (n <= 0 || n > HEADER_MAX_BYTES || 8 + n > b.length) return null;
    const header = JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + n)));
    return JSON.parse(header.__metadata__?.attnlab ?? 'null')?.model ?? null;
  } catch {
    return null;
  }
}

export function wrapModule(mod, extra = {}) {
  const requireSessions = () => {
    if (typeof mod.Session !== 'function') throw new Error('this engine build has no model sessions');
  };
  return {
    module: mod,
    info: () => ({ ...mod.info(), ...extra, sessions: typeof mod.Session === 'function' }),
    // Kernel threads (pthread build only; n <= 0: all cores); returns the count in effect.
    setThreads: (n) => mod.setThreads(n),
    attention: (q, k, v, opts) => mod.attention(q, k, v, opts),
    // Milliseconds per call of softmax(QKᵀ/√d_k)V timed inside the engine: random inputs stay in
    // the wasm heap and the call repeats until minSeconds have passed (best 2 ms round), so no
    // copy or message round trip is in the figure.
    timeAttention: ({ T, S = T, Dk, H = 1, B = 1, causal = false, minSeconds = 0.02 } = {}) =>
      mod.benchAttention(B, H, T, S, Dk, causal, minSeconds),
    softmax: (scores, opts = {}) => mod.softmax(scores, opts),
    positionalEncoding: (L, C) => mod.positionalEncoding(L, C),
    contentAddress: (memory, key, beta = 1) => mod.contentAddress(memory, key, beta),
    // Bytes a model of this config would take (parameters, optimizer state, activations).
    estimateBytes: (config) => {
      requireSessions();
      return mod.estimateBytes(toJson(config));
    },
    createSession: (config) => {
      requireSessions();
      return new Session(mod.Session.create(toJson(config)));
    },
    loadSession: (bytes, overrides = {}) => {
      requireSessions();
      const b = toBytes(bytes, 'loadSession');
      return new Session(mod.Session.load(b, toJson(overrides, 'loadSession: overrides')));
    },
    modelKinds: () => {
      requireSessions();
      return JSON.parse(mod.registry()).models;
    },
    taskNames: () => {
      requireSessions();
      return JSON.parse(mod.registry()).tasks;
    },
    // per kind: capabilities (recurrent, packs_source, takes_points, aligns) and training defaults
    kindInfo: () => {
      requireSessions();
      return JSON.parse(mod.registry()).kinds;
    },
    // Log-probabilities of sentences under an LM checkpoint (bytes): [{tokens, ids, logprobs, total}].
    lmScore: (bytes, sentences) => mod.lmScore(toBytes(bytes, 'lmScore'), sentences),
  };
}
