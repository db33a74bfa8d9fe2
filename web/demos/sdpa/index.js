// `dot-product` section demo: why softmax(QKᵀ/√d_k) divides by √d_k. For random q, k with unit-variance entries
// the engine computes the attention weights at the chosen d_k, with the scaling on or off
// ("off" feeds the engine q·√d_k, so its 1/√d_k cancels and the scores are raw dot products).
// A sweep over d_k = 1…512 plots the mean largest weight and the mean entropy both ways.
// State in the URL hash (sdpa.n, sdpa.dk, sdpa.causal, sdpa.scale, sdpa.seed); the inputs and
// the engine's output stay on the element for tests: el.inputs, el.result, el.sweep.
import { randn } from '../../core/random.js';
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import '../../viz/heatmap.js';
import { latest } from '../common/latest.js';

const SWEEP_DK = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const SWEEP_ROWS = 64,
  SWEEP_KEYS = 16;

// mean over rows of the largest weight and of the entropy in bits; weights: [rows, cols]
export function rowStats(w, rows, cols) {
  let mx = 0,
    h = 0;
  for (let i = 0; i < rows; i++) {
    let m = 0;
    for (let j = 0; j < cols; j++) {
      const p = w[i * cols + j];
      if (p > m) m = p;
      if (p > 0) h -= p * Math.log2(p);
    }
    mx += m;
  }
  return { max: mx / rows, entropy: h / rows };
}

async function weightsFor(engine, q, k, T, S, dk, scaled, causal) {
  const qq = scaled ? q : q.map((x) => x * Math.sqrt(dk));
  return (await engine.attention(qq, k, new Float32Array(S * dk), { T, S, Dk: dk, causal })).weights;
}

export async function mount(el, ctx) {
  const { engine, read, store } = ctx;
  const state = {
    n: read.int('n', 8, 2, 32),
    dk: read.int('dk', 16, 1, 512),
    causal: read.bool('causal', false),
    scale: read.bool('scale', true),
    seed: read.int('seed', 1, 1, 1e9),
  };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="sdpa.n"></span> <input type="range" name="n" min="2" max="32"></label>
      <output name="nval"></output>
      <label><span data-i18n="sdpa.dk"></span> <input type="range" name="dk" min="0" max="9"></label>
      <output name="dkval"></output>
      <label><input type="checkbox" name="scale"> <span data-i18n="sdpa.scale"></span></label>
      <label><input type="checkbox" name="causal"> <span data-i18n="sdpa.causal"></span></label>
      <button type="button" name="reroll" data-i18n="sdpa.reroll"></button>
    </div>
    <p class="readout" aria-live="polite"><span name="stats"></span></p>
    <div class="demo-row">
      <al-heatmap data-i18n-aria="sdpa.heatmap"></al-heatmap>
      <div class="charts">
        <div class="chart-max"></div>
        <div class="chart-ent"></div>
      </div>
    </div>
    <p class="caption" data-i18n="sdpa.sweepCaption"></p>`;
  const $ = (name) => el.querySelector(`[name=${name}]`);
  const heat = el.querySelector('al-heatmap');
  $('n').value = state.n;
  $('dk').value = Math.round(Math.log2(state.dk));
  $('causal').checked = state.causal;
  $('scale').checked = state.scale;

  const seriesLabels = () => [t('sdpa.scaled'), t('sdpa.unscaled')];
  const maxChart = lineChart(el.querySelector('.chart-max'), {
    series: seriesLabels().map((label) => ({ label })),
    xLabel: 'd_k',
    yLabel: t('sdpa.maxWeight'),
    logX: true,
    height: 180,
    points: true,
  });
  const entChart = lineChart(el.querySelector('.chart-ent'), {
    series: seriesLabels().map((label) => ({ label })),
    xLabel: 'd_k',
    yLabel: t('sdpa.entropy'),
    logX: true,
    height: 180,
    points: true,
  });

  const sweep = latest(async (stale) => {
    const res = { dk: SWEEP_DK, max: [[], []], entropy: [[], []] };
    for (const dk of SWEEP_DK) {
      const q = randn(SWEEP_ROWS * dk, state.seed * 31 + dk),
        k = randn(SWEEP_KEYS * dk, state.seed * 37 + dk);
      for (const [s, scaled] of [
        [0, true],
        [1, false],
      ]) {
        const st = rowStats(
          await weightsFor(engine, q, k, SWEEP_ROWS, SWEEP_KEYS, dk, scaled, false),
          SWEEP_ROWS,
          SWEEP_KEYS
        );
        res.max[s].push(st.max);
        res.entropy[s].push(st.entropy);
      }
    }
    if (stale()) return;
    el.sweep = res;
    maxChart.set(SWEEP_DK, res.max);
    entChart.set(SWEEP_DK, res.entropy);
    el.dispatchEvent(new CustomEvent('swept'));
  });

  let stats = null;
  function showStats() {
    $('stats').textContent = t('sdpa.stats', {
      max: stats.max.toFixed(3),
      entropy: stats.entropy.toFixed(2),
      uniform: Math.log2(state.n).toFixed(2),
    });
  }

  const compute = latest(async (stale) => {
    const { n, dk, causal, seed, scale } = state;
    const q = randn(n * dk, seed),
      k = randn(n * dk, seed + 7919);
    const qq = scale ? q : q.map((x) => x * Math.sqrt(dk));
    const result = await engine.attention(qq, k, new Float32Array(n * dk), { T: n, S: n, Dk: dk, causal });
    if (stale()) return;
    el.inputs = { q: qq, k, n, dk, causal, scale };
    el.result = result;
    const labels = Array.from({ length: n }, (_, i) => `t${i + 1}`);
    heat.set(result.weights, n, n, { rowLabels: labels, colLabels: labels });
    stats = rowStats(result.weights, n, n);
    showStats();
    $('nval').textContent = `n = ${n}`;
    $('dkval').textContent = `d_k = ${dk}`;
    $('dk').setAttribute('aria-valuetext', `d_k = ${dk}`); // the slider's value is log2 d_k
    store.set(state);
    el.dispatchEvent(new CustomEvent('computed'));
  });

  $('n').addEventListener('input', (e) => {
    state.n = Number(e.target.value);
    compute();
  });
  $('dk').addEventListener('input', (e) => {
    state.dk = 2 ** Number(e.target.value);
    compute();
  });
  $('causal').addEventListener('change', (e) => {
    state.causal = e.target.checked;
    compute();
  });
  $('scale').addEventListener('change', (e) => {
    state.scale = e.target.checked;
    compute();
  });
  $('reroll').addEventListener('click', () => {
    state.seed += 1;
    compute();
    sweep();
  });
  await Promise.all([compute(), sweep()]);
  return {
    relabel() {
      showStats();
      heat.draw();
      maxChart.relabel({ series: seriesLabels(), yLabel: t('sdpa.maxWeight') });
      entChart.relabel({ series: seriesLabels(), yLabel: t('sdpa.entropy') });
    },
    unmount() {
      maxChart.destroy();
      entChart.destroy();
      el.innerHTML = '';
    },
  };
}
