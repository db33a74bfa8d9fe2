// Which backend a new model trains on, decided in the Worker (runtime.js). The reader's (or a
// widget's `backend` attribute's) choice: 'webgpu', 'wasm', or 'auto' (the default): train the
// model on WebGPU and on the wasm engine (throwaway sessions of the same config) as a run
// trains, in chunks of several steps with one read-back each, and take the backend whose median
// chunk, per step, is the faster. Each backend gets a warm-up step (pipelines compile, the
// workspace grows), then TIMED_CHUNKS timed chunks of as many steps as fill about CHUNK_MS,
// read-back included (as the run's chunks do; sized from one step and one larger chunk, which
// tell the read-back's cost from a step's); the verdict is kept per model config. Every verdict
// is posted as an 'engine' event: {backend: 'webgpu' | 'wasm', adapter, reason, ms: {webgpu,
// wasm}} (ms: the median per step); reason (when wasm runs): 'chosen' (the reader picked it), 'none' (no WebGPU
// here, or no adapter: blocked or no usable GPU), 'failed' (WebGPU was there but training the
// model on it failed: detail says how), 'slower' (timed slower here), 'lost' (the device was
// lost or ran out of memory mid-run: the run went on in wasm); when WebGPU runs, reason
// 'wasm-failed' (training the model on the wasm engine failed while timed: detail says how,
// ms.wasm is null) or none (timed faster).
// Checkpoints loaded to run (the translator) stay on wasm unless WebGPU was chosen outright:
// their reads (decoding) run on a host copy of the weights either way.
import { attachGpu } from './backend.js';

const TIMED_CHUNKS = 3;
const CHUNK_MS = 50; // the run's chunk target (runtime.js)
const MAX_CHUNK_STEPS = 16;

export class BackendChooser {
  // options (tests): createSession(engine, config) and now() in place of web/gpu/backend.js's
  // and performance.now
  constructor(engine, post, choice = 'auto', { createSession = null, now = () => performance.now() } = {}) {
    this.engine = engine;
    this.post = post;
    this.choice = choice;
    this.makeSession = createSession;
    this.now = now;
    this.gpu = null; // Promise<{table, name} | {error}>
    this.verdicts = new Map(); // config key -> Promise<verdict>
  }

  setChoice(choice) {
    if (!['auto', 'webgpu', 'wasm'].includes(choice))
      throw new RangeError(`backend must be 'auto', 'webgpu' or 'wasm', got ${JSON.stringify(choice)}`);
    this.choice = choice;
    this.verdicts.clear();
  }

  // The GPU as the Worker sees it: {name} or {error} (why not).
  async status() {
    this.gpu ??= attachGpu(this.engine).then(
      (g) => ({ name: g.name, gpu: g }),
      (e) => ({ error: e.message })
    );
    return this.gpu;
  }

  announce(v) {
    this.post({ event: 'engine', ...v });
    return v;
  }

  // The backend for a new session of `config` (an object): 'webgpu' or 'cpu'.
  async forCreate(config) {
    if (config.backend) return config.backend === 'wasm' ? 'cpu' : config.backend;
    if (this.choice === 'wasm') return use(this.announce({ backend: 'wasm', reason: 'chosen' }));
    const st = await this.status();
    if (st.error) return use(this.announce({ backend: 'wasm', reason: 'none', detail: st.error }));
    if (this.choice === 'webgpu') return use(this.announce({ backend: 'webgpu', adapter: st.name }));
    const key = JSON.stringify({ ...config, seed: 0 });
    if (!this.verdicts.has(key)) this.verdicts.set(key, this.time(config, st));
    return use(this.announce(await this.verdicts.get(key)));
  }

  async forLoad() {
    if (this.choice !== 'webgpu') return 'cpu';
    const st = await this.status();
    if (st.error) {
      this.announce({ backend: 'wasm', reason: 'none', detail: st.error });
      return 'cpu';
    }
    this.announce({ backend: 'webgpu', adapter: st.name });
    return 'webgpu';
  }

