// Sessions on the WebGPU backend: the engine's Session (web/core/api.js) with its model's tensors
// in the GpuTable's arena (web/gpu/table.js), attached to the module as Module.gpuTable, which
// the C++ WebGPU kernel table (cpp/kernels/webgpu_table.cpp) calls. A training call only
// encodes GPU work and returns; its losses and gradient norms are read here asynchronously
// (mapAsync) and handed back to the engine (settle), which stops the run as the CPU does when a
// step was not finite. Reads of the model (evaluate, decode, inspect, save) first fetch the bytes
// the engine will read (deviceRanges), so the C++ call finds them without waiting on the GPU.
// Every method returns a promise; the Worker's runtime awaits them between chunks.
import { openGpu, GpuTable } from './table.js';

const gpus = new WeakMap(); // engine module -> Promise<{table, name, lost}>

// The module's GpuTable, opened once (rejects with the reason WebGPU is not usable here).
export function attachGpu(engine, { arenaBytes } = {}) {
  const mod = engine?.module;
  if (!mod || typeof mod !== 'object')
    return Promise.reject(new Error('WebGPU: this engine has no module to attach to'));
  if (!gpus.has(mod)) {
    const p = openGpu().then(({ device, name }) => {
      const table = new GpuTable(device, { arenaBytes, adapter: name });
      const state = { table, name, lost: null };
      device.lost.then((info) => {
        state.lost = info.message || info.reason || 'device lost';
        if (mod.gpuTable === table) mod.gpuTable = null;
      });
      mod.gpuTable = table;
      return state;
    });
    p.catch(() => gpus.delete(mod));
    gpus.set(mod, p);
  }
  return gpus.get(mod);
}

// A failed GPU read (a lost device rejects mapAsync) as an error that names WebGPU.
async function gpuCall(f) {
  try {
    return await f();
  } catch (e) {
    if (/^WebGPU/.test(e?.message ?? '')) throw e;
    throw new Error(`WebGPU: ${e?.message ?? e}`);
  }
}

const wantsGpu = (x) => {
  if (!x) return false;
  const o = typeof x === 'string' ? JSON.parse(x) : x;
  return o?.backend === 'webgpu';
};

export class GpuSession {
  constructor(session, gpu) {
    this.inner = session;
    this.gpu = gpu;
    this.handle = session.handle;
    this.dim = session.dim;
    this.kind = session.kind;
    this.backend = 'webgpu';
  }

  get table() {
    if (this.gpu.lost) throw new Error(`WebGPU: the device was lost (${this.gpu.lost})`);
    return this.gpu.table;
  }

  // The pending steps' records, read and settled: {losses, gradNorm} of those steps.
  async settle(r) {
    if (!r.pending) return r;
    const rec = await gpuCall(() => this.table.readFloats(r.records, 2 * r.pending));
    this.handle.settle(rec);
    const losses = new Float32Array(r.pending);
    for (let i = 0; i < r.pending; ++i) losses[i] = rec[2 * i];
    const { records, pending, ...rest } = r;
    return { ...rest, losses, gradNorm: rec[2 * r.pending - 1] };
  }

  async read(optimizer = false) {
    await gpuCall(() => this.table.prefetch(JSON.parse(this.handle.deviceRanges(optimizer))));
  }

  // The device, destroyed: what a lost GPU looks like to the page (the fallback's tests).
  lose() {
    this.gpu.table.device.destroy();
  }

  // the engine's info, with the GEMM kernel this adapter runs (null until chosen)
  info() {
    return { ...this.inner.info(), gemm: this.gpu.table.gemmChoice?.kernel ?? null };
  }
  async train(steps) {
    this.table; // throws once the device is lost
    const r = this.inner.train(steps); // encodes `steps` steps; nothing is read
    return this.chosen(await this.settle(r));
  }
  async trainBatch(src, tgt) {
    return this.chosen(await this.settle(this.inner.trainBatch(src, tgt)));
  }
  // After the first steps of the table (their GEMM shapes known), the GEMM kernel is chosen
  // (GpuTable.chooseGemm: stored for this adapter, or timed once).
  async chosen(r) {
    await gpuCall(() => this.table.chooseGemm());
    return r;
  }
  async evaluate(samples, seed) {
    await this.read();
    return this.inner.evaluate(samples, seed);
  }
  async decode(src, opts) {
    await this.read();
    return this.inner.decode(src, opts);
  }
  async inspect(src, tgt, opts) {
    await this.read();
    return this.inner.inspect(src, tgt, opts);
  }
  examples(n, opts) {
    return this.inner.examples(n, opts);
  }
  async save({ optimizer = false } = {}) {
    await this.read(optimizer);
    return this.inner.save({ optimizer });
  }
  encodeText(text) {
    return this.inner.encodeText(text);
  }
  decodeText(ids) {
    return this.inner.decodeText(ids);
  }
  pieces(ids) {
    return this.inner.pieces(ids);
  }
  async translate(text, opts) {
    await this.read();
    return this.inner.translate(text, opts);
  }
  dispose() {
    this.inner.dispose();
    this.handle = null;
  }
}

// createSession / loadSession of an engine (web/core/api.js) that honour "backend": "webgpu" in
// the config (or the load overrides): the GPU is opened first, and the session wrapped.
export async function createSession(engine, config) {
  if (!wantsGpu(config)) return engine.createSession(config);
  const gpu = await attachGpu(engine);
  return new GpuSession(engine.createSession(config), gpu);
}

export async function loadSession(engine, bytes, overrides = {}) {
  if (!wantsGpu(overrides)) return engine.loadSession(bytes, overrides);
  const gpu = await attachGpu(engine);
  return new GpuSession(engine.loadSession(bytes, overrides), gpu);
}
