// `bottleneck` section demo: the fixed-size bottleneck, measured. An encoder–decoder without attention
// (RNNencdec) and one with it (RNNsearch) — same sizes, data, seed and steps — learn to copy
// symbol sequences of 3 to 16 tokens. Afterwards the engine decodes 200 held-out sequences
// with each model and the page plots exact-match accuracy per source length: the shape of
// Bahdanau et al.'s length figure, on the reader's machine. Below the charts, a source-length
// slider over the trained models: for the chosen length L, both models' accuracy at L (the plotted
// point), the first held-out sequence of length L with each model's decoded output (wrong tokens
// marked), and what each decoder reads: the encoder's summary c (one vector of 2 × hidden numbers,
// the last forward and first backward state of the bidirectional encoder) against RNNsearch's L
// annotations of the same width (the engine's attention map has one column per annotation).
// State: bottleneck.steps, bottleneck.len. On the element: el.perLength, el.decoded
// ({src, tgt, out: [encdec, search]}), el.atLength (what the slider shows).
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { escapeHtml } from '../../viz/bars.js';
import { raceRun } from '../common/race.js';
import { findMap, modelConfig, vocabFrom } from '../common/heads.js';
import { TASK_OPTIONS, HELD_OUT } from './facts.js';

// exact-match accuracy per source length; rows of ids
export function accuracyByLength(src, tgt, out) {
  const by = new Map();
  src.forEach((s, i) => {
    const o = Array.from(out[i] ?? []);
    const ok = o.length === tgt[i].length && o.every((x, k) => x === tgt[i][k]);
    const e = by.get(s.length) ?? [0, 0];
    by.set(s.length, [e[0] + (ok ? 1 : 0), e[1] + 1]);
  });
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([len, [c, n]]) => ({ len, acc: c / n, n }));
}