  // The median ms per step of TIMED_CHUNKS chunks on each backend, after a warm-up step.
  async time(config, st) {
    const createSession = this.makeSession ?? (await import('./backend.js')).createSession;
    const ms = {};
    for (const backend of ['webgpu', 'wasm']) {
      let s = null;
      try {
        s = await createSession(this.engine, { ...config, backend: backend === 'wasm' ? 'cpu' : 'webgpu' });
        ms[backend] = await this.perStep(stepsOf(s, config));
      } catch (e) {
        // a failure is no timing: WebGPU's sends the model to wasm and says why
        if (backend === 'webgpu') return { backend: 'wasm', reason: 'failed', adapter: st.name, detail: e.message };
        // the model failed on the CPU: WebGPU trains it, and the verdict says why (not "faster")
        ms.wasm = null;
        return { backend: 'webgpu', reason: 'wasm-failed', adapter: st.name, detail: e.message, ms };
      } finally {
        try {
          s?.dispose();
        } catch {
          // a session on a lost device cannot give its GPU memory back (its table is gone): the
          // verdict above stands
        }
      }
    }
    if (!(ms.webgpu < ms.wasm)) return { backend: 'wasm', reason: 'slower', adapter: st.name, ms };
    return { backend: 'webgpu', adapter: st.name, ms };
  }

  // train(k) trains k steps and reads them back once (as a chunk of a run): the median per step
  async perStep(train) {
    const timed = async (k) => {
      const t0 = this.now();
      await train(k);
      return Math.max(this.now() - t0, 1e-3);
    };
    await train(1); // warm-up: pipelines compile, the workspace grows
    const k = await this.chunkSteps(timed);
    const per = [];
    for (let i = 0; i < TIMED_CHUNKS; ++i) per.push((await timed(k)) / k);
    per.sort((a, b) => a - b);
    return per[Math.floor(per.length / 2)];
  }

  // The steps of a chunk of about CHUNK_MS, the size a run's chunks settle at (runtime.js grows
  // them to the time a chunk takes, read-back included). A chunk costs one read-back plus its
  // steps, so one step's time alone would size it by the read-back (a GPU whose read-back
  // takes 30 ms would be timed a step at a time, its read-back never amortized): a step and a
  // larger chunk tell the two apart, unless one step already fills the chunk.
  async chunkSteps(timed) {
    const one = await timed(1);
    if (one >= CHUNK_MS) return 1;
    const n = Math.max(2, Math.min(MAX_CHUNK_STEPS, Math.floor(CHUNK_MS / one)));
    const step = Math.max((await timed(n)) - one, 1e-3 * (n - 1)) / (n - 1);
    const readBack = Math.max(0, one - step);
    return Math.max(1, Math.min(MAX_CHUNK_STEPS, Math.floor((CHUNK_MS - readBack) / step)));
  }
}

const use = (v) => (v.backend === 'webgpu' ? 'webgpu' : 'cpu');

// k training steps of a session, read back once: on its task, or (a model trained on given
// batches, which reads back every batch) k batches of the config's size made of the first ids of
// its vocabulary.
function stepsOf(s, config) {
  const info = s.info();
  if (info.task) return (k) => s.train(k);
  const len = Math.max(1, Math.min(16, (info.config?.max_len ?? 18) - 2));
  const row = Array.from({ length: len }, (_, i) => 3 + (i % Math.max(1, Math.min(info.srcVocab, info.tgtVocab) - 3)));
  const rows = Array.from({ length: config.train?.batch ?? 64 }, () => row);
  return async (k) => {
    for (let i = 0; i < k; ++i) await s.trainBatch(rows, rows);
  };
}

// An error that means the GPU session cannot go on (lost device, out of GPU memory).
export const gpuFailure = (e) => /^WebGPU/.test(e?.message ?? '');
