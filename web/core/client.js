// The main-thread client: a promise API over the Worker's message protocol, plus events.
//   const engine = await createEngine();            // starts web/core/worker.js
//   const s = await engine.createSession(config);   // a RemoteSession
//   s.on('progress', (p) => chart.push(p.step, p.loss));
//   await s.train(500, { snapshot: { src, tgt, everyMs: 250 } });
// connectEngine(port) speaks the same protocol over any MessagePort-like object (tests).
import { toError } from './protocol.js';
import { HEADER_MAX_BYTES } from './api.js';

class Emitter {
  constructor() {
    this.handlers = new Map();
  }
  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
    return () => this.handlers.get(type).delete(fn);
  }
  emit(type, payload) {
    for (const fn of this.handlers.get(type) ?? []) fn(payload);
  }
}

export class RemoteSession extends Emitter {
  constructor(client, id, info) {
    super();
    this.client = client;
    this.id = id;
    this.info = info;
    this.state = 'idle';
  }
  call(method, ...args) {
    return this.client.request({ type: 'session', session: this.id, method, args });
  }
  // Trains `steps` steps in the Worker; resolves {steps, losses, cancelled, step}.
  train(steps, { chunkMs = 50, snapshot = null } = {}) {
    return this.client.request({ type: 'train', session: this.id, steps, chunkMs, snapshot });
  }
  pause() {
    this.client.send({ type: 'pause', session: this.id });
  }
  resume() {
    this.client.send({ type: 'resume', session: this.id });
  }
  cancel() {
    this.client.send({ type: 'cancel', session: this.id });
  }
  trainBatch(src, tgt) {
    return this.call('trainBatch', src, tgt);
  }
  evaluate(samples, seed) {
    return this.call('evaluate', samples, seed);
  }
  decode(src, opts) {
    return this.call('decode', src, opts);
  }
  inspect(src, tgt, opts) {
    return this.call('inspect', src, tgt, opts);
  }
  examples(n, opts) {
    return this.call('examples', n, opts);
  }
  save(opts) {
    return this.call('save', opts);
  }
  // Text models: see Session.translate / encodeText / decodeText / pieces in api.js.
  translate(text, opts) {
    return this.call('translate', text, opts);
  }
  encodeText(text) {
    return this.call('encodeText', text);
  }
  decodeText(ids) {
    return this.call('decodeText', ids);
  }
  pieces(ids) {
    return this.call('pieces', ids);
  }
  async refreshInfo() {
    this.info = await this.call('info');
    return this.info;
  }
  async dispose() {
    await this.client.request({ type: 'dispose', session: this.id });
    this.client.sessions.delete(this.id);
  }
}

export class EngineClient extends Emitter {
  constructor(port, { terminate = null } = {}) {
    super();
    this.port = port;
    this.terminateFn = terminate;
    this.pending = new Map();
    this.sessions = new Map();
    this.nextId = 1;
    this.info = null;
    port.addEventListener('message', (e) => this.receive(e.data));
    port.start?.();
  }

  send(msg, transfer = []) {
    this.port.postMessage(msg, transfer);
  }

