// The playground's "your data" task, its panel: the reader pastes (or drops, or picks) a TSV of
// source→target pairs, one pair a line, or a plain text for a language model; the page parses it
// (owndata-parse.js: ids, vocabulary, the 90/10 split), trains the chosen model on it and
// measures the held-out 10% (owndata-run.js). A text trains the decoder-only Transformer ('lm');
// the pointer network reads point sets and has no "your data". The vocabulary exports as a JSON
// file beside the .safetensors weights. Nothing pasted goes into the URL.
// ownData(host, ctx, state) renders the panel; the playground calls prepare() before a run,
// config(), create() (a session whose train() runs trainBatch in the Worker step by step, with
// pause, resume, cancel and the usual progress and snapshot events), snapshot(), evaluate().
import { t } from '../../i18n/index.js';
import {
  FIRST,
  Failure,
  LIMITS,
  UNK,
  WINDOW,
  WORD_DROPOUT,
  ownConfig,
  parseOwn,
  shown,
  vocabularyJson,
} from './owndata-parse.js';
import { BatchSession, measure, metricsText } from './owndata-run.js';

export {
  LIMITS,
  PAD,
  BOS,
  EOS,
  UNK,
  FIRST,
  WORD_DROPOUT,
  parseOwn,
  ownConfig,
  vocabularyJson,
} from './owndata-parse.js';
export { BatchSession, measure, metricsText };

// host: the input panel; results: where the held-out examples and the vocabulary export go.
export function ownData(host, ctx, state, results) {
  host.innerHTML = `
    <div class="controls">
      <label><span data-i18n="pg.own.data"></span> <select name="data"><option value="pairs" data-i18n="pg.own.data.pairs"></option><option value="text" data-i18n="pg.own.data.text"></option></select></label>
      <label><span data-i18n="pg.own.unit"></span> <select name="vocab"><option value="char" data-i18n="pg.own.unit.char"></option><option value="word" data-i18n="pg.own.unit.word"></option></select></label>
      <label><span data-i18n="pg.own.wdrop"></span> <select name="wdrop">${WORD_DROPOUT.map((p) => `<option value="${p}">${p}</option>`).join('')}</select></label>
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
    $('own-note').textContent = [
      t('pg.own.note.ids'),
      t('pg.own.note.wdrop'),
      state.data === 'text'
        ? t('pg.own.note.text', { w: WINDOW[state.vocab] })
        : t('pg.own.note.pairs', { max: LIMITS.symbols }),
    ].join(' ');
  }
  function summaryText() {
    const p = own.parsed;
    return p
      ? t('pg.own.summary', { train: p.train.length, held: p.held.length, v: p.symbols.length, unk: p.unknown })
      : '';
  }
  function examplesHtml() {
    const ol = $('own-examples');
    ol.textContent = '';
    for (const x of own.metrics?.examples ?? []) {
      const li = document.createElement('li');
      li.textContent =
        own.metrics.kind === 'text'
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
  $('own-file').addEventListener('change', () =>
    readFile($('own-file').files[0]).finally(() => {
      $('own-file').value = '';
    })
  );
  area.addEventListener('dragover', (e) => {
    e.preventDefault();
  });
  area.addEventListener('drop', (e) => {
    const f = e.dataTransfer?.files?.[0];
    if (!f) return;
    e.preventDefault();
    readFile(f);
  });
  area.addEventListener('input', () => {
    if (own.error) showError(null);
  });
  $('own-vocab').addEventListener('click', () => {
    if (!own.parsed) return;
    const url = URL.createObjectURL(
      new Blob([vocabularyJson(own.parsed, own.config?.model?.model)], { type: 'application/json' })
    );
    const a = Object.assign(document.createElement('a'), {
      href: url,
      download: `attnlab-${own.config?.model?.model ?? 'model'}-own.vocab.json`,
    });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });

  Object.assign(own, {
    host,
    // Parses the box and checks the model fits; false (with the message shown) stops the run.
    async prepare(sizes) {
      own.parsed = null;
      own.config = null;
      $('own-summary').textContent = '';
      try {
        if (state.data === 'text' && state.model !== 'transformer') throw new Failure('pg.own.err.lm');
        const parsed = await parseOwn(area.value, { data: state.data, unit: state.vocab });
        const config = ownConfig(parsed, { model: state.model, seed: state.seed, wordDropout: state.wdrop, ...sizes });
        const client = await ctx.worker();
        const bytes = await client.estimateBytes(config);
        if (bytes > LIMITS.estimateMB * 1048576)
          throw new Failure('pg.own.err.big', { mb: (bytes / 1048576).toFixed(0), max: LIMITS.estimateMB });
        own.parsed = parsed;
        own.config = config;
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
      const p = own.parsed,
        x = p.held[0];
      const sym = (id) => (id >= FIRST ? shown(p.symbols[id - FIRST]) : id === UNK ? '<unk>' : '');
      const src = p.data === 'text' ? [] : x.src;
      const tgt = p.data === 'text' ? x.tgt.slice(0, 24) : x.tgt;
      const text =
        p.data === 'text'
          ? t('pg.own.snapshot.text', { text: tgt.map(sym).join(p.unit === 'word' ? ' ' : '') })
          : t('bahdanau.example', {
              src: src.map(sym).join(p.unit === 'word' ? ' ' : ''),
              tgt: tgt.map(sym).join(p.unit === 'word' ? ' ' : ''),
            });
      const labels = (m) => ({
        rowLabels: Array.from({ length: m.T }, (_, i) => (i < tgt.length ? sym(tgt[i]) : '</s>')),
        colLabels:
          p.data === 'text'
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
    ready(on) {
      $('own-vocab').disabled = !on || !own.parsed;
    },
    reset() {
      own.metrics = null;
      examplesHtml();
      $('own-vocab').disabled = true;
    },
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