// tokens of an output that differ from the target, counting missing and extra ones
function wrongCount(out, tgt) {
  let w = Math.abs(out.length - tgt.length);
  for (let k = 0; k < Math.min(out.length, tgt.length); k++) if (out[k] !== tgt[k]) w++;
  return w;
}

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const steps = ctx.read.int('steps', 2000, 50, 20000);
  let len = ctx.read.int('len', 8, TASK_OPTIONS.min_len, TASK_OPTIONS.max_len);
  el.innerHTML = `
    <div class="run-host"></div>
    <div class="demo-row"><div class="loss-host"></div><div class="acc-host"></div></div>
    <p class="readout" name="summary" aria-live="polite"></p>
    <div class="controls"><label><span data-i18n="bn.len"></span> <input type="range" name="len" min="${TASK_OPTIONS.min_len}" max="${TASK_OPTIONS.max_len}" step="1" disabled></label> <output name="lenval"></output></div>
    <p class="note" name="lennote" data-i18n="bn.lenWait"></p>
    <div class="bn-at-len" name="atlen" aria-live="polite"></div>`;
  const lenInput = el.querySelector('[name=len]');
  lenInput.value = len;
  const labels = () => [t('bn.encdec'), t('bn.search')];
  const loss = lineChart(el.querySelector('.loss-host'), {
    series: labels().map((label) => ({ label })),
    xLabel: t('bahdanau.step'),
    yLabel: t('bahdanau.loss'),
    height: 200,
  });
  const acc = lineChart(el.querySelector('.acc-host'), {
    series: labels().map((label) => ({ label })),
    xLabel: t('bn.length'),
    yLabel: t('bn.accuracy'),
    height: 200,
    points: true,
  });
  const train = { batch: 16, schedule: 'constant', lr: 0.01, clip: 1 };
  let perLength = null,
    trained = null;
  const run = raceRun(el.querySelector('.run-host'), ctx, {
    steps,
    names: labels,
    configs: () =>
      ['rnnencdec', 'rnnsearch'].map((m) => ({
        model: { model: m, emb: 16, hidden: 32, attn: 32 },
        task: 'copy',
        task_options: TASK_OPTIONS,
        seed: 1,
        train,
      })),
    onChunk(curves) {
      loss.set(
        curves[0].map((p) => p.step),
        curves.map((c) => c.map((p) => p.loss))
      );
    },
    async finish(sessions) {
      const ex = await sessions[0].examples(HELD_OUT, { split: 'test', seed: 21 });
      const outs = await Promise.all(sessions.map((s) => s.decode(ex.src)));
      perLength = outs.map((o) => accuracyByLength(ex.src, ex.tgt, o));
      el.perLength = perLength;
      el.decoded = { src: ex.src, tgt: ex.tgt, out: outs.map((o) => o.map((r) => Array.from(r))) };
      // what each decoder reads, from the engine: the models' own configs, and the number of
      // annotations RNNsearch's attention spreads over (columns of its map) for each example shown
      const cfgs = sessions.map((s) => modelConfig(s.info));
      const annotations = new Map();
      for (let L = TASK_OPTIONS.min_len; L <= TASK_OPTIONS.max_len; L++) {
        const i = ex.src.findIndex((r) => r.length === L);
        if (i < 0) continue;
        const m = (await sessions[1].inspect([ex.src[i]], [ex.tgt[i]])).maps?.[0];
        if (m) annotations.set(L, m.S);
      }
      trained = { ex, word: vocabFrom(ex), cfgs, annotations };
      showLength();
      acc.set(
        perLength[0].map((p) => p.len),
        perLength.map((r) => r.map((p) => p.acc))
      );
      showSummary();
    },
    // before training: the untrained models' accuracy per length on the same held-out draw
    async onPreview(sessions, live) {
      const ex = await sessions[0].examples(HELD_OUT, { split: 'test', seed: 21 });
      const outs = await Promise.all(sessions.map((s) => s.decode(ex.src)));
      if (!live()) return;
      const untrained = outs.map((o) => accuracyByLength(ex.src, ex.tgt, o));
      acc.set(
        untrained[0].map((p) => p.len),
        untrained.map((r) => r.map((p) => p.acc))
      );
    },
    onReset() {
      loss.set([], [[], []]);
      acc.set([], [[], []]);
      perLength = null;
      trained = null;
      showSummary();
      showLength();
    },
  });

  // mean exact-match accuracy over lengths 10 and up, in the current language
  function showSummary() {
    const tail = (r) => r.filter((p) => p.len >= 10);
    const mean = (r) => r.reduce((s, p) => s + p.acc, 0) / Math.max(1, r.length);
    el.querySelector('[name=summary]').textContent = !perLength
      ? ''
      : t('bn.summary', {
          encdec: (100 * mean(tail(perLength[0]))).toFixed(0),
          search: (100 * mean(tail(perLength[1]))).toFixed(0),
        });
  }

  // ---- the length slider over the trained models
  const pct = (x) => (100 * x).toFixed(0);
  function outputHtml(out, tgt, word) {
    const toks = out.map((id, k) =>
      id === tgt[k] ? escapeHtml(word(id)) : `<mark class="wrong">${escapeHtml(word(id))}</mark>`
    );
    return toks.join(' ') || '∅';
  }
  function showLength() {
    const box = el.querySelector('[name=atlen]');
    lenInput.disabled = !trained;
    el.querySelector('[name=lennote]').hidden = !!trained;
    el.querySelector('[name=lenval]').textContent = `L = ${len}`;
    lenInput.setAttribute('aria-valuetext', t('bn.lenValue', { len }));
    if (!trained) {
      box.innerHTML = '';
      el.atLength = null;
      return;
    }
    const { ex, word, cfgs, annotations } = trained;
    const at = perLength.map((r) => r.find((p) => p.len === len) ?? null);
    const i = ex.src.findIndex((r) => r.length === len);
    const [enc, search] = cfgs;
    const width = (c) => 2 * c.hidden; // [h→ ; h←] of the bidirectional encoder
    const S = annotations.get(len) ?? len;
    el.atLength = {
      len,
      acc: at.map((p) => p?.acc ?? null),
      n: at[0]?.n ?? 0,
      index: i,
      summary: { vectors: 1, width: width(enc), encoder: enc.encoder, hidden: enc.hidden },
      annotations: { vectors: S, width: width(search), encoder: search.encoder, hidden: search.hidden },
    };
    const names = [t('bn.encdec'), t('bn.search')];
    const accLine = at[0]
      ? t('bn.accAt', {
          len,
          n: at[0].n,
          encdec: pct(at[0].acc),
          search: pct(at[1].acc),
          encdecN: Math.round(at[0].acc * at[0].n),
          searchN: Math.round(at[1].acc * at[1].n),
        })
      : t('bn.noneAt', { len });
    let example = '';
    if (i >= 0) {
      const rows = [
        [t('bn.source'), String(ex.srcText[i])],
        ...el.decoded.out.map((o, m) => [names[m], outputHtml(o[i], ex.tgt[i], word), o[i]]),
      ];
      example = `<p>${escapeHtml(t('bn.example', { len }))}</p><dl class="bn-example">${rows
        .map(
          ([k, v, o], r) =>
            `<dt>${escapeHtml(k)}</dt><dd class="readout" data-model="${r - 1}">${r ? v : escapeHtml(v)}${r ? ` <span class="caption">${escapeHtml(wrongCount(o, ex.tgt[i]) ? t('bn.wrong', { wrong: wrongCount(o, ex.tgt[i]) }) : t('bn.allRight'))}</span>` : ''}</dd>`
        )
        .join('')}</dl>`;
    }
    const w = width(enc);
    box.innerHTML = `<p class="readout" name="accat">${escapeHtml(accLine)}</p>${example}
      <ul class="readout" name="compression">
        <li data-model="0">${escapeHtml(t('bn.squeeze', { len, width: w, hidden: enc.hidden, per: (w / len).toFixed(1) }))}</li>
        <li data-model="1">${escapeHtml(t('bn.spread', { len: S, width: width(search), hidden: search.hidden, total: S * width(search) }))}</li>
      </ul>`;
    ctx.store.set({ len });
  }
  lenInput.addEventListener('input', () => {
    len = Number(lenInput.value);
    showLength();
  });
  showLength();
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      run.render();
      loss.relabel({ series: labels(), xLabel: t('bahdanau.step'), yLabel: t('bahdanau.loss') });
      acc.relabel({ series: labels(), xLabel: t('bn.length'), yLabel: t('bn.accuracy') });
      if (run.curves[0].length)
        loss.set(
          run.curves[0].map((p) => p.step),
          run.curves.map((c) => c.map((p) => p.loss))
        );
      if (perLength)
        acc.set(
          perLength[0].map((p) => p.len),
          perLength.map((r) => r.map((p) => p.acc))
        );
      showSummary();
      showLength();
    },
    unmount() {
      run.dispose();
      loss.destroy();
      acc.destroy();
      el.innerHTML = '';
    },
  };
}
