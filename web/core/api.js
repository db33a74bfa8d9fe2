// The synchronous engine API over the Embind module: the guide's standalone functions with
// JS-friendly defaults, and model sessions. Used directly on the page's main thread for small
// computations, and inside the Worker (runtime.js) for training. Every C++ error arrives as a
// JS Error with the C++ message; the module stays usable afterwards.

function toJson(x) {
  return typeof x === 'string' ? x : JSON.stringify(x ?? {});
}

// A model session: the C++ api::Session behind a handle that must be disposed.
export class Session {
  constructor(handle) {
    this.handle = handle;
  }

  info() { return JSON.parse(this.handle.info()); }
  // Trains `steps` steps on the session's task: {losses, tokens, step, lr, gradNorm}.
  train(steps) { return this.handle.train(steps); }
  // Trains one step on given token ids: src/tgt are arrays of rows (arrays of ids, no bos/eos).
  trainBatch(src, tgt) { return this.handle.trainBatch(src, tgt ?? []); }
  // The CLI's metrics on `samples` held-out examples: {loss, tokenAccuracy, sequenceAccuracy, samples}.
  evaluate(samples = 200, seed = 1234) { return JSON.parse(this.handle.evaluate(samples, seed)); }
  // Decodes each source row; beam > 1 uses beam search (one row at a time).
  decode(src, { beam = 1, maxLen = 0, alpha = 0.6 } = {}) { return this.handle.decode(src, beam, maxLen, alpha); }
  // Inspection of one teacher-forced pass: {logits, V, T, maps: [{name, B, H, T, S, weights}]}.
  inspect(src, tgt) { return this.handle.inspect(src, tgt ?? []); }
  // Examples from the task: {src: [[ids]], tgt: [[ids]], srcText: [..], tgtText: [..]}.
  examples(n = 4, { split = 'test', seed = 7 } = {}) { return this.handle.examples(n, split, seed); }
  // The checkpoint as .safetensors bytes (the same format the native CLI writes).
  save() { return this.handle.save(); }
  dispose() {
    if (this.handle) this.handle.delete();
    this.handle = null;
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
    softmax: (scores, opts = {}) => mod.softmax(scores, opts),
    positionalEncoding: (L, C) => mod.positionalEncoding(L, C),
    contentAddress: (memory, key, beta = 1) => mod.contentAddress(memory, key, beta),
    // Bytes a model of this config would take (parameters, optimizer state, activations).
    estimateBytes: (config) => { requireSessions(); return mod.estimateBytes(toJson(config)); },
    createSession: (config) => { requireSessions(); return new Session(mod.Session.create(toJson(config))); },
    loadSession: (bytes, overrides = {}) => {
      requireSessions();
      return new Session(mod.Session.load(bytes, toJson(overrides)));
    },
    modelKinds: () => { requireSessions(); return JSON.parse(mod.registry()).models; },
    taskNames: () => { requireSessions(); return JSON.parse(mod.registry()).tasks; },
  };
}
