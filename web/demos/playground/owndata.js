// The playground's "your data" task: the reader pastes (or drops, or picks) a TSV of
// source→target pairs, one pair a line, or a plain text for a language model; the page builds a
// character or word vocabulary from the training split (90% of the pairs or 32/16-symbol windows,
// split with a fixed seed), trains the chosen model on shuffled mini-batches of those ids with
// the engine's trainBatch, and measures the held-out 10% with the engine's decode (exact match
// and token accuracy; for a text, the held-out loss and perplexity from the engine's logits).
// Ids follow the engine: 0 padding, 1 start, 2 end (cpp/models/model.hpp kFirstSymbol = 3);
// this page reserves 3 for symbols the training split never saw (<unk>), its symbols start at 4.
// A text trains the decoder-only Transformer ('lm'); the pointer network reads point sets and
// has no "your data". The vocabulary exports as a JSON file beside the .safetensors weights
// (the checkpoint's metadata does not keep it). Nothing pasted goes into the URL.
// ownData(host, ctx, state) renders the panel; the playground calls prepare() before a run,
// config(), create() (a session whose train() runs trainBatch in the Worker step by step, with
// pause, resume, cancel and the usual progress and snapshot events), snapshot(), evaluate().
import { t } from '../../i18n/index.js';
import { mulberry32 } from '../../core/random.js';
import { trainDefaults } from './train.js';

export const LIMITS = { bytes: 2 * 1024 * 1024, symbols: 64, vocab: 2000, pairs: 20, windows: 20, estimateMB: 256, heldOut: 300 };
export const PAD = 0, BOS = 1, EOS = 2, UNK = 3, FIRST = 4;
const WINDOW = { char: 32, word: 16 };
const BATCH = 32;
const SPLIT_SEED = 7;
const nextTurn = () => new Promise((r) => setTimeout(r, 0));

const tokenize = (s, unit) => (unit === 'word' ? s.trim().split(/\s+/).filter(Boolean) : [...s]);
const shown = (sym) => (sym === ' ' ? '␣' : sym === '\n' ? '↵' : sym);

