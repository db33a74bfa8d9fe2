// The playground: pick a model (Transformer or RNNsearch), a task and a size; the engine's
// Worker trains it while the page draws the loss and the model's attention on one held-out
// example (the RNNsearch alignment, or the Transformer's last cross-attention, heads averaged).
// The weights export as .safetensors (the CLI's format) and a checkpoint trained natively with
// `attn train` imports the same way. State: playground.model/.task/.size/.steps/.seed.
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import '../../viz/heatmap.js';
import { sessionRun } from '../common/session.js';
import { tokenLabels } from '../common/maps.js';
import { headMatrix, vocabFrom } from '../common/heads.js';

const MODELS = ['transformer', 'rnnsearch'];
const TASKS = { copy: { min_len: 3, max_len: 10, symbols: 10 }, reverse: { min_len: 3, max_len: 10, symbols: 10 }, sort: { min_len: 3, max_len: 10, symbols: 10 },
  phrases: { n_min: 2, n_max: 6 }, dates: {} };
const SIZES = { small: { d_model: 32, heads: 2, d_ff: 64, layers: 1, hidden: 32 }, medium: { d_model: 64, heads: 4, d_ff: 128, layers: 2, hidden: 64 } };

function modelConfig(kind, size) {
  const z = SIZES[size];
  return kind === 'transformer'
    ? { model: 'transformer', d_model: z.d_model, heads: z.heads, d_ff: z.d_ff, enc_layers: z.layers, dec_layers: z.layers, dropout: 0 }
    : { model: 'rnnsearch', emb: z.hidden / 2, hidden: z.hidden, attn: z.hidden };
}

// The map to draw: the RNNsearch alignment, else the last decoder cross-attention.
function pickMap(data) {
  const maps = data?.maps ?? [];
  const m = maps.find((x) => x.name === 'alignment') ?? maps.filter((x) => x.name.endsWith('multihead_attn')).at(-1);
  return m ? { T: m.T, S: m.S, weights: headMatrix(m, m.H > 1 ? -1 : 0) } : null;
}

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const { read, store } = ctx;
  const state = { model: read.str('model', 'rnnsearch', MODELS), task: read.str('task', 'reverse', Object.keys(TASKS)),
    size: read.str('size', 'small', Object.keys(SIZES)), steps: read.num('steps', 600, 50, 20000), seed: read.num('seed', 1, 0, 1e9) };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="pg.model"></span> <select name="model">${MODELS.map((m) => `<option value="${m}" data-i18n="pg.model.${m}"></option>`).join('')}</select></label>
      <label><span data-i18n="pg.task"></span> <select name="task">${Object.keys(TASKS).map((k) => `<option value="${k}">${k}</option>`).join('')}</select></label>
      <label><span data-i18n="pg.size"></span> <select name="size">${Object.keys(SIZES).map((k) => `<option value="${k}" data-i18n="pg.size.${k}"></option>`).join('')}</select></label>
      <label><span data-i18n="pg.steps"></span> <input type="number" name="steps" min="50" max="20000" step="50"></label>
    </div>
    <div class="run-host"></div>
    <p class="readout" name="example"></p>
    <div class="demo-row"><div class="chart-host"></div><al-heatmap data-i18n-aria="bahdanau.heatmap"></al-heatmap></div>
    <div class="controls">
      <button type="button" name="export" data-i18n="pg.export" disabled></button>
      <label class="file"><span data-i18n="pg.import"></span> <input type="file" name="import" accept=".safetensors"></label>
      <output name="io"></output>
    </div>`;
  const $ = (n) => el.querySelector(`[name=${n}]`);
  for (const k of ['model', 'task', 'size', 'steps']) $(k).value = state[k];
  const heat = el.querySelector('al-heatmap');
  const chart = lineChart(el.querySelector('.chart-host'), { series: [{ label: t('bahdanau.loss') }], xLabel: t('bahdanau.step'), height: 200 });
  let example = null, word = null, points = [], session = null;

  function drawMap(data) {
    const m = pickMap(data);
    if (!m || !example) return;
    heat.set(m.weights, m.T, m.S, { rowLabels: ['', ...example.tgt.map(word)].slice(1).concat('</s>').slice(0, m.T), colLabels: tokenLabels(example.srcText, m.S, example.src) });
    el.map = m;
  }

  const run = sessionRun(el.querySelector('.run-host'), ctx, {
    steps: state.steps,
    config: () => ({ model: modelConfig(state.model, state.size), task: state.task, task_options: TASKS[state.task], seed: state.seed,
      train: { batch: 32, schedule: 'constant', lr: state.model === 'transformer' ? 0.003 : 0.01, clip: 1 } }),
    async snapshot(s) {
      const pool = await s.examples(16, { split: 'test', seed: 4 });
      word = vocabFrom(pool);
      example = { src: pool.src[0], tgt: pool.tgt[0], srcText: pool.srcText[0], tgtText: pool.tgtText[0] };
      $('example').textContent = t('bahdanau.example', { src: example.srcText, tgt: example.tgtText });
      return { src: [example.src], tgt: [example.tgt] };
    },
    onStart(s) { session = s; $('export').disabled = false; },
    onProgress(p) { points.push([p.step, p.loss]); chart.set(points.map((q) => q[0]), [points.map((q) => q[1])]); },
    onSnapshot: (data) => drawMap(data),
    onReset() { points = []; chart.set([], [[]]); heat.set([], 0, 0); session = null; $('export').disabled = true; },
  });
  for (const k of ['model', 'task', 'size', 'steps']) $(k).addEventListener('change', async () => {
    state[k] = k === 'steps' ? Math.max(50, Number($(k).value) || 600) : $(k).value;
    run.steps = state.steps;
    store.set(state);
    await run.reset();
  });
  $('export').addEventListener('click', async () => {
    const bytes = await session.save();
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: `attnlab-${state.model}-${state.task}.safetensors` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    $('io').textContent = t('pg.exported', { kb: (bytes.length / 1024).toFixed(0) });
  });
  $('import').addEventListener('change', async () => {
    const f = $('import').files[0];
    if (!f) return;
    try {
      const client = await ctx.worker();
      const s = await client.loadSession(new Uint8Array(await f.arrayBuffer()), { task: state.task, task_options: TASKS[state.task] });
      const ev = await s.evaluate(200, 5);
      $('io').textContent = t('pg.imported', { name: f.name, params: s.info.params, loss: ev.loss.toFixed(3), acc: (100 * ev.sequenceAccuracy).toFixed(1) });
      await s.dispose();
    } catch (e) {
      $('io').textContent = t('engine.error', { message: e.message });
    }
  });
  return {
    start: run.start, pause: run.pause, reset: run.reset,
    relabel() { run.render(); chart.relabel({ series: [t('bahdanau.loss')], xLabel: t('bahdanau.step') }); chart.set(points.map((q) => q[0]), [points.map((q) => q[1])]); heat.draw(); },
    unmount() { run.dispose(); chart.destroy(); el.innerHTML = ''; },
  };
}