  request(msg, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ ...msg, id }, transfer);
    });
  }

  receive(msg) {
    if (msg.event) {
      const s = this.sessions.get(msg.session);
      if (msg.event === 'state' && s) s.state = msg.state;
      s?.emit(msg.event, msg);
      this.emit(msg.event, msg);
      if (msg.event === 'snapshot') this.send({ type: 'snapshot-ack', session: msg.session });
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(toError(msg.error));
  }

  async init({ base, threads = 'auto', files = null, backend = 'auto', threadSplit = null } = {}) {
    this.info = await this.request({ type: 'init', base, threads, files, backend, threadSplit });
    return this.info;
  }
  // How the pthread build's threads share the training steps of models created from now on
  // whose config leaves train.thread_split open: 'kernels' (the default: the same bits on any
  // number of cores) or 'auto' (the engine's cost model: thread ranks for the Transformers).
  setThreadSplit(split) {
    return this.request({ type: 'thread-split', split });
  }
  // The backend of models created from now on: 'auto' (timed per model), 'webgpu' or 'wasm';
  // 'engine' events say what each model got.
  setBackend(choice) {
    return this.request({ type: 'backend', choice });
  }
  // Destroys the Worker's WebGPU device: its runs go on in wasm (an 'engine' event, reason 'lost').
  loseGpu() {
    return this.request({ type: 'gpu-lose' });
  }

  call(fn, ...args) {
    return this.request({ type: 'call', fn, args });
  }
  setThreads(n) {
    return this.call('setThreads', n);
  }
  attention(q, k, v, opts) {
    return this.call('attention', q, k, v, opts);
  }
  timeAttention(opts) {
    return this.call('timeAttention', opts);
  }
  softmax(scores, opts) {
    return this.call('softmax', scores, opts);
  }
  positionalEncoding(L, C) {
    return this.call('positionalEncoding', L, C);
  }
  contentAddress(memory, key, beta) {
    return this.call('contentAddress', memory, key, beta);
  }
  estimateBytes(config) {
    return this.call('estimateBytes', config);
  }
  modelKinds() {
    return this.call('modelKinds');
  }
  kindInfo() {
    return this.call('kindInfo');
  }
  taskNames() {
    return this.call('taskNames');
  }
  lmScore(checkpoint, sentences) {
    return this.call('lmScore', checkpoint, sentences);
  }

  adopt({ session, info }) {
    const s = new RemoteSession(this, session, info);
    this.sessions.set(session, s);
    return s;
  }
  async createSession(config) {
    return this.adopt(await this.request({ type: 'create', config }));
  }
  // Opens a .safetensors checkpoint (bytes copied, the caller keeps its array).
  async loadSession(bytes, overrides = {}) {
    if (!(bytes instanceof ArrayBuffer || ArrayBuffer.isView(bytes) || Array.isArray(bytes)))
      throw new TypeError('loadSession: expected a Uint8Array or ArrayBuffer of .safetensors bytes');
    const copy = ArrayBuffer.isView(bytes)
      ? new Uint8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
      : new Uint8Array(bytes);
    return this.adopt(await this.request({ type: 'load', bytes: copy, overrides }));
  }

  // The model kind a .safetensors checkpoint's metadata names (null where it cannot be read),
  // parsed in the Worker: a header of up to 16 MiB would stall the page's thread. Only the
  // header travels there.
  async checkpointModel(bytes) {
    const b = ArrayBuffer.isView(bytes)
      ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      : new Uint8Array(bytes);
    if (b.length < 8) return null;
    const n = Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0, true));
    if (n <= 0 || n > HEADER_MAX_BYTES || 8 + n > b.length) return null;
    const header = b.slice(0, 8 + n);
    return this.request({ type: 'checkpoint-model', bytes: header }, [header.buffer]);
  }

  terminate() {
    for (const p of this.pending.values()) p.reject(new Error('engine terminated'));
    this.pending.clear();
    this.terminateFn?.();
  }
}

export async function connectEngine(port, opts = {}) {
  const client = new EngineClient(port, opts);
  await client.init(opts);
  return client;
}

// A module Worker running `url`. From another origin (a CDN, a course platform's file store) a
// Worker script is refused, so the Worker is a same-origin Blob that imports it (CORS applies);
// in a sandboxed frame (an opaque origin, 'null', matching no script's) a data: URL one.
export function moduleWorker(url) {
  const href = new URL(url, globalThis.location?.href).href;
  // self.origin: 'null' in a sandboxed frame (where location.origin still names the server)
  const here = globalThis.origin ?? globalThis.location?.origin;
  if (!here || (here !== 'null' && new URL(href).origin === here)) return new Worker(href, { type: 'module' });
  // an opaque origin starts no Blob module Worker (it fails to load); a data: URL one it does
  if (here === 'null')
    return new Worker(`data:text/javascript,${encodeURIComponent(`import ${JSON.stringify(href)};`)}`, {
      type: 'module',
    });
  const blob = URL.createObjectURL(new Blob([`import ${JSON.stringify(href)};`], { type: 'text/javascript' }));
  const w = new Worker(blob, { type: 'module' });
  setTimeout(() => URL.revokeObjectURL(blob), 60000);
  return w;
}

// Starts a Worker and loads the engine in it; threads: 'auto' uses the pthread build when the
// page is cross-origin isolated. engine.info.build says which build loaded. `worker` makes the
// Worker (web/core/index.js and the page pass one for web/core/worker.js; the widget script an
// inline one); `files` maps engine file names to URLs (see engine.js).
export async function createEngine({
  base = globalThis.document?.baseURI ?? globalThis.location?.href,
  threads = 'auto',
  files = null,
  backend = 'auto',
  threadSplit = null,
  worker,
} = {}) {
  if (typeof worker !== 'function')
    throw new TypeError('createEngine: worker must be a function returning a Worker running web/core/worker.js');
  // A module Worker's script can fail to load for a moment (WebKit now and then on a reload, a
  // dropped connection): an error event without a message before the engine answered is a load
  // failure, and the Worker is started again, up to three times in all, before it is an error.
  for (let attempt = 1; ; attempt++) {
    const w = worker();
    const client = new EngineClient(w, { terminate: () => w.terminate() });
    let ready = false;
    let notLoaded = false;
    w.addEventListener('error', (e) => {
      if (!ready && !e.message) notLoaded = true;
      const reason = new Error(`engine worker failed: ${e.message || 'its script did not load'}`);
      for (const p of client.pending.values()) p.reject(reason);
      client.pending.clear();
    });
    try {
      await client.init({ base, threads, files, backend, threadSplit });
      ready = true;
      return client;
    } catch (e) {
      if (!notLoaded || attempt >= 3) throw e;
      w.terminate();
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}