// A seeded permutation of 0..n-1 (Fisher–Yates).
function permutation(n, rand) {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

class Failure extends Error {
  constructor(key, params = {}) { super(key); this.key = key; this.params = params; }
}

// Parses the reader's input into id rows, the vocabulary and the split. Throws a Failure (an
// i18n key and its parameters) for malformed input. Linear: every symbol is looked up once in a
// table of all symbols (rows are kept as small integer arrays, not strings), then the training
// split's symbols get the ids from 4 on and the rest map to <unk>; it yields every 1,024 lines
// so a 2 MB paste never freezes the tab.
export async function parseOwn(text, { data = 'pairs', unit = 'char' } = {}) {
  let body = String(text ?? '');
  if (body.length > LIMITS.bytes) throw new Failure('pg.own.err.size', { mb: LIMITS.bytes / 1048576 });
  if (!/\S/.test(body)) throw new Failure('pg.own.err.empty');
  if (body.includes('\r')) body = body.replace(/\r\n?/g, '\n');
  let end = body.length;
  while (end > 0 && body[end - 1] === '\n') end--;
  await nextTurn();
  // every symbol of the input -> a provisional id (characters keyed by code point, so no
  // string is made per character)
  const all = new Map(), names = [];
  const id = (key, name = key) => {
    let k = all.get(key);
    if (k === undefined) { k = names.length; all.set(key, k); names.push(name); }
    return k;
  };
  const push = (out, line, from, to) => {  // the symbols of line[from, to) as ids onto out
    if (unit === 'word') {
      for (const w of tokenize(line.slice(from, to), unit)) out.push(id(w));
      return out;
    }
    for (let i = from; i < to; i++) {
      const cp = line.codePointAt(i);
      if (cp > 0xffff) i++;
      out.push(id(cp, String.fromCodePoint(cp)));
    }
    return out;
  };
  let rows;  // [{src, tgt}] arrays of provisional ids
  const lines = body.slice(0, end).split('\n');
  await nextTurn();
  if (data === 'text') {
    const W = WINDOW[unit];
    const toks = [];
    for (let i = 0; i < lines.length; i++) {
      if ((i & 1023) === 1023) await nextTurn();
      if (i && unit === 'char') toks.push(id(10, '\n'));
      push(toks, lines[i], 0, lines[i].length);
    }
    rows = [];
    for (let i = 0; i + W <= toks.length; i += W) rows.push({ src: [], tgt: toks.slice(i, i + W) });
    if (rows.length < LIMITS.windows)
      throw new Failure('pg.own.err.short', { n: toks.length, min: LIMITS.windows * W, unit: t(`pg.own.unit.${unit}`) });
  } else {
    rows = new Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      if ((i & 1023) === 1023) await nextTurn();
      const line = lines[i], n = i + 1;
      if (!line.trim()) throw new Failure('pg.own.err.blank', { line: n });
      const tab = line.indexOf('\t');
      if (tab < 0) throw new Failure('pg.own.err.tab', { line: n });
      if (line.indexOf('\t', tab + 1) >= 0) throw new Failure('pg.own.err.tabs', { line: n });
      const src = push([], line, 0, tab), tgt = push([], line, tab + 1, line.length);
      if (!src.length || !tgt.length) throw new Failure('pg.own.err.side', { line: n, side: t(src.length ? 'pg.own.target' : 'pg.own.source') });
      const long = Math.max(src.length, tgt.length);
      if (long > LIMITS.symbols) throw new Failure('pg.own.err.long', { line: n, n: long, max: LIMITS.symbols });
      rows[i] = { src, tgt };
    }
    if (rows.length < LIMITS.pairs) throw new Failure('pg.own.err.few', { n: rows.length, min: LIMITS.pairs });
  }
  // 90 / 10 with a fixed seed; at least two held out
  const order = permutation(rows.length, mulberry32(SPLIT_SEED));
  const nHeld = Math.max(2, Math.round(rows.length / 10));
  const held = order.slice(0, nHeld).sort((a, b) => a - b), train = order.slice(nHeld).sort((a, b) => a - b);
  // the vocabulary: the training split's symbols in order of first appearance
  const final = new Int32Array(names.length).fill(UNK), symbols = [];
  for (let j = 0; j < train.length; j++) {
    if ((j & 4095) === 4095) await nextTurn();
    const { src, tgt } = rows[train[j]];
    for (let i = 0; i < src.length + tgt.length; i++) {
      const id = i < src.length ? src[i] : tgt[i - src.length];
      if (final[id] !== UNK) continue;
      final[id] = FIRST + symbols.length;
      symbols.push(names[id]);
      if (symbols.length > LIMITS.vocab) throw new Failure('pg.own.err.vocab', { max: LIMITS.vocab });
    }
  }
  let unknown = 0;
  const remap = (a, count) => {  // in place: the provisional ids become the vocabulary's
    for (let i = 0; i < a.length; i++) {
      a[i] = final[a[i]];
      if (count && a[i] === UNK) unknown += 1;
    }
    return a;
  };
  const enc = async (list, count) => {
    const out = new Array(list.length);
    for (let j = 0; j < list.length; j++) {
      if ((j & 4095) === 4095) await nextTurn();
      const k = list[j];
      out[j] = { src: remap(rows[k].src, count), tgt: remap(rows[k].tgt, count), line: k + 1 };
    }
    return out;
  };
  const longest = rows.reduce((m, r) => Math.max(m, r.src.length, r.tgt.length), 0);
  return { data, unit, symbols, train: await enc(train, false), held: await enc(held, true), unknown, longest,
    window: data === 'text' ? WINDOW[unit] : null, vocabSize: FIRST + symbols.length };
}

