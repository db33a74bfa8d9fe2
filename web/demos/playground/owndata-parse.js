// The playground's "your data", parsed: the reader's TSV of source→target pairs (one pair a line)
// or plain text (for a language model) becomes id rows, a character or word vocabulary built
// from the training split (90% of the pairs or 32/16-symbol windows, split with a fixed seed),
// and the held-out 10%. Ids follow the engine: 0 padding, 1 start, 2 end (cpp/models/model.hpp
// kFirstSymbol = 3); this page reserves 3 for symbols the training split never saw (<unk>), its
// symbols start at 4. Also the session config of a model on these data and the vocabulary file
// exported beside the weights (the checkpoint's metadata does not keep it). The panel is
// owndata.js; training and measuring on the parsed rows, owndata-run.js.
import { t } from '../../i18n/index.js';
import { mulberry32 } from '../../core/random.js';
import { trainDefaults } from './train.js';

export const LIMITS = {
  bytes: 2 * 1024 * 1024,
  symbols: 64,
  vocab: 2000,
  pairs: 20,
  windows: 20,
  estimateMB: 256,
  heldOut: 300,
};
export const PAD = 0,
  BOS = 1,
  EOS = 2,
  UNK = 3,
  FIRST = 4;
export const WINDOW = { char: 32, word: 16 };
export const BATCH = 32;
// The word dropout rates the panel offers (Sennrich & Zhang 2019): each training step replaces
// that share of the source symbols and of the decoder's input symbols with <unk>.
export const WORD_DROPOUT = [0, 0.1, 0.2, 0.3];
const SPLIT_SEED = 7;
const nextTurn = () => new Promise((r) => setTimeout(r, 0));

const tokenize = (s, unit) => (unit === 'word' ? s.trim().split(/\s+/).filter(Boolean) : [...s]);
export const shown = (sym) => (sym === ' ' ? '␣' : sym === '\n' ? '↵' : sym);

// A seeded permutation of 0..n-1 (Fisher–Yates).
export function permutation(n, rand) {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

export class Failure extends Error {
  constructor(key, params = {}) {
    super(key);
    this.key = key;
    this.params = params;
  }
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
  const all = new Map(),
    names = [];
  const id = (key, name = key) => {
    let k = all.get(key);
    if (k === undefined) {
      k = names.length;
      all.set(key, k);
      names.push(name);
    }
    return k;
  };
  const push = (out, line, from, to) => {
    // the symbols of line[from, to) as ids onto out
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
  let rows; // [{src, tgt}] arrays of provisional ids
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
      throw new Failure('pg.own.err.short', {
        n: toks.length,
        min: LIMITS.windows * W,
        unit: t(`pg.own.unit.${unit}`),
      });
  } else {
    rows = new Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      if ((i & 1023) === 1023) await nextTurn();
      const line = lines[i],
        n = i + 1;
      if (!line.trim()) throw new Failure('pg.own.err.blank', { line: n });
      const tab = line.indexOf('\t');
      if (tab < 0) throw new Failure('pg.own.err.tab', { line: n });
      if (line.indexOf('\t', tab + 1) >= 0) throw new Failure('pg.own.err.tabs', { line: n });
      const src = push([], line, 0, tab),
        tgt = push([], line, tab + 1, line.length);
      if (!src.length || !tgt.length)
        throw new Failure('pg.own.err.side', { line: n, side: t(src.length ? 'pg.own.target' : 'pg.own.source') });
      const long = Math.max(src.length, tgt.length);
      if (long > LIMITS.symbols) throw new Failure('pg.own.err.long', { line: n, n: long, max: LIMITS.symbols });
      rows[i] = { src, tgt };
    }
    if (rows.length < LIMITS.pairs) throw new Failure('pg.own.err.few', { n: rows.length, min: LIMITS.pairs });
  }
  // 90 / 10 with a fixed seed; at least two held out
  const order = permutation(rows.length, mulberry32(SPLIT_SEED));
  const nHeld = Math.max(2, Math.round(rows.length / 10));
  const held = order.slice(0, nHeld).sort((a, b) => a - b),
    train = order.slice(nHeld).sort((a, b) => a - b);
  // the vocabulary: the training split's symbols in order of first appearance
  const final = new Int32Array(names.length).fill(UNK),
    symbols = [];
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
  const remap = (a, count) => {
    // in place: the provisional ids become the vocabulary's
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
  return {
    data,
    unit,
    symbols,
    train: await enc(train, false),
    held: await enc(held, true),
    unknown,
    longest,
    window: data === 'text' ? WINDOW[unit] : null,
    vocabSize: FIRST + symbols.length,
  };
}

// The session config of a model on these data (the playground's sizes and widths).
export function ownConfig(parsed, { model, width, heads, layers, hidden, seed, wordDropout = 0 }) {
  const V = parsed.vocabSize;
  const transformer = { d_model: width, heads, d_ff: 2 * width, dropout: 0, src_vocab: V, tgt_vocab: V };
  const m =
    parsed.data === 'text'
      ? { model: 'lm', ...transformer, dec_layers: layers, max_len: 2 * parsed.window + 2 }
      : model === 'transformer'
        ? { model: 'transformer', ...transformer, enc_layers: layers, dec_layers: layers, max_len: parsed.longest + 2 }
        : { model, emb: hidden / 2, hidden, src_vocab: V, tgt_vocab: V }; // a recurrent kind (RNNsearch: attn = hidden)
  const train = trainDefaults(m.model, { batch: BATCH });
  return { model: m, seed, train: wordDropout > 0 ? { ...train, word_dropout: wordDropout, unk: UNK } : train };
}

// The vocabulary file exported beside the weights.
export function vocabularyJson(parsed, model) {
  return JSON.stringify({
    format: 'attnlab-own-vocabulary',
    version: 1,
    model,
    data: parsed.data,
    unit: parsed.unit,
    special: { pad: PAD, bos: BOS, eos: EOS, unk: UNK },
    first: FIRST,
    window: parsed.window,
    symbols: parsed.symbols,
  });
}
