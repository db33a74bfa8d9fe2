// Training and measuring on the reader's own data (parsed by owndata-parse.js): a session that
// trains the chosen model on shuffled mini-batches of the parsed ids with the engine's
// trainBatch, and the held-out figures from the engine's decode (exact match and token accuracy;
// for a text, the held-out loss and perplexity from the engine's logits).
import { t } from '../../i18n/index.js';
import { mulberry32 } from '../../core/random.js';
import { BATCH, EOS, FIRST, LIMITS, UNK, permutation, shown } from './owndata-parse.js';

// A session that trains on given batches: the RemoteSession's trainBatch, one step per Worker
// request (each await lets the page breathe), with the run loop's events and controls.
export class BatchSession {
  constructor(remote, parsed, seed) {
    this.remote = remote;
    this.info = remote.info;
    this.parsed = parsed;
    this.rand = mulberry32(seed);
    this.handlers = new Map();
    this.flags = null;
    this.order = [];
  }
  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
    return () => this.handlers.get(type).delete(fn);
  }
  emit(type, payload) {
    for (const fn of this.handlers.get(type) ?? []) fn(payload);
  }
  // Shuffled epochs over the training split, BATCH rows at a time.
  batch() {
    const rows = this.parsed.train;
    if (this.order.length < Math.min(BATCH, rows.length)) this.order = permutation(rows.length, this.rand);
    const pick = this.order.splice(0, Math.min(BATCH, rows.length));
    if (this.parsed.data !== 'text') return { src: pick.map((i) => rows[i].src), tgt: pick.map((i) => rows[i].tgt) };
    // a text window: its first k symbols (0 to half the window) are the prompt, the rest the
    // target, so the model learns both to start and to continue a text
    const cut = pick.map((i) => Math.floor(this.rand() * (rows[i].tgt.length / 2 + 1)));
    return {
      src: pick.map((i, j) => rows[i].tgt.slice(0, cut[j])),
      tgt: pick.map((i, j) => rows[i].tgt.slice(cut[j])),
    };
  }
  async train(steps, { snapshot = null } = {}) {
    const f = (this.flags = { paused: false, cancelled: false, resume: null });
    const everyMs = snapshot?.everyMs ?? 300;
    const losses = [];
    let done = 0,
      step = 0,
      pending = [],
      lastPost = performance.now(),
      lastSnap = -Infinity;
    this.emit('state', { state: 'training' });
    try {
      while (done < steps && !f.cancelled) {
        if (f.paused) {
          this.emit('state', { state: 'paused' });
          await new Promise((r) => {
            f.resume = r;
          });
          f.resume = null;
          if (f.cancelled) break;
          this.emit('state', { state: 'training' });
        }
        const b = this.batch();
        const r = await this.remote.trainBatch(b.src, b.tgt);
        const loss = r.losses[0];
        losses.push(loss);
        pending.push(loss);
        done += 1;
        step = r.step;
        if (performance.now() - lastPost > 60 || done >= steps) {
          lastPost = performance.now();
          this.emit('progress', { step, loss, losses: pending, done, total: steps });
          pending = [];
        }
        if (snapshot && (performance.now() - lastSnap >= everyMs || done >= steps)) {
          lastSnap = performance.now();
          this.emit('snapshot', { data: await this.remote.inspect(snapshot.src, snapshot.tgt), step });
        }
      }
    } finally {
      this.flags = null;
      this.emit('state', { state: 'idle' });
    }
    return { steps: done, losses: Float32Array.from(losses), cancelled: f.cancelled, step };
  }
  pause() {
    if (this.flags) this.flags.paused = true;
  }
  resume() {
    if (this.flags) {
      this.flags.paused = false;
      this.flags.resume?.();
    }
  }
  cancel() {
    if (this.flags) {
      this.flags.cancelled = true;
      this.flags.resume?.();
    }
  }
  save() {
    return this.remote.save();
  }
  inspect(src, tgt, opts) {
    return this.remote.inspect(src, tgt, opts);
  }
  decode(src, opts) {
    return this.remote.decode(src, opts);
  }
  dispose() {
    return this.remote.dispose();
  }
}

// Held-out metrics of a session (a BatchSession or one loaded from exported weights) on the
// parsed data: pairs are decoded greedily (exact match, token accuracy, three examples); text
// windows are scored teacher-forced (mean loss per symbol and perplexity, and a continuation).
export async function measure(s, parsed) {
  const held = parsed.held.slice(0, LIMITS.heldOut);
  const sym = (id) => (id >= FIRST ? shown(parsed.symbols[id - FIRST]) : id === UNK ? '<unk>' : '');
  const join = (ids) => ids.map(sym).join(parsed.unit === 'word' ? ' ' : '');
  if (parsed.data === 'text') {
    let nll = 0,
      count = 0;
    for (let i = 0; i < held.length; i += 32) {
      const part = held.slice(i, i + 32);
      const r = await s.inspect(
        part.map(() => []),
        part.map((x) => x.tgt)
      );
      for (let b = 0; b < part.length; b++) {
        const gold = part[b].tgt;
        for (let k = 0; k < gold.length; k++) {
          // the model's own end mark after a window is not counted
          const at = (b * r.T + k) * r.V,
            L = r.logits;
          let mx = -Infinity,
            z = 0;
          for (let j = 0; j < r.V; j++) mx = Math.max(mx, L[at + j]);
          for (let j = 0; j < r.V; j++) z += Math.exp(L[at + j] - mx);
          nll += Math.log(z) + mx - L[at + gold[k]];
          count += 1;
        }
      }
    }
    const half = Math.floor(parsed.window / 2);
    const prompt = held[0].tgt.slice(0, half);
    const [out] = await s.decode([prompt], { maxLen: parsed.window });
    const loss = nll / count;
    return {
      kind: 'text',
      samples: held.length,
      tokens: count,
      loss,
      perplexity: Math.exp(loss),
      examples: [
        { src: join(prompt), out: join(Array.from(out).filter((x) => x > EOS)), gold: join(held[0].tgt.slice(half)) },
      ],
    };
  }
  let exact = 0,
    right = 0,
    total = 0;
  const examples = [];
  for (let i = 0; i < held.length; i += 50) {
    const part = held.slice(i, i + 50);
    const maxLen = part.reduce((m, x) => Math.max(m, x.tgt.length), 0) + 4;
    const outs = await s.decode(
      part.map((x) => x.src),
      { maxLen }
    );
    part.forEach((x, b) => {
      const out = Array.from(outs[b]).filter((id) => id !== EOS);
      const ok = out.length === x.tgt.length && out.every((id, k) => id === x.tgt[k]);
      exact += ok ? 1 : 0;
      right += x.tgt.reduce((n, id, k) => n + (out[k] === id ? 1 : 0), 0);
      total += x.tgt.length;
      if (examples.length < 3) examples.push({ line: x.line, src: join(x.src), out: join(out), gold: join(x.tgt), ok });
    });
  }
  return { kind: 'pairs', samples: held.length, exact: exact / held.length, tokenAccuracy: right / total, examples };
}

export function metricsText(m) {
  const pct = (x) => (100 * x).toFixed(1);
  const head =
    m.kind === 'text'
      ? t('pg.own.metrics.text', {
          n: m.samples,
          tokens: m.tokens,
          loss: m.loss.toFixed(3),
          ppl: m.perplexity.toFixed(2),
        })
      : t('pg.own.metrics.pairs', { n: m.samples, acc: pct(m.exact), tok: pct(m.tokenAccuracy) });
  return head;
}
