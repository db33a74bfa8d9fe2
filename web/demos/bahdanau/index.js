// §4 demo: RNNsearch (Bahdanau, Cho & Bengio 2015: bi-GRU encoder, GRU decoder, additive
// attention α_ij = softmax_j(vᵀ tanh(W s_{i-1} + U h_j))) trained live in the engine's Worker.
// The heatmap is the model's own α on one held-out example, refreshed while it trains. On the
// `reverse` task the gold alignment is known exactly (output i copies input L-1-i, an
// alignment that crosses completely), so the page tracks the mean attention mass on it; on
// `phrases` (English → French noun phrases, adjective order flips) the map is shown as is.
// State: bahdanau.task, bahdanau.steps. On the element: el.curve ([{step, loss, gold}]).
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import '../../viz/heatmap.js';
import { sessionRun } from '../common/session.js';
import { tokenLabels, alignmentMap } from '../common/maps.js';

const TASKS = {
  reverse: { task: 'reverse', task_options: { min_len: 5, max_len: 8, symbols: 10 } },
  phrases: { task: 'phrases', task_options: { n_min: 2, n_max: 6 } },
};

// Mean over output positions i < L of α[i, L-1-i]: the mass on the reversal's gold links.
export function goldMass(w, T, S, L) {
  let m = 0;
  for (let i = 0; i < L && i < T; i++) m += w[i * S + (L - 1 - i)];
  return m / L;
}

export async function mount(el, ctx) {
  const { read, store } = ctx;
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const state = { task: read.str('task', 'reverse', Object.keys(TASKS)), steps: read.num('steps', 400, 100, 20000), seed: read.num('seed', 1, 0, 1e9) };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="bahdanau.task"></span> <select name="task">${Object.keys(TASKS).map((k) => `<option value="${k}" data-i18n="bahdanau.task.${k}"></option>`).join('')}</select></label>
    </div>
    <div class="run-host"></div>
    <p class="readout" name="example"></p>
    <div class="demo-row">
      <al-heatmap data-i18n-aria="bahdanau.heatmap"></al-heatmap>
      <div class="chart-host"></div>
    </div>
    <p class="readout" name="metric" aria-live="polite"></p>`;
  const heat = el.querySelector('al-heatmap');
  const sel = el.querySelector('[name=task]');
  sel.value = state.task;
  const goldSeries = () => (state.task === 'reverse' ? [t('bahdanau.loss'), t('bahdanau.gold')] : [t('bahdanau.loss')]);
  let chart = null;
  const makeChart = () => {
    chart?.destroy();
    chart = lineChart(el.querySelector('.chart-host'), { series: goldSeries().map((label) => ({ label })), xLabel: t('bahdanau.step'), height: 200 });
  };
  makeChart();
  let example = null;
  let curve = [];
  el.curve = curve;

  function drawMap(data, step) {
    const m = alignmentMap(data);
    if (!m || !example) return;
    const L = example.src.length;
    heat.set(m.weights, m.T, m.S, { rowLabels: tokenLabels(example.tgtText, m.T, example.tgt), colLabels: tokenLabels(example.srcText, m.S, example.src) });
    const gold = state.task === 'reverse' ? goldMass(m.weights, m.T, m.S, L) : null;
    const last = curve.at(-1);
    curve.push({ step, loss: last?.loss ?? null, gold });
    el.alignment = { weights: [...m.weights], T: m.T, S: m.S, L, step };
    if (gold !== null) el.querySelector('[name=metric]').textContent = t('bahdanau.metric', { gold: gold.toFixed(3), chance: (1 / m.S).toFixed(3), step });
    el.dispatchEvent(new CustomEvent('snapshot', { detail: { step, gold } }));
  }

  function redrawChart() {
    const pts = curve.filter((p) => p.loss !== null);
    const ys = [pts.map((p) => p.loss)];
    if (state.task === 'reverse') ys.push(pts.map((p) => p.gold));
    chart.set(pts.map((p) => p.step), ys);
  }

  const run = sessionRun(el.querySelector('.run-host'), ctx, {
    steps: state.steps,
    config: () => ({ model: { model: 'rnnsearch', emb: 24, hidden: 48, attn: 48 }, ...TASKS[state.task], seed: state.seed,
      train: { batch: 32, schedule: 'constant', lr: 0.01, clip: 1 } }),
    async snapshot(s) {
      const ex = await s.examples(1, { split: 'test', seed: 11 });
      example = { src: ex.src[0], tgt: ex.tgt[0], srcText: ex.srcText[0], tgtText: ex.tgtText[0] };
      el.querySelector('[name=example]').textContent = t('bahdanau.example', { src: example.srcText, tgt: example.tgtText });
      return { src: [example.src], tgt: [example.tgt] };
    },
    onStart: async (s) => drawMap(await s.inspect([example.src], [example.tgt]), 0),
    onProgress(p) {
      const last = curve.at(-1);
      if (last && last.step === p.step) last.loss = p.loss;
      else curve.push({ step: p.step, loss: p.loss, gold: last?.gold ?? null });
      redrawChart();
    },
    onSnapshot: (data, step) => { drawMap(data, step); redrawChart(); },
    onReset() { curve.length = 0; example = null; heat.set([], 0, 0); chart.set([], goldSeries().map(() => [])); el.querySelector('[name=metric]').textContent = ''; },
  });
  sel.addEventListener('change', async () => { state.task = sel.value; store.set({ task: state.task }); await run.reset(); makeChart(); });
  return {
    start: run.start, pause: run.pause, reset: run.reset,
    relabel() { run.render(); chart.relabel({ series: goldSeries(), xLabel: t('bahdanau.step') }); redrawChart(); heat.draw(); },
    unmount() { run.dispose(); chart.destroy(); el.innerHTML = ''; },
  };
}
