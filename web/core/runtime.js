// The Worker's runtime: owns the engine (api.js) and its sessions, answers protocol requests
// (protocol.js), and trains in chunks sized to ~chunkMs so pause/resume/cancel and other
// requests are served between chunks. Several sessions train at once: each training is its own
// loop of chunks that yields to the event loop after every chunk, so the loops take turns
// (time-slicing, about chunkMs each) and requests are answered in between. While training it
// posts progress events and, every snapshot.everyMs, the session's inspection data (with
// snapshot.evaluate, also its held-out evaluation every evaluate.everyMs and at the end),
// latest-wins per session: a new snapshot replaces one the page has not acknowledged yet
// instead of queueing behind it (keeping its evaluation).
// Independent of Worker globals: `post(msg, transfer)` sends, `load(init)` returns the engine.
import { CALLS, SESSION_METHODS, THREAD_SPLITS, errorPayload, transferables } from './protocol.js';
import { createSession, loadSession } from '../gpu/backend.js';
import { BackendChooser, gpuFailure } from '../gpu/choose.js';
import { checkpointModel } from './api.js';

const SAVE_EVERY_MS = 2000; // a WebGPU run's weights and Adam state are read back this often

const configObject = (c) => (typeof c === 'string' ? JSON.parse(c) : (c ?? {}));

const now = () => performance.now();
const READ_ONLY = ['info', 'save'];
const nextTurn = () => new Promise((r) => setTimeout(r, 0));

export class Runtime {
  constructor(post, load) {
    this.post = post;
    this.load = load;
    this.engine = null;
    this.sessions = new Map(); // id -> Session
    this.nextId = 1;
    this.trainings = new Map(); // session id -> {id, paused, cancelled, resume}
    this.snapshots = new Map(); // session id -> {inFlight, pending}
    this.threadSplit = 'kernels'; // train.thread_split of models whose config does not say
  }

  // A config with train.thread_split set from the reader's choice, where the engine has threads
  // and the config leaves it open ('kernels' is the engine's own default: left unsaid).
  withThreadSplit(config) {
    if (this.threadSplit === 'kernels' || config.train?.thread_split != null) return config;
    if (this.engine?.info().build !== 'wasm-mt') return config;
    return { ...config, train: { ...config.train, thread_split: this.threadSplit } };
  }

  setThreadSplit(split) {
    if (!THREAD_SPLITS.includes(split))
      throw new Error(`unknown thread split '${split}' (expected ${THREAD_SPLITS.join(' or ')})`);
    this.threadSplit = split;
  }

  reply(id, result) {
    this.post({ id, ok: true, result }, transferables(result));
  }

