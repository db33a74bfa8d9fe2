// Which backend a new model trains on, decided in the Worker (runtime.js). The reader's (or a
// widget's `backend` attribute's) choice: 'webgpu', 'wasm', or 'auto' (the default): time one
// training step of the model on WebGPU and on the wasm engine (after a warm-up step each, on
// throwaway sessions of the same config) and take the faster; the verdict is kept per model
// config. Every verdict is posted as an 'engine' event: {backend: 'webgpu' | 'wasm', adapter,
// reason, ms: {webgpu, wasm}}; reason (when wasm runs): 'chosen' (the reader picked it), 'none'
// (no WebGPU here, or no adapter: blocked or no usable GPU), 'slower' (timed slower here),
// 'lost' (the device was lost or ran out of memory mid-run: the run went on in wasm).
// Checkpoints loaded to run (the translator) stay on wasm unless WebGPU was chosen outright:
// their reads (decoding) run on a host copy of the weights either way.
import { attachGpu } from './session.js';

const now = () => performance.now();

export class BackendChooser {
  constructor(engine, post, choice = 'auto') {
    this.engine = engine;
    this.post = post;
    this.choice = choice;
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

  // ms per step of one training step on each backend (a warm-up step first: pipelines compile)
  async time(config, st) {
    const ms = {};
    const { createSession } = await import('./session.js');
    for (const backend of ['webgpu', 'wasm']) {
      let s = null;
      try {
        s = await createSession(this.engine, { ...config, backend: backend === 'wasm' ? 'cpu' : 'webgpu' });
        const step = stepOf(s, config);
        await step();
        const t0 = now();
        await step();
        ms[backend] = now() - t0;
      } catch (e) {
        if (backend === 'webgpu') return { backend: 'wasm', reason: 'none', detail: e.message };
        ms[backend] = NaN;
      } finally {
        s?.dispose();
      }
    }
    if (!(ms.webgpu < ms.wasm)) return { backend: 'wasm', reason: 'slower', adapter: st.name, ms };
    return { backend: 'webgpu', adapter: st.name, ms };
  }
}

const use = (v) => (v.backend === 'webgpu' ? 'webgpu' : 'cpu');

// One training step of a session: on its task, or (a model trained on given batches) on a batch
// of the config's size made of the first ids of its vocabulary.
function stepOf(s, config) {
  const info = s.info();
  if (info.task) return () => s.train(1);
  const len = Math.max(1, Math.min(16, (info.config?.max_len ?? 18) - 2));
  const row = Array.from({ length: len }, (_, i) => 3 + (i % Math.max(1, Math.min(info.srcVocab, info.tgtVocab) - 3)));
  const rows = Array.from({ length: config.train?.batch ?? 64 }, () => row);
  return () => s.trainBatch(rows, rows);
}

// An error that means the GPU session cannot go on (lost device, out of GPU memory).
export const gpuFailure = (e) => /^WebGPU/.test(e?.message ?? '');
