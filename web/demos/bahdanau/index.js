// `bahdanau` section demo: RNNsearch (Bahdanau, Cho & Bengio 2015: bi-GRU encoder, GRU decoder, additive
// attention α_ij = softmax_j(vᵀ tanh(W s_{i-1} + U h_j))) trained live in the engine's Worker.
// The heatmap is the model's own α on one held-out example, refreshed while it trains. On the
// `reverse` task the gold alignment is known exactly (output i copies input L-1-i, an
// alignment that crosses completely), so the page tracks the mean attention mass on it; on
// `phrases` (English → French noun phrases, adjective order flips) and `dates` (four locales'
// date formats → ISO 8601) the engine scores its argmax links against the task's gold links on
// a fixed held-out draw about once a second and at the end of a run: the alignment error rate
// (Och & Ney), lower is better.
// The score control swaps Bahdanau's additive score for Luong's dot, general or concat (Luong,
// Pham & Manning 2015; the engine's luong kind), so both align the same data side by side.
// Before a run the reader may predict whether the example's alignment ends diagonal, crossed or
// neither (common/predict.js); at the end of the run the engine's final map answers (the mean
// weight on each pattern's links against twice the uniform weight).
// State: bahdanau.task, bahdanau.score, bahdanau.steps, bahdanau.guess. On the element: el.curve ([{step, loss, gold, aer}]),
// el.evaluation (the engine's latest held-out evaluation). A model restored after a reload
// brings its curve and readouts back with it (sessionRun's `keep`).
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import '../../viz/heatmap.js';
import { sessionRun } from '../common/training-run.js';
import { setTexText } from '../../viz/inline-tex.js';
import { tokenLabels, alignmentMap } from '../common/maps.js';
import { TASKS, SCORES, ALIGNED, HELD_OUT, sessionConfig } from './config.js';
import { predict } from '../common/predict.js';

// Mean over output positions i < L of α[i, L-1-i]: the mass on the reversal's gold links.
export function goldMass(w, T, S, L) {
  let m = 0;
  for (let i = 0; i < L && i < T; i++) m += w[i * S + (L - 1 - i)];
  return m / L;
}

// Mean over output positions i < L of α[i, i]: the mass on the diagonal (output i reads input i).
export function diagonalMass(w, T, S, L) {
  let m = 0;
  for (let i = 0; i < L && i < T && i < S; i++) m += w[i * S + i];
  return m / L;
}

// Which pattern a map shows: the larger of the crossed and diagonal masses where it is above
// twice the uniform weight 1/S, else 'spread'. Decided on the three-decimal figures shown.
export const PATTERNS = ['diagonal', 'crossed', 'spread'];
export function alignmentPattern({ weights, T, S, L }) {
  const crossed = goldMass(weights, T, S, L).toFixed(3);
  const diagonal = diagonalMass(weights, T, S, L).toFixed(3);
  const chance = (1 / S).toFixed(3);
  const top = Math.max(Number(crossed), Number(diagonal));
  const answer = top <= 2 * Number(chance) ? 'spread' : Number(crossed) > Number(diagonal) ? 'crossed' : 'diagonal';
  return { answer, crossed, diagonal, chance };
}

