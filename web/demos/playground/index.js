// The playground: pick a model (Transformer, RNNsearch or pointer network), a task and a size;
// the engine's Worker trains it while the page draws the loss and the model's attention on one
// held-out example (the RNNsearch alignment, the Transformer's last cross-attention with heads
// averaged, or the pointer network's distributions over the input points), then the engine's
// held-out metrics. The weights export as .safetensors (the CLI's format) and a checkpoint
// trained natively with `attn train` imports the same way. State: playground.model/.task/.size/
// .width/.heads/.srclen/.steps/.seed; a task the model does not have falls back to its first task.
// The Transformer's width C and head count H are chosen apart from the size (which sets the
// layers, and C and H to its preset when it changes); per-head width d_k = C/H. The symbol tasks
// (reverse, copy, sort) take the longest source length.
// A trained pointer network can also be measured on larger point sets than it saw. A trained
// Transformer gets the step-through of one head of its first encoder self-attention on the
// example (common/stepthrough.js; head and query token selects).
// How it trains is the reader's too: learning rate, batch size, dropout (Transformer), optimizer
// (Adam, or SGD with momentum 0.9, which trains in WebAssembly) and schedule (constant, or noam:
// warm-up to the chosen rate as the peak, then 1/√step); playground.lr/.batch/.dropout/.optimizer/
// .schedule, the rate and batch defaulting to the model's own (train.js). The held-out loss is
// measured while it trains (the engine's evaluation about every 1.5 s and at the end) and drawn
// beside the training loss; a step button trains one step at a time; "keep this run" holds the
// curves on the chart while the next run (another knob) draws beside them.
// An imported checkpoint becomes the playground's model: it switches to the checkpoint's own
// model and task (from its metadata), is measured there and can train on from its step; one
// whose model or task the playground does not offer is refused with a sentence saying so.
// On the element: el.map (the drawn matrix), el.example, el.losses (every step's), el.metrics, el.step,
// el.heldOut ([[step, loss]] measured while training), el.kept ({label, points, heldOut} of the
// kept run, or null), el.longer ({range, metrics} on larger sets), el.imported ({info, metrics} of
// the last import).
// The task "own" trains on the reader's own pairs or text (owndata.js; playground.data/.vocab).
// Long because: one demo with three model families, its controls, import/export and the run's
// history share one state object and one render; its parts that stand alone are already apart
// (train.js, pointer.js, owndata.js, owndata-parse.js).
import { t, applyI18n } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { escapeHtml } from '../../viz/bars.js';
import '../../viz/heatmap.js';
import { sessionRun } from '../common/training-run.js';
import { tokenLabels } from '../common/maps.js';
import { headMatrix, vocabFrom, findMap } from '../common/heads.js';
import { ownData, measure as ownMeasure, metricsText as ownMetrics, WORD_DROPOUT } from './owndata.js';
import { stepThrough, headParts } from '../common/stepthrough.js';
import { trainDefaults } from './train.js';
import {
  POINTER_TASKS,
  POINTER_SIZES,
  pointerConfig,
  pointerExample,
  pointerMap,
  tooCostly,
  exampleText,
  metricsText,
  longerRange,
} from './pointer.js';