  async handle(msg) {
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'pause':
        return this.control(msg, 'pause');
      case 'resume':
        return this.control(msg, 'resume');
      case 'cancel':
        return this.control(msg, 'cancel');
      case 'snapshot-ack':
        return this.ackSnapshot(msg.session);
      default:
        break;
    }
    try {
      this.reply(msg.id, await this.request(msg));
    } catch (e) {
      this.post({ id: msg.id, ok: false, error: errorPayload(e) });
    }
  }

  async request(msg) {
    if (msg.type === 'init') {
      if (!this.engine) this.engine = await this.load(msg);
      this.chooser ??= new BackendChooser(this.engine, (m) => this.post(m), msg.backend ?? 'auto');
      if (msg.threadSplit != null) this.setThreadSplit(msg.threadSplit);
      return this.engine.info();
    }
    if (!this.engine) throw new Error('engine not initialised: send init first');
    switch (msg.type) {
      case 'call':
        if (!CALLS.includes(msg.fn)) throw new Error(`unknown engine function '${msg.fn}'`);
        return this.engine[msg.fn](...(msg.args ?? []));
      case 'create': {
        // the backend: the config's, else the chooser's (web/gpu/choose.js)
        const config = this.withThreadSplit(configObject(msg.config));
        const backend = await this.chooser.forCreate(config);
        return this.register(await createSession(this.engine, { ...config, backend }));
      }
      case 'load': {
        const overrides = configObject(msg.overrides);
        const backend = overrides.backend ?? (await this.chooser.forLoad());
        return this.register(await loadSession(this.engine, msg.bytes, { ...overrides, backend }));
      }
      case 'checkpoint-model': // a checkpoint header's model kind, parsed here, off the page's thread
        return checkpointModel(msg.bytes);
      case 'backend': // the reader's choice for models created from now on
        this.chooser.setChoice(msg.choice);
        return { choice: msg.choice };
      case 'thread-split': // the reader's choice for models created from now on
        this.setThreadSplit(msg.split);
        return { split: msg.split };
      case 'gpu-lose': {
        // destroys the GPU device under every WebGPU session (the fallback, made visible)
        let lost = 0;
        for (const s of this.sessions.values()) if (s.backend === 'webgpu' && !lost++) s.lose();
        return lost > 0;
      }
      case 'session': {
        if (!SESSION_METHODS.includes(msg.method)) throw new Error(`unknown session method '${msg.method}'`);
        // info and save read the weights between two chunks of a training: always allowed
        if (!READ_ONLY.includes(msg.method)) this.ensureIdle(msg.session, msg.method);
        return await this.session(msg.session)[msg.method](...(msg.args ?? []));
      }
      case 'train':
        return this.train(msg);
      case 'dispose': {
        this.ensureIdle(msg.session, 'dispose');
        this.session(msg.session).dispose();
        this.sessions.delete(msg.session);
        this.snapshots.delete(msg.session);
        return true;
      }
      default:
        throw new Error(`unknown request type '${msg.type}'`);
    }
  }

  register(session) {
    const id = this.nextId++;
    this.sessions.set(id, session);
    return { session: id, info: session.info() };
  }

  session(id) {
    const s = this.sessions.get(id);
    if (!s) throw new Error(`no session ${id} (disposed or never created)`);
    return s;
  }

  ensureIdle(id, what) {
    if (this.trainings.has(id)) throw new Error(`session ${id} is training: pause or cancel it before ${what}`);
  }

  // A control message names its session; without one it applies to every training.
  control(msg, what) {
    const targets = msg.session === undefined ? [...this.trainings.values()] : [this.trainings.get(msg.session)];
    for (const t of targets) if (t) this.controlOne(t, what);
  }

  controlOne(t, what) {
    if (what === 'pause' && !t.paused) {
      t.paused = true;
    } else if (what === 'resume' && t.paused) {
      t.paused = false;
      t.resume?.();
    } else if (what === 'cancel') {
      t.cancelled = true;
      t.resume?.();
    }
  }

  snapshotState(id) {
    if (!this.snapshots.has(id)) this.snapshots.set(id, { inFlight: false, pending: null });
    return this.snapshots.get(id);
  }

  offerSnapshot(msg) {
    const st = this.snapshotState(msg.session);
    if (st.inFlight) {
      const dropped = st.pending;
      if (dropped?.evaluation && !msg.evaluation) msg.evaluation = dropped.evaluation; // keep the newest one
      st.pending = msg;
      return;
    }
    st.inFlight = true;
    this.post(msg, transferables(msg.data));
  }

  // The page drew a session's last snapshot (an ack without a session: every session's).
  ackSnapshot(id) {
    for (const [sid, st] of this.snapshots) {
      if (id !== undefined && sid !== id) continue;
      st.inFlight = false;
      const next = st.pending;
      st.pending = null;
      if (next) this.offerSnapshot(next);
    }
  }

  // A WebGPU session that failed (lost device, out of GPU memory) goes on in wasm from its last
  // read-back state (weights, Adam, generators; at most SAVE_EVERY_MS of training behind), under
  // the same id; the page hears it as an 'engine' event.
  fallback(id, s, e) {
    if (!s.saved) throw e; // nothing was read back yet: the run cannot go on
    const cpu = this.engine.loadSession(s.saved, { backend: 'cpu' });
    try {
      s.dispose();
    } catch {
      // the GPU objects are gone with the device
    }
    this.sessions.set(id, cpu);
    this.post({
      event: 'engine',
      backend: 'wasm',
      reason: 'lost',
      detail: e.message,
      session: id,
      step: cpu.info().step,
    });
    return cpu;
  }

  async train({ session: id, steps, chunkMs = 50, snapshot = null }) {
    let s = this.session(id);
    if (this.trainings.has(id)) throw new Error(`session ${id} is already training`);
    if (!(Number.isInteger(steps) && steps > 0))
      throw new Error(`train: steps must be a positive integer, got ${steps}`);
    const t = { id, paused: false, cancelled: false, resume: null };
    this.trainings.set(id, t);
    const losses = [];
    let chunk = 1,
      done = 0,
      lastSnap = -Infinity,
      lastEval = -Infinity,
      step = 0;
    this.post({ event: 'state', session: id, state: 'training' });
    try {
      while (done < steps && !t.cancelled) {
        if (t.paused) {
          this.post({ event: 'state', session: id, state: 'paused' });
          await new Promise((r) => {
            t.resume = r;
          });
          t.resume = null;
          if (t.cancelled) break;
          this.post({ event: 'state', session: id, state: 'training' });
        }
        const t0 = now();
        let r;
        try {
          r = await s.train(Math.min(chunk, steps - done)); // WebGPU: read after the chunk
          if (s.backend === 'webgpu' && !(now() - (s.savedAt ?? -Infinity) < SAVE_EVERY_MS)) {
            s.saved = await s.save({ optimizer: true });
            s.savedAt = now();
            s.savedStep = r.step;
          }
        } catch (e) {
          if (s.backend !== 'webgpu' || !gpuFailure(e)) throw e;
          s = this.fallback(id, s, e);
          // the steps after the read-back state are taken again: this run still ends at its step
          const back = Math.min(done, Math.max(0, step - s.info().step));
          done -= back;
          step -= back;
          losses.length -= back;
          continue;
        }
        const ms = Math.max(now() - t0, 1e-3);
        // the GEMM kernel the adapter runs, once chosen (after the first chunk): on the engine line
        if (s.backend === 'webgpu' && !s.gemmShown && s.info().gemm) {
          s.gemmShown = true;
          this.post({ event: 'engine', backend: 'webgpu', adapter: s.gpu.name, gemm: s.info().gemm, session: id });
        }
        const chunkLosses = Array.from(r.losses);
        losses.push(...chunkLosses);
        done += chunkLosses.length;
        step = r.step;
        this.post({
          event: 'progress',
          session: id,
          step,
          loss: chunkLosses.at(-1),
          losses: chunkLosses,
          tokensPerSec: (r.tokens / ms) * 1000,
          lr: r.lr,
          done,
          total: steps,
          // WebGPU: the step of the last state read back (where a lost device's run goes on)
          ...(s.backend === 'webgpu' && s.savedStep !== undefined ? { readBack: s.savedStep } : {}),
        });
        chunk = Math.max(1, Math.min(1000, Math.round(chunk * (chunkMs / ms)) || 1));
        if (snapshot && (now() - lastSnap >= (snapshot.everyMs ?? 250) || done >= steps)) {
          lastSnap = now();
          const msg = { event: 'snapshot', session: id, step, data: await s.inspect(snapshot.src, snapshot.tgt) };
          const ev = snapshot.evaluate;
          if (ev && (now() - lastEval >= (ev.everyMs ?? 0) || done >= steps)) {
            lastEval = now();
            msg.evaluation = { ...(await s.evaluate(ev.samples, ev.seed)), step };
          }
          this.offerSnapshot(msg);
        }
        await nextTurn();
      }
    } finally {
      this.trainings.delete(id);
      this.post({ event: 'state', session: id, state: 'idle' });
    }
    return { steps: done, losses: Float32Array.from(losses), cancelled: t.cancelled, step };
  }
}