export async function mount(el, ctx) {
  const { read, store } = ctx;
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const state = {
    task: read.str('task', 'reverse', Object.keys(TASKS)),
    score: read.str('score', 'additive', SCORES),
    steps: read.int('steps', 400, 100, 20000),
    seed: read.int('seed', 1, 0, 1e9),
  };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="bahdanau.task"></span> <select name="task">${Object.keys(TASKS)
        .map((k) => `<option value="${k}" data-i18n="bahdanau.task.${k}"></option>`)
        .join('')}</select></label>
      <label><span data-i18n="bahdanau.score"></span> <select name="score">${SCORES.map((k) => `<option value="${k}" data-i18n="bahdanau.score.${k}"></option>`).join('')}</select></label>
    </div>
    <p class="caption" name="score-note"></p>
    <p class="note" name="score-expect" hidden></p>
    <div class="predict-host"></div>
    <div class="run-host"></div>
    <p class="readout" name="example"></p>
    <div class="demo-row">
      <al-heatmap data-i18n-aria="bahdanau.heatmap"></al-heatmap>
      <div class="chart-host"></div>
    </div>
    <p class="readout" name="metric" aria-live="polite"></p>`;
  const heat = el.querySelector('al-heatmap');
  const guess = predict(ctx, {
    question: 'predict.bahdanau.q',
    choices: PATTERNS.map((v) => ({ value: v, label: `predict.bahdanau.${v}` })),
  });
  el.querySelector('.predict-host').replaceWith(guess.el);
  const sel = el.querySelector('[name=task]');
  sel.value = state.task;
  const scoreSel = el.querySelector('[name=score]');
  scoreSel.value = state.score;
  // the score's formula (KaTeX on the page) and, for Luong's learned scores, what to expect
  const showScore = () => {
    setTexText(el.querySelector('[name=score-note]'), t(`bahdanau.scoreNote.${state.score}`), ctx.tex);
    const expect = el.querySelector('[name=score-expect]');
    const learned = state.score === 'general' || state.score === 'concat';
    expect.hidden = !learned;
    if (learned) setTexText(expect, t('bahdanau.expect.learned'), ctx.tex);
  };
  showScore();
  const second = () => (state.task === 'reverse' ? 'gold' : ALIGNED.has(state.task) ? 'aer' : null);
  const goldSeries = () => [t('bahdanau.loss'), ...(second() ? [t(`bahdanau.${second()}`)] : [])];
  let chart = null;
  const makeChart = () => {
    chart?.destroy();
    chart = lineChart(el.querySelector('.chart-host'), {
      series: goldSeries().map((label) => ({ label })),
      xLabel: t('bahdanau.step'),
      height: 200,
    });
  };
  makeChart();
  let example = null;
  let curve = [];
  el.curve = curve;

  function showAer(ev) {
    el.evaluation = ev;
    el.querySelector('[name=metric]').textContent = t('bahdanau.aerMetric', {
      aer: ev.aer.toFixed(3),
      n: ev.samples,
      step: ev.step,
    });
  }

  // the mass on the gold links, in the current language
  let shownGold = null;
  function showGold() {
    if (!shownGold) return;
    const { gold, S, step } = shownGold;
    el.querySelector('[name=metric]').textContent = t('bahdanau.metric', {
      gold: gold.toFixed(3),
      chance: (1 / S).toFixed(3),
      step,
    });
  }
  const showExample = () => {
    if (example)
      el.querySelector('[name=example]').textContent = t('bahdanau.example', {
        src: example.srcText,
        tgt: example.tgtText,
      });
  };

  // the heatmap of one inspection; -> the map, or null
  function drawHeat(data, step) {
    const m = alignmentMap(data);
    if (!m || !example) return null;
    heat.set(m.weights, m.T, m.S, {
      rowLabels: tokenLabels(example.tgtText, m.T, example.tgt),
      colLabels: tokenLabels(example.srcText, m.S, example.src),
    });
    el.alignment = { weights: [...m.weights], T: m.T, S: m.S, L: example.src.length, step };
    return m;
  }

  function drawMap(data, step, evaluation) {
    const m = drawHeat(data, step);
    if (!m) return;
    const L = example.src.length;
    const gold = state.task === 'reverse' ? goldMass(m.weights, m.T, m.S, L) : null;
    const last = curve.at(-1);
    const aer = evaluation?.aer ?? last?.aer ?? null;
    if (last && last.step === step) Object.assign(last, { gold, aer });
    else curve.push({ step, loss: last?.loss ?? null, gold, aer });
    shownGold = gold === null ? null : { gold, S: m.S, step };
    showGold();
    if (evaluation?.aer !== undefined) showAer(evaluation);
    el.dispatchEvent(new CustomEvent('snapshot', { detail: { step, gold, aer } }));
  }

  function redrawChart() {
    const pts = curve.filter((p) => p.loss !== null);
    const ys = [pts.map((p) => p.loss)];
    if (second()) ys.push(pts.map((p) => p[second()]));
    chart.set(
      pts.map((p) => p.step),
      ys
    );
  }

  const run = sessionRun(el.querySelector('.run-host'), ctx, {
    steps: state.steps,
    config: () => sessionConfig(state.task, state.seed, state.score),
    async snapshot(s) {
      const ex = await s.examples(1, { split: 'test', seed: 11 });
      example = { src: ex.src[0], tgt: ex.tgt[0], srcText: ex.srcText[0], tgtText: ex.tgtText[0] };
      showExample();
      return { src: [example.src], tgt: [example.tgt], ...(ALIGNED.has(state.task) ? { evaluate: HELD_OUT } : {}) };
    },
    async onStart(s, step) {
      const ev = ALIGNED.has(state.task) ? await s.evaluate(HELD_OUT.samples, HELD_OUT.seed) : null;
      drawMap(await s.inspect([example.src], [example.tgt]), step, ev && { ...ev, step });
    },
    // a restored model: its curve and readouts as they were, its own map
    keep: {
      save: () => ({ curve: curve.map((p) => ({ ...p })), evaluation: el.evaluation ?? null, gold: shownGold }),
      async load(kept, s, step) {
        curve.splice(0, curve.length, ...kept.curve);
        drawHeat(await s.inspect([example.src], [example.tgt]), step);
        shownGold = kept.gold;
        el.querySelector('[name=metric]').textContent = '';
        showGold();
        if (kept.evaluation) showAer(kept.evaluation);
        redrawChart();
      },
    },
    // the end of the run (or a finished run restored): the final map answers the prediction
    async onDone(s) {
      if (!example) return;
      const step = curve.at(-1)?.step ?? state.steps;
      drawMap(await s.inspect([example.src], [example.tgt]), step);
      redrawChart();
      const a = el.alignment,
        p = alignmentPattern(a);
      guess.reveal(p.answer, () =>
        t('predict.bahdanau.a', { step: a.step, crossed: p.crossed, diagonal: p.diagonal, chance: p.chance })
      );
    },
    onProgress(p) {
      const last = curve.at(-1);
      if (last && last.step === p.step) last.loss = p.loss;
      else curve.push({ step: p.step, loss: p.loss, gold: last?.gold ?? null, aer: last?.aer ?? null });
      redrawChart();
    },
    onSnapshot: (data, step, s, evaluation) => {
      drawMap(data, step, evaluation);
      redrawChart();
    },
    // before training: the untrained model's map (above) and its loss at step 0
    onPreview(p) {
      const first = curve.find((q) => q.step === 0);
      if (first) first.loss = p.loss;
      else curve.unshift({ step: 0, loss: p.loss, gold: null, aer: null });
      redrawChart();
    },
    onReset() {
      curve.length = 0;
      example = null;
      shownGold = null;
      heat.set([], 0, 0);
      chart.set(
        [],
        goldSeries().map(() => [])
      );
      el.querySelector('[name=metric]').textContent = '';
      el.evaluation = null;
    },
  });
  guess.follow(el.querySelector('.run-host'));
  sel.addEventListener('change', async () => {
    state.task = sel.value;
    store.set({ task: state.task });
    await run.reset();
    makeChart();
  });
  scoreSel.addEventListener('change', async () => {
    state.score = scoreSel.value;
    store.set({ score: state.score });
    showScore();
    await run.reset();
    makeChart();
  });
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      run.render();
      chart.relabel({ series: goldSeries(), xLabel: t('bahdanau.step') });
      redrawChart();
      heat.draw();
      showExample();
      showGold();
      showScore();
      if (el.evaluation) showAer(el.evaluation);
      guess.relabel();
    },
    unmount() {
      run.dispose();
      chart.destroy();
      el.innerHTML = '';
    },
  };
}