// The models offered, from the engine's registry (its kindInfo): the Transformer, every recurrent
// kind that aligns a token source to its output (RNNsearch, Luong), and the kinds that read point
// sets (the pointer network). Set when the playground mounts.
let KINDS = {};
let MODELS = ['transformer', 'rnnsearch', 'pointer'];
function modelsFrom(names, kinds) {
  // names: the registry's order
  return [
    'transformer',
    ...names.filter((k) => kinds[k].recurrent && kinds[k].aligns && !kinds[k].takes_points),
    ...names.filter((k) => kinds[k].takes_points),
  ];
}
const takesPoints = (model) => KINDS[model]?.takes_points ?? model === 'pointer';
const SEQ_TASKS = {
  reverse: { min_len: 3, max_len: 10, symbols: 10 },
  copy: { min_len: 3, max_len: 10, symbols: 10 },
  sort: { min_len: 3, max_len: 10, symbols: 10 },
  phrases: { n_min: 2, n_max: 6 },
  dates: {},
};
const OWN_TASKS = { ...SEQ_TASKS, own: null };
const tasksOf = (model) => (takesPoints(model) ? POINTER_TASKS : OWN_TASKS);
const SIZES = {
  small: { d_model: 32, heads: 2, d_ff: 64, layers: 1, hidden: 32 },
  medium: { d_model: 64, heads: 4, d_ff: 128, layers: 2, hidden: 64 },
};
const WIDTHS = [16, 32, 64, 128];
const HEADS = [1, 2, 4, 8];
const SRC_LENGTHS = [5, 10, 15, 20];
const EVAL = { samples: 200, seed: 5 };
// the held-out draw measured while training: the final metrics' own, about every 1.5 s
const LIVE_EVAL = { ...EVAL, everyMs: 1500 };
const RATES = [0.0003, 0.001, 0.003, 0.005, 0.01, 0.03, 0.1, 0.3];
const BATCHES = [8, 16, 32, 64, 128];
const DROPOUTS = [0, 0.1, 0.2, 0.3];
const OPTIMIZERS = ['adam', 'sgd'];
const SCHEDULES = ['constant', 'noam'];
const MOMENTUM = 0.9;
// the model's own rate and batch (train.js; the pointer network's rate is its size's)
const rateOf = (model, size) => (takesPoints(model) ? POINTER_SIZES[size].lr : trainDefaults(model).lr);
const batchOf = (model) => trainDefaults(takesPoints(model) ? 'pointer' : model).batch;
// noam's warm-up: a tenth of the run, at most 400 steps
const warmupOf = (steps) => Math.max(1, Math.min(400, Math.round(steps / 10)));

// The task options with the chosen longest source (symbol tasks only).
function taskOptionsOf(task, srclen) {
  const o = SEQ_TASKS[task];
  return o && 'max_len' in o ? { ...o, max_len: srclen } : o;
}
const hasLength = (model, task) => !takesPoints(model) && 'max_len' in (SEQ_TASKS[task] ?? {});

// The reader's training settings over a config's own: rate, batch, optimizer, schedule (noam: the
// rate is the peak, reached at the end of the warm-up; the engine's factor is solved for it with
// the model's schedule width, d_model for the Transformer and 64 for the others).
function trainOf(cfg, { lr, batch, optimizer, schedule, steps }) {
  const train = { ...cfg.train, lr, batch };
  if (optimizer === 'sgd') Object.assign(train, { optimizer: 'sgd', momentum: MOMENTUM });
  if (schedule === 'noam') {
    const warmup = warmupOf(steps);
    const d = cfg.model.model === 'transformer' ? cfg.model.d_model : 64;
    Object.assign(train, { schedule: 'noam', warmup, lr_factor: Number((lr * Math.sqrt(d * warmup)).toPrecision(6)) });
  } else train.schedule = 'constant';
  // the engine's SGD step runs on the CPU backends only
  return { ...cfg, train, ...(optimizer === 'sgd' ? { backend: 'wasm' } : {}) };
}

function sessionConfig(state) {
  return trainOf(modelConfig(state), state);
}

function modelConfig({ model, task, size, width, heads, srclen, seed, dropout }) {
  if (takesPoints(model)) return pointerConfig(task, size, seed);
  const z = SIZES[size];
  const m =
    model === 'transformer'
      ? {
          model: 'transformer',
          d_model: width,
          heads,
          d_ff: 2 * width,
          enc_layers: z.layers,
          dec_layers: z.layers,
          dropout,
        }
      : { model, emb: z.hidden / 2, hidden: z.hidden }; // a recurrent kind (RNNsearch: attn = hidden)
  return { model: m, task, task_options: taskOptionsOf(task, srclen), seed, train: trainDefaults(m.model) };
}

// The map to draw: the RNNsearch alignment, else the last decoder cross-attention.
function pickMap(data) {
  const maps = data?.maps ?? [];
  const m =
    maps.find((x) => x.name === 'alignment') ??
    maps.filter((x) => x.name.endsWith('multihead_attn')).at(-1) ??
    maps.filter((x) => x.name.startsWith('decoder') && x.name.endsWith('self_attn')).at(-1); // a decoder-only model
  return m ? { T: m.T, S: m.S, H: m.H, weights: headMatrix(m, m.H > 1 ? -1 : 0) } : null;
}