// The session config of a model on these data (the playground's sizes and widths).
export function ownConfig(parsed, { model, width, heads, layers, hidden, seed }) {
  const V = parsed.vocabSize;
  const transformer = { d_model: width, heads, d_ff: 2 * width, dropout: 0, src_vocab: V, tgt_vocab: V };
  const m = parsed.data === 'text'
    ? { model: 'lm', ...transformer, dec_layers: layers, max_len: 2 * parsed.window + 2 }
    : model === 'transformer'
      ? { model: 'transformer', ...transformer, enc_layers: layers, dec_layers: layers, max_len: parsed.longest + 2 }
      : { model, emb: hidden / 2, hidden, src_vocab: V, tgt_vocab: V };  // a recurrent kind (RNNsearch: attn = hidden)
  return { model: m, seed, train: trainDefaults(m.model, { batch: BATCH }) };
}

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
  emit(type, payload) { for (const fn of this.handlers.get(type) ?? []) fn(payload); }
  // Shuffled epochs over the training split, BATCH rows at a time.
  batch() {
    const rows = this.parsed.train;
    if (this.order.length < Math.min(BATCH, rows.length)) this.order = permutation(rows.length, this.rand);
    const pick = this.order.splice(0, Math.min(BATCH, rows.length));
    if (this.parsed.data !== 'text') return { src: pick.map((i) => rows[i].src), tgt: pick.map((i) => rows[i].tgt) };
    // a text window: its first k symbols (0 to half the window) are the prompt, the rest the
    // target, so the model learns both to start and to continue a text
    const cut = pick.map((i) => Math.floor(this.rand() * (rows[i].tgt.length / 2 + 1)));
    return { src: pick.map((i, j) => rows[i].tgt.slice(0, cut[j])), tgt: pick.map((i, j) => rows[i].tgt.slice(cut[j])) };
  }
  async train(steps, { snapshot = null } = {}) {
    const f = this.flags = { paused: false, cancelled: false, resume: null };
    const everyMs = snapshot?.everyMs ?? 300;
    const losses = [];
    let done = 0, step = 0, pending = [], lastPost = performance.now(), lastSnap = -Infinity;
    this.emit('state', { state: 'training' });
    try {
      while (done < steps && !f.cancelled) {
        if (f.paused) {
          this.emit('state', { state: 'paused' });
          await new Promise((r) => { f.resume = r; });
          f.resume = null;
          if (f.cancelled) break;
          this.emit('state', { state: 'training' });
        }
        const b = this.batch();
        const r = await this.remote.trainBatch(b.src, b.tgt);
        const loss = r.losses[0];
        losses.push(loss); pending.push(loss);
        done += 1; step = r.step;
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
  pause() { if (this.flags) this.flags.paused = true; }
  resume() { if (this.flags) { this.flags.paused = false; this.flags.resume?.(); } }
  cancel() { if (this.flags) { this.flags.cancelled = true; this.flags.resume?.(); } }
  save() { return this.remote.save(); }
  inspect(src, tgt, opts) { return this.remote.inspect(src, tgt, opts); }
  decode(src, opts) { return this.remote.decode(src, opts); }
  dispose() { return this.remote.dispose(); }
}

// Held-out metrics of a session (a BatchSession or one loaded from exported weights) on the
// parsed data: pairs are decoded greedily (exact match, token accuracy, three examples); text
// windows are scored teacher-forced (mean loss per symbol and perplexity, and a continuation).
export async function measure(s, parsed) {
  const held = parsed.held.slice(0, LIMITS.heldOut);
  const sym = (id) => (id >= FIRST ? shown(parsed.symbols[id - FIRST]) : id === UNK ? '<unk>' : '');
  const join = (ids) => ids.map(sym).join(parsed.unit === 'word' ? ' ' : '');
  if (parsed.data === 'text') {
    let nll = 0, count = 0;
    for (let i = 0; i < held.length; i += 32) {
      const part = held.slice(i, i + 32);
      const r = await s.inspect(part.map(() => []), part.map((x) => x.tgt));
      for (let b = 0; b < part.length; b++) {
        const gold = part[b].tgt;
        for (let k = 0; k < gold.length; k++) {  // the model's own end mark after a window is not counted
          const at = (b * r.T + k) * r.V, L = r.logits;
          let mx = -Infinity, z = 0;
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
    return { kind: 'text', samples: held.length, tokens: count, loss, perplexity: Math.exp(loss),
      examples: [{ src: join(prompt), out: join(Array.from(out).filter((x) => x > EOS)), gold: join(held[0].tgt.slice(half)) }] };
  }
  let exact = 0, right = 0, total = 0;
  const examples = [];
  for (let i = 0; i < held.length; i += 50) {
    const part = held.slice(i, i + 50);
    const maxLen = part.reduce((m, x) => Math.max(m, x.tgt.length), 0) + 4;
    const outs = await s.decode(part.map((x) => x.src), { maxLen });
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
  const head = m.kind === 'text'
    ? t('pg.own.metrics.text', { n: m.samples, tokens: m.tokens, loss: m.loss.toFixed(3), ppl: m.perplexity.toFixed(2) })
    : t('pg.own.metrics.pairs', { n: m.samples, acc: pct(m.exact), tok: pct(m.tokenAccuracy) });
  return head;
}

// The vocabulary file exported beside the weights.
export function vocabularyJson(parsed, model) {
  return JSON.stringify({
    format: 'attnlab-own-vocabulary', version: 1, model, data: parsed.data, unit: parsed.unit,
    special: { pad: PAD, bos: BOS, eos: EOS, unk: UNK }, first: FIRST, window: parsed.window,
    symbols: parsed.symbols,
  });
}

// host: the input panel; results: where the held-out examples and the vocabulary export go.
export function ownData(host, ctx, state, results) {
  host.innerHTML = `
    <div class="controls">
      <label><span data-i18n="pg.own.data"></span> <select name="data"><option value="pairs" data-i18n="pg.own.data.pairs"></option><option value="text" data-i18n="pg.own.data.text"></option></select></label>
      <label><span data-i18n="pg.own.unit"></span> <select name="vocab"><option value="char" data-i18n="pg.own.unit.char"></option><option value="word" data-i18n="pg.own.unit.word"></option></select></label>
      <label class="file"><span data-i18n="pg.own.file"></span> <input type="file" name="own-file" accept=".tsv,.txt,text/plain,text/tab-separated-values"></label>
    </div>
    <div class="controls"><label class="wide"><span data-i18n="pg.own.paste"></span> <textarea name="own-text" rows="6" spellcheck="false" autocomplete="off"></textarea></label></div>
    <p class="note" name="own-note"></p>
    <p class="attnlab-error" role="alert" name="own-error" hidden></p>
    <p class="readout" name="own-summary"></p>`;
  results.innerHTML = `
    <ol class="readout" name="own-examples"></ol>
    <div class="controls"><button type="button" name="own-vocab" data-i18n="pg.own.exportVocab" disabled></button></div>`;
  const $ = (n) => host.querySelector(`[name=${n}]`) ?? results.querySelector(`[name=${n}]`);
  const area = $('own-text');
  const own = { parsed: null, config: null, error: null, metrics: null, summary: null };

  function showError(e) {
    own.error = e;
    const box = $('own-error');
    box.hidden = !e;
    box.textContent = e ? t(e.key, e.params) : '';
    host.dataset.error = e ? e.key : '';
  }
  function note() {
    $('own-note').textContent = [t('pg.own.note.ids'), state.data === 'text' ? t('pg.own.note.text', { w: WINDOW[state.vocab] }) : t('pg.own.note.pairs', { max: LIMITS.symbols })].join(' ');
  }
  function summaryText() {
    const p = own.parsed;
    return p ? t('pg.own.summary', { train: p.train.length, held: p.held.length, v: p.symbols.length, unk: p.unknown }) : '';
  }
  function examplesHtml() {
    const ol = $('own-examples');
    ol.textContent = '';
    for (const x of own.metrics?.examples ?? []) {
      const li = document.createElement('li');
      li.textContent = own.metrics.kind === 'text'
        ? t('pg.own.example.text', { src: x.src, out: x.out, gold: x.gold })
        : t(x.ok ? 'pg.own.example.ok' : 'pg.own.example.bad', { src: x.src, out: x.out || '∅', gold: x.gold });
      ol.append(li);
    }
  }

  // The file (pick or drop) fills the text box: what trains is what the reader sees.
  async function readFile(f) {
    if (!f) return;
    if (f.size > LIMITS.bytes) return showError(new Failure('pg.own.err.size', { mb: LIMITS.bytes / 1048576 }));
    area.value = await f.text();
    showError(null);
    area.dispatchEvent(new Event('input'));
  }
  $('own-file').addEventListener('change', () => readFile($('own-file').files[0]).finally(() => { $('own-file').value = ''; }));
  area.addEventListener('dragover', (e) => { e.preventDefault(); });
  area.addEventListener('drop', (e) => {
    const f = e.dataTransfer?.files?.[0];
    if (!f) return;
    e.preventDefault();
    readFile(f);
  });
  area.addEventListener('input', () => { if (own.error) showError(null); });
  $('own-vocab').addEventListener('click', () => {
    if (!own.parsed) return;
    const url = URL.createObjectURL(new Blob([vocabularyJson(own.parsed, own.config?.model?.model)], { type: 'application/json' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `attnlab-${own.config?.model?.model ?? 'model'}-own.vocab.json` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });

  Object.assign(own, {
    host,
    // Parses the box and checks the model fits; false (with the message shown) stops the run.
    async prepare(sizes) {
      own.parsed = null; own.config = null;
      $('own-summary').textContent = '';
      try {
        if (state.data === 'text' && state.model !== 'transformer') throw new Failure('pg.own.err.lm');
        const parsed = await parseOwn(area.value, { data: state.data, unit: state.vocab });
        const config = ownConfig(parsed, { model: state.model, seed: state.seed, ...sizes });
        const client = await ctx.worker();
        const bytes = await client.estimateBytes(config);
        if (bytes > LIMITS.estimateMB * 1048576) throw new Failure('pg.own.err.big', { mb: (bytes / 1048576).toFixed(0), max: LIMITS.estimateMB });
        own.parsed = parsed; own.config = config;
        showError(null);
        own.summary = summaryText();
        $('own-summary').textContent = own.summary;
        return true;
      } catch (e) {
        showError(e instanceof Failure ? e : new Failure('engine.error', { message: e.message }));
        return false;
      }
    },
    async create(client, config) {
      return new BatchSession(await client.createSession(config), own.parsed, state.seed);
    },
    // One held-out example for the heatmap, with its axis labels.
    snapshot() {
      const p = own.parsed, x = p.held[0];
      const sym = (id) => (id >= FIRST ? shown(p.symbols[id - FIRST]) : id === UNK ? '<unk>' : '');
      const src = p.data === 'text' ? [] : x.src;
      const tgt = p.data === 'text' ? x.tgt.slice(0, 24) : x.tgt;
      const text = p.data === 'text'
        ? t('pg.own.snapshot.text', { text: tgt.map(sym).join(p.unit === 'word' ? ' ' : '') })
        : t('bahdanau.example', { src: src.map(sym).join(p.unit === 'word' ? ' ' : ''), tgt: tgt.map(sym).join(p.unit === 'word' ? ' ' : '') });
      const labels = (m) => ({
        rowLabels: Array.from({ length: m.T }, (_, i) => (i < tgt.length ? sym(tgt[i]) : '</s>')),
        colLabels: p.data === 'text'
          ? Array.from({ length: m.S }, (_, i) => (i === 0 ? '<s>' : sym(tgt[i - 1]) || ''))
          : Array.from({ length: m.S }, (_, i) => (i < src.length ? sym(src[i]) : '</s>')),
      });
      return { example: { src, tgt, text, labels }, feed: { src: [src], tgt: [tgt] } };
    },
    async evaluate(s) {
      own.metrics = await measure(s, own.parsed);
      examplesHtml();
      return own.metrics;
    },
    metricsText: () => (own.metrics ? metricsText(own.metrics) : ''),
    ready(on) { $('own-vocab').disabled = !on || !own.parsed; },
    reset() { own.metrics = null; examplesHtml(); $('own-vocab').disabled = true; },
    relabel() {
      note();
      if (own.error) showError(own.error);
      if (own.parsed) $('own-summary').textContent = summaryText();
      examplesHtml();
    },
    note,
  });
  note();
  return own;
}