// "your data" is a task of the token models (the pointer network reads point sets: a note says so).
// Task names come from the language tables (pg.taskName.<task>); the value stays the engine's name.
const taskOptions = (model) =>
  Object.keys(tasksOf(model))
    .map((k) => `<option value="${k}" data-i18n="${k === 'own' ? 'pg.own.task' : `pg.taskName.${k}`}"></option>`)
    .join('');

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const { read, store } = ctx;
  KINDS = await ctx.engine.kindInfo();
  MODELS = modelsFrom(await ctx.engine.modelKinds(), KINDS);
  const model = read.str('model', 'rnnsearch', MODELS);
  const tasks = Object.keys(tasksOf(model));
  const size = read.str('size', 'small', Object.keys(SIZES));
  const z = SIZES[size];
  const state = {
    model,
    task: read.str('task', tasks[0], tasks),
    size,
    width: read.numIn('width', z.d_model, WIDTHS),
    heads: read.numIn('heads', z.heads, HEADS),
    srclen: read.numIn('srclen', 10, SRC_LENGTHS),
    steps: read.int('steps', 600, 50, 20000),
    seed: read.int('seed', 1, 0, 1e9),
    data: read.str('data', 'pairs', ['pairs', 'text']),
    vocab: read.str('vocab', 'char', ['char', 'word']),
    wdrop: read.numIn('wdrop', 0, WORD_DROPOUT),
    lr: read.numIn('lr', rateOf(model, size), RATES),
    batch: read.numIn('batch', batchOf(model), BATCHES),
    dropout: read.numIn('dropout', 0, DROPOUTS),
    optimizer: read.str('optimizer', 'adam', OPTIMIZERS),
    schedule: read.str('schedule', 'constant', SCHEDULES),
  };
  if (store.get('task') !== null && store.get('task') !== state.task) store.set({ task: state.task });
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="pg.model"></span> <select name="model">${MODELS.map((m) => `<option value="${m}" data-i18n="pg.model.${m}"></option>`).join('')}</select></label>
      <label><span data-i18n="pg.task"></span> <select name="task">${taskOptions(state.model)}</select></label>
      <label><span data-i18n="pg.size"></span> <select name="size">${Object.keys(SIZES)
        .map((k) => `<option value="${k}" data-i18n="pg.size.${k}"></option>`)
        .join('')}</select></label>
      <label data-for="transformer"><span data-i18n="pg.width"></span> <select name="width">${WIDTHS.map((v) => `<option value="${v}">${v}</option>`).join('')}</select></label>
      <label data-for="transformer"><span data-i18n="pg.heads"></span> <select name="heads">${HEADS.map((v) => `<option value="${v}">${v}</option>`).join('')}</select></label>
      <output name="dk" data-for="transformer"></output>
      <label data-for="length"><span data-i18n="pg.srclen"></span> <select name="srclen">${SRC_LENGTHS.map((v) => `<option value="${v}">${v}</option>`).join('')}</select></label>
      <label><span data-i18n="pg.steps"></span> <input type="number" name="steps" min="50" max="20000" step="50"></label>
    </div>
    <div class="controls pg-train" data-for="tasks">
      <label><span data-i18n="pg.lr"></span> <select name="lr">${RATES.map((v) => `<option value="${v}">${v}</option>`).join('')}</select></label>
      <label><span data-i18n="pg.batch"></span> <select name="batch">${BATCHES.map((v) => `<option value="${v}">${v}</option>`).join('')}</select></label>
      <label data-for="transformer"><span data-i18n="pg.dropout"></span> <select name="dropout">${DROPOUTS.map((v) => `<option value="${v}">${v}</option>`).join('')}</select></label>
      <label><span data-i18n="pg.optimizer"></span> <select name="optimizer">${OPTIMIZERS.map((v) => `<option value="${v}" data-i18n="pg.optimizer.${v}"></option>`).join('')}</select></label>
      <label><span data-i18n="pg.schedule"></span> <select name="schedule">${SCHEDULES.map((v) => `<option value="${v}" data-i18n="pg.schedule.${v}"></option>`).join('')}</select></label>
    </div>
    <p class="note" name="train-note" data-for="tasks"></p>
    <p class="note" data-for="pointer" data-i18n="pg.own.pointer"></p>
    <div class="own-host" data-for="own"></div>
    <div class="run-host"></div>
    <div class="controls pg-compare">
      <button type="button" name="keep-run" data-i18n="pg.keepRun" disabled></button>
      <button type="button" name="drop-kept" data-i18n="pg.dropKept" hidden></button>
    </div>
    <p class="readout" name="example"></p>
    <div class="demo-row"><div class="chart-host"></div><al-heatmap></al-heatmap></div>
    <p class="readout" name="metrics" aria-live="polite"></p>
    <div class="own-results" data-for="own"></div>
    <div class="pg-steps" hidden>
      <h4 data-i18n="pg.step"></h4>
      <div class="controls">
        <label><span data-i18n="sa.head"></span> <select name="st-head"></select></label>
        <label><span data-i18n="pg.stepToken"></span> <select name="st-token"></select></label>
      </div>
      <div class="stepthrough-host"></div>
    </div>
    <div class="controls"><button type="button" name="longer" data-i18n="pg.pointer.longer" disabled></button> <output name="longer-out"></output></div>
    <div class="controls">
      <button type="button" name="export" data-i18n="pg.export" disabled></button>
      <label class="file"><span data-i18n="pg.import"></span> <input type="file" name="import" accept=".safetensors"></label>
      <output name="io"></output>
    </div>`;
  const $ = (n) => el.querySelector(`[name=${n}]`);
  const own = ownData(el.querySelector('.own-host'), ctx, state, el.querySelector('.own-results'));
  const isOwn = () => state.task === 'own';
  const FIELDS = [
    'model',
    'task',
    'size',
    'width',
    'heads',
    'srclen',
    'steps',
    'data',
    'vocab',
    'wdrop',
    'lr',
    'batch',
    'dropout',
    'optimizer',
    'schedule',
  ];
  const NUMBERS = ['width', 'heads', 'srclen', 'wdrop', 'lr', 'batch', 'dropout'];
  for (const k of FIELDS) $(k).value = state[k];
  const heat = el.querySelector('al-heatmap');
  // The chart: this run's training and held-out loss, and a kept run's beside them (dotted).
  let kept = null;
  el.kept = null;
  const seriesLabels = () => {
    const own = [t('pg.series.train'), t('pg.series.heldOut')];
    if (!kept) return own;
    const run = trainSummary(kept.settings);
    return [...own, ...own.map((series) => t('pg.series.kept', { series, run }))];
  };
  let chart = null;
  function makeChart() {
    chart?.destroy();
    const labels = seriesLabels();
    chart = lineChart(el.querySelector('.chart-host'), {
      series: labels.map((label, i) => ({ label, spanGaps: true, ...(i % 2 ? { points: true } : {}) })),
      xLabel: t('bahdanau.step'),
      height: 200,
    });
  }
  makeChart();
  let example = null,
    word = null,
    points = [],
    held = [],
    session = null,
    last = null;
  el.losses = [];
  el.heldOut = held;
  // every series on one x axis: the union of their steps, a gap where a series has no value
  function drawChart() {
    const lists = [points, held, ...(kept ? [kept.points, kept.heldOut] : [])];
    const xs = [...new Set(lists.flatMap((l) => l.map((q) => q[0])))].sort((a, b) => a - b);
    const at = lists.map((l) => new Map(l.map((q) => [q[0], q[1]])));
    chart.set(
      xs,
      at.map((m) => xs.map((x) => (m.has(x) ? m.get(x) : null)))
    );
    $('keep-run').disabled = points.length < 2;
    $('drop-kept').hidden = !kept;
  }
  // a run's settings in a few words (the kept run's name, in the current language)
  const trainSummary = (st) =>
    [
      `${t('pg.lr')} ${st.lr}`,
      `${t('pg.batch')} ${st.batch}`,
      ...(st.model === 'transformer' ? [`${t('pg.dropout')} ${st.dropout}`] : []),
      t(`pg.optimizer.${st.optimizer}`),
      t(`pg.schedule.${st.schedule}`),
    ].join(' · ');
  function showTrainNote() {
    const notes = [];
    if (state.optimizer === 'sgd') notes.push(t('pg.sgdNote', { momentum: MOMENTUM }));
    if (state.schedule === 'noam') notes.push(t('pg.noamNote', { warmup: warmupOf(state.steps), lr: state.lr }));
    $('train-note').textContent = notes.join(' ');
    $('train-note').hidden = isOwn() || !notes.length;
  }
  const steps = stepThrough(el.querySelector('.stepthrough-host'), {
    engine: ctx.engine,
    onStep: (st) => {
      el.step = st;
    },
  });
  let stepMap = null,
    stepLabels = [];

  // the trained Transformer's first encoder self-attention on the example, with q, K, V per head
  async function stepsFor(s) {
    if (state.model !== 'transformer' || !example) return;
    const data = await s.inspect([example.src], [example.tgt], { parts: true });
    stepMap = findMap(data, 'encoder.layers.0.self_attn');
    if (!stepMap?.q) {
      stepMap = null;
      return;
    }
    stepLabels = tokenLabels(example.srcText, stepMap.S, example.src);
    $('st-head').innerHTML = Array.from({ length: stepMap.H }, (_, h) => `<option value="${h}">${h + 1}</option>`).join(
      ''
    );
    $('st-token').innerHTML = stepLabels
      .map((l, i) => `<option value="${i}">${i + 1}: ${escapeHtml(l)}</option>`)
      .join('');
    el.querySelector('.pg-steps').hidden = false;
    showSteps();
  }
  function showSteps() {
    if (!stepMap) return;
    const h = Number($('st-head').value),
      i = Number($('st-token').value);
    steps.set(headParts(stepMap, h, i), {
      labels: stepLabels,
      key: `${h}/${i}`,
      heading: t('sa.stepTitle', { layer: 1, h: h + 1, tok: stepLabels[i] ?? '', hs: stepMap.hs }),
    });
  }
  $('st-head').addEventListener('change', showSteps);
  $('st-token').addEventListener('change', showSteps);

  const isPointer = () => takesPoints(state.model);
  function showModel() {
    for (const n of el.querySelectorAll('[data-for=transformer]')) n.hidden = state.model !== 'transformer';
    for (const n of el.querySelectorAll('[data-for=length]')) n.hidden = !hasLength(state.model, state.task);
    for (const n of el.querySelectorAll('[data-for=own]')) n.hidden = !isOwn();
    for (const n of el.querySelectorAll('[data-for=tasks]')) n.hidden = isOwn();
    showTrainNote();
    for (const n of el.querySelectorAll('[data-for=pointer]')) n.hidden = !isPointer();
    own.note();
    $('dk').textContent = t('pg.dk', { dk: state.width / state.heads });
    $('longer').hidden = !isPointer();
    heat.dataset.i18nAria = isPointer() ? 'pg.pointer.heatmap' : 'bahdanau.heatmap';
    heat.setAttribute('aria-label', t(heat.dataset.i18nAria));
  }

  function drawMap(data) {
    last = data;
    if (!example) return;
    if (isPointer()) {
      const m = pointerMap(data, example);
      if (!m) return;
      heat.set(m.weights, m.T, m.S, { rowLabels: m.rowLabels, colLabels: m.colLabels });
      $('example').textContent = exampleText(example, m.order, state.task);
      el.map = m;
      return;
    }
    const m = pickMap(data);
    if (!m) return;
    heat.set(
      m.weights,
      m.T,
      m.S,
      example.labels?.(m) ?? {
        rowLabels: ['', ...example.tgt.map(word)].slice(1).concat('</s>').slice(0, m.T),
        colLabels: tokenLabels(example.srcText, m.S, example.src),
      }
    );
    el.map = m;
  }

  function ownExample() {
    const x = own.snapshot();
    example = x.example;
    el.example = example;
    $('example').textContent = example.text;
    return x.feed;
  }

  async function seqExample(s) {
    const pool = await s.examples(16, { split: 'test', seed: 4 });
    word = vocabFrom(pool);
    example = { src: pool.src[0], tgt: pool.tgt[0], srcText: pool.srcText[0], tgtText: pool.tgtText[0] };
    $('example').textContent = t('bahdanau.example', { src: example.srcText, tgt: example.tgtText });
    return { src: [example.src], tgt: [example.tgt] };
  }

  async function evaluate(s) {
    $('metrics').textContent = t('pg.evaluating');
    if (isOwn()) {
      el.metrics = await own.evaluate(s);
      $('metrics').textContent = own.metricsText();
      return;
    }
    const ev = await s.evaluate(EVAL.samples, EVAL.seed);
    el.metrics = ev;
    $('metrics').textContent = metricsText(ev, state.task, isPointer());
  }

  // The trained weights, reloaded with more points per set than training saw, then measured.
  async function longer() {
    const range = longerRange(state.task);
    $('longer').disabled = true;
    $('longer-out').textContent = t('pg.evaluating');
    const client = await ctx.worker();
    const s = await client.loadSession(await session.save(), { task_options: range });
    try {
      el.longer = { range, metrics: await s.evaluate(EVAL.samples, EVAL.seed) };
      $('longer-out').textContent = longerText();
    } finally {
      await s.dispose();
      $('longer').disabled = !session;
    }
  }
  const longerText = () =>
    `${t('pg.pointer.range', { lo: el.longer.range.n_min, hi: el.longer.range.n_max })} ${metricsText(el.longer.metrics, state.task, true)}`;

  let run = null;
  run = sessionRun(el.querySelector('.run-host'), ctx, {
    steps: state.steps,
    stepButton: true,
    config: () => (isOwn() ? own.config : sessionConfig(state)),
    prepare: async () =>
      !isOwn() ||
      own.prepare({
        width: state.width,
        heads: state.heads,
        layers: SIZES[state.size].layers,
        hidden: SIZES[state.size].hidden,
      }),
    create: (client) => (isOwn() ? own.create(client, own.config) : null),
    persists: () => !isOwn(),
    // the example to draw, and (on the engine's tasks) the held-out loss measured as it trains
    async snapshot(s) {
      if (isOwn()) return ownExample();
      if (!isPointer()) return { ...(await seqExample(s)), evaluate: LIVE_EVAL };
      example = await pointerExample(s, state.task);
      el.example = example;
      $('example').textContent = exampleText(example, null, state.task);
      return { src: example.x, evaluate: LIVE_EVAL };
    },
    onStart(s) {
      session = s;
      el.config = isOwn() ? own.config : sessionConfig(state);
      $('export').disabled = false;
      $('io').textContent = '';
    },
    onProgress(p) {
      points.push([p.step, p.loss]);
      el.losses.push(...p.losses);
      drawChart();
    },
    onSnapshot(data, step, s, evaluation) {
      drawMap(data);
      if (Number.isFinite(evaluation?.loss)) {
        const at = held.findIndex((q) => q[0] === evaluation.step);
        if (at >= 0) held[at][1] = evaluation.loss;
        else held.push([evaluation.step, evaluation.loss]);
        drawChart();
      }
    },
    // a restored model brings its loss curves back (sessionRun's `keep`)
    keep: {
      save: () => ({ points: points.map((q) => [...q]), held: held.map((q) => [...q]), losses: [...el.losses] }),
      async load(saved, s) {
        session = s;
        el.config = sessionConfig(state);
        $('export').disabled = false;
        $('io').textContent = '';
        points = saved.points;
        held.splice(0, held.length, ...(saved.held ?? []));
        el.losses = saved.losses;
        drawChart();
        if (run.snap) drawMap(await s.inspect(run.snap.src, run.snap.tgt));
      },
    },
    // before training: the untrained model's map and its loss at step 0
    onPreview(p) {
      points = [[0, p.loss]];
      drawChart();
    },
    async onDone(s) {
      await evaluate(s).catch((e) => {
        $('metrics').textContent = t('engine.error', { message: e.message });
      });
      await stepsFor(s).catch(() => {});
      $('longer').disabled = false;
      own.ready(isOwn());
    },
    onReset() {
      $('io').textContent = '';
      points = [];
      held.length = 0;
      if (run) run.steps = state.steps; // an imported model's longer run ends here
      drawChart();
      heat.set([], 0, 0);
      session = null;
      example = null;
      last = null;
      el.map = null;
      el.example = null;
      el.metrics = null;
      el.longer = null;
      el.losses = [];
      el.querySelector('.pg-steps').hidden = true;
      stepMap = null;
      steps.set(null);
      el.step = null;
      $('export').disabled = true;
      $('longer').disabled = true;
      own.reset();
      for (const n of ['example', 'metrics', 'longer-out']) $(n).textContent = '';
    },
  });
  for (const k of FIELDS)
    $(k).addEventListener('change', async () => {
      const before = tasksOf(state.model);
      if (k === 'steps') {
        // the field's own limits: 50 to 20,000 in steps of 50
        const n = Number($(k).value);
        state.steps =
          Number.isFinite(n) && $(k).value !== ''
            ? Math.min(20000, Math.max(50, Math.round(n / 50) * 50))
            : state.steps;
        $(k).value = state.steps;
      } else if (NUMBERS.includes(k)) {
        state[k] = Number($(k).value);
      } else {
        state[k] = $(k).value;
      }
      if (k === 'size') {
        // a size is a preset of C and H too
        state.width = SIZES[state.size].d_model;
        state.heads = SIZES[state.size].heads;
        $('width').value = state.width;
        $('heads').value = state.heads;
      }
      if (k === 'model' && tasksOf(state.model) !== before) {
        $('task').innerHTML = taskOptions(state.model);
        applyI18n($('task'), { updateDocument: false });
        state.task = Object.keys(tasksOf(state.model))[0];
        $('task').value = state.task;
      }
      if (k === 'model' || k === 'size') {
        // the rate and batch are the model's own again
        state.lr = rateOf(state.model, state.size);
        state.batch = batchOf(state.model);
        $('lr').value = state.lr;
        $('batch').value = state.batch;
      }
      showModel();
      run.steps = state.steps;
      // C, H, the task, rate and batch default to the size's and model's own (what a link
      // without them reads)
      store.defaults({
        width: SIZES[state.size].d_model,
        heads: SIZES[state.size].heads,
        task: Object.keys(tasksOf(state.model))[0],
        lr: rateOf(state.model, state.size),
        batch: batchOf(state.model),
      });
      store.set(state);
      await run.reset();
    });
  $('longer').addEventListener('click', () =>
    longer().catch((e) => {
      $('longer-out').textContent = t('engine.error', { message: e.message });
    })
  );
  $('export').addEventListener('click', async () => {
    const bytes = await session.save();
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    const a = Object.assign(document.createElement('a'), {
      href: url,
      download: `attnlab-${el.config?.model?.model ?? state.model}-${state.task}.safetensors`,
    });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    $('io').textContent = t('pg.exported', { kb: (bytes.length / 1024).toFixed(0) });
  });
  $('import').addEventListener('change', async () => {
    const f = $('import').files[0];
    if (!f) return;
    try {
      const bytes = new Uint8Array(await f.arrayBuffer());
      const client = await ctx.worker();
      // the header's model kind, read in the Worker (not on this thread)
      const kind = await client.checkpointModel(bytes);
      const pointer = kind === 'pointer';
      if (isOwn() && !pointer) return await importOwn(f.name, bytes, client);
      // a kind the playground does not train is refused from its header, before the engine loads it
      if (kind && !MODELS.includes(kind)) throw new Error(t('pg.import.model', { model: kind }));
      await importModel(f.name, bytes, client);
    } catch (e) {
      // what failed, in the reader's words, and what to pick instead; gone at the next start/reset
      $('io').textContent = t('pg.importFailed', { name: f.name, message: e.message });
    } finally {
      $('import').value = '';
    }
  });

  // A checkpoint of the engine's tasks, on its own model and task (its metadata): the playground
  // switches to them, measures it there and makes it the run's model at its step. One whose
  // model or task is not offered here throws a sentence saying so (nothing switches).
  async function importModel(name, bytes, client) {
    const s = await client.loadSession(bytes);
    let adopted = false;
    try {
      const info = s.info;
      const kind = info.model;
      if (!MODELS.includes(kind)) throw new Error(t('pg.import.model', { model: kind || '?' }));
      const tasks = tasksOf(kind);
      if (!info.task || !(info.task in tasks) || info.task === 'own')
        throw new Error(info.task ? t('pg.import.task', { task: info.task }) : t('pg.import.noTask'));
      // the engine refuses a measure that would cost too much before it starts (its message)
      const ev = await s.evaluate(EVAL.samples, EVAL.seed).catch((e) => {
        const costly = tooCostly(e, info);
        if (!costly) throw e;
        throw new Error(t(takesPoints(kind) ? 'pg.tooCostly.points' : 'pg.tooCostly', costly));
      });
      // the controls show the checkpoint's model and task (and its sizes where they are offered)
      if (tasksOf(state.model) !== tasks || state.model !== kind) {
        $('task').innerHTML = taskOptions(kind);
        applyI18n($('task'), { updateDocument: false });
      }
      state.model = kind;
      state.task = info.task;
      const c = info.config ?? {};
      const len = info.task_options?.max_len;
      if (hasLength(kind, info.task) && SRC_LENGTHS.includes(len)) state.srclen = len;
      const size = Object.keys(SIZES).find((k) =>
        kind === 'transformer' ? SIZES[k].layers === c.enc_layers : SIZES[k].hidden === c.hidden
      );
      if (size && !takesPoints(kind)) state.size = size;
      if (kind === 'transformer' && WIDTHS.includes(c.d_model) && HEADS.includes(c.heads)) {
        state.width = c.d_model;
        state.heads = c.heads;
      }
      for (const k of ['model', 'task', 'size', 'srclen', 'width', 'heads']) $(k).value = state[k];
      showModel();
      store.defaults({ task: Object.keys(tasks)[0], lr: rateOf(kind, state.size), batch: batchOf(kind) });
      store.defaults({ width: SIZES[state.size].d_model, heads: SIZES[state.size].heads });
      store.set({
        model: state.model,
        task: state.task,
        size: state.size,
        srclen: state.srclen,
        width: state.width,
        heads: state.heads,
      });
      const step = Number.isInteger(info.step) ? info.step : 0;
      await run.adopt(s, step);
      adopted = true;
      session = s;
      el.config = { model: c, task: info.task, task_options: info.task_options, train: info.train };
      if (run.snap) drawMap(await s.inspect(run.snap.src, run.snap.tgt));
      held.push([step, ev.loss]);
      drawChart();
      el.metrics = ev;
      $('metrics').textContent = `${t('pg.imported.step', { step })} ${metricsText(ev, info.task, takesPoints(kind))}`;
      $('export').disabled = false;
      $('longer').disabled = !takesPoints(kind);
      el.imported = { info, metrics: ev };
      $('io').textContent = takesPoints(kind)
        ? `${t('pg.imported.pointer', { name, task: t(`pg.taskName.${info.task}`), params: info.params })} ${metricsText(ev, info.task, true)} ${t('pg.imported.switched', { step })}`
        : t('pg.imported', {
            name,
            params: info.params,
            model: t(`pg.model.${kind}`),
            task: t(`pg.taskName.${info.task}`),
            step,
            loss: ev.loss.toFixed(3),
            acc: (100 * ev.sequenceAccuracy).toFixed(1),
          });
    } finally {
      if (!adopted) await s.dispose();
    }
  }

  // Keep this run's curves on the chart (with its settings as their name); the next run draws beside.
  $('keep-run').addEventListener('click', () => {
    kept = { settings: { ...state }, points: points.map((q) => [...q]), heldOut: held.map((q) => [...q]) };
    el.kept = { label: trainSummary(kept.settings), points: kept.points, heldOut: kept.heldOut };
    makeChart();
    drawChart();
  });
  $('drop-kept').addEventListener('click', () => {
    kept = null;
    el.kept = null;
    makeChart();
    drawChart();
    $('keep-run').focus();
  });
  // Weights trained on the reader's data: measured on the held-out part of the data in the box
  // (when the vocabulary sizes agree), else just described.
  async function importOwn(name, bytes, client) {
    const s = await client.loadSession(bytes);
    try {
      const fits = own.parsed && s.info.srcVocab === own.parsed.vocabSize;
      const metrics = fits ? await ownMeasure(s, own.parsed) : null;
      el.imported = { info: s.info, metrics };
      $('io').textContent =
        `${t('pg.imported.own', { name, model: s.info.model, params: s.info.params })} ${metrics ? ownMetrics(metrics) : ''}`.trim();
    } finally {
      await s.dispose();
    }
  }
  showModel();
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      run.render();
      chart.relabel({ series: seriesLabels(), xLabel: t('bahdanau.step') });
      drawChart();
      showTrainNote();
      if (el.metrics)
        $('metrics').textContent = isOwn() ? own.metricsText() : metricsText(el.metrics, state.task, isPointer());
      if (el.metrics && el.imported && session === run.session && !run.done && run.step === el.imported.info.step)
        $('metrics').textContent = `${t('pg.imported.step', { step: run.step })} ${$('metrics').textContent}`;
      own.relabel();
      if (isOwn() && example && own.parsed) $('example').textContent = own.snapshot().example.text;
      if (el.longer) $('longer-out').textContent = longerText();
      $('dk').textContent = t('pg.dk', { dk: state.width / state.heads });
      if (isPointer() && last) drawMap(last);
      else heat.draw();
      if (!isPointer() && example)
        $('example').textContent = t('bahdanau.example', { src: example.srcText, tgt: example.tgtText });
      showSteps();
    },
    unmount() {
      run.dispose();
      chart.destroy();
      el.innerHTML = '';
    },
  };
}
