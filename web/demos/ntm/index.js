// `relatives` section demo: content-based addressing of a Neural Turing Machine (Graves et al. 2014, eq. 5–6):
// w_i = softmax_i(β · cos(k, M_i)), by the engine's contentAddress. The read vector Σ w_i M_i
// comes from the engine's attention run as the same lookup: keys are the memory rows scaled to
// unit length, the query is β·k/‖k‖·√M (cancelling its 1/√d_k), the values are the rows.
// The key is a noisy copy of one memory row; state: ntm.row, ntm.noise, ntm.beta, ntm.seed.
import { randn } from '../../core/random.js';
import { t } from '../../i18n/index.js';
import { drawBars } from '../../viz/bars.js';
import { latest } from '../common/latest.js';

const N = 8,
  M = 6; // memory slots × slot width

const unit = (v) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};

export async function mount(el, ctx) {
  const { engine, read, store } = ctx;
  const state = {
    row: read.int('row', 3, 0, N - 1),
    noise: read.num('noise', 0.5, 0, 2),
    beta: read.num('beta', 5, 0, 50),
    seed: read.int('seed', 7, 1, 1e9),
  };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="ntm.row"></span> <select name="row">${Array.from({ length: N }, (_, i) => `<option value="${i}">M${i}</option>`).join('')}</select></label>
      <label><span data-i18n="ntm.noise"></span> <input type="range" name="noise" min="0" max="2" step="0.05">
        <output name="noiseval" class="slider-value"></output></label>
      <label>β <input type="range" name="beta" min="0" max="50" step="0.5"></label>
      <output name="betaval"></output>
    </div>
    <div class="demo-row">
      <div><h4 data-i18n="ntm.cosine"></h4><div class="cos"></div></div>
      <div><h4 data-i18n="ntm.weights"></h4><div class="w"></div></div>
    </div>
    <p class="readout" name="read"></p>`;
  const $ = (n) => el.querySelector(`[name=${n}]`);
  $('row').value = state.row;
  $('noise').value = state.noise;
  $('beta').value = state.beta;
  const mem = randn(N * M, state.seed); // [N, M]
  const rows = Array.from({ length: N }, (_, i) => [...mem.slice(i * M, i * M + M)]);
  const keysUnit = Float32Array.from(rows.flatMap(unit));

  const compute = latest(async (stale) => {
    const noise = randn(M, state.seed + 101);
    const key = rows[state.row].map((x, c) => x + state.noise * noise[c]);
    const q = Float32Array.from(unit(key).map((x) => x * state.beta * Math.sqrt(M)));
    const [r, ca] = await Promise.all([
      engine.attention(q, keysUnit, mem, { T: 1, S: N, Dk: M, Dv: M }),
      engine.contentAddress(mem, Float32Array.from(key), state.beta),
    ]);
    if (stale()) return;
    el.result = {
      key,
      cos: [...ca.similarity],
      weights: [...ca.weights],
      attentionWeights: [...r.weights],
      read: [...r.out],
      beta: state.beta,
    };
    drawBars(
      el.querySelector('.cos'),
      [...ca.similarity].map((c, i) => ({ label: `M${i}`, value: c })),
      { signed: true }
    );
    drawBars(
      el.querySelector('.w'),
      [...ca.weights].map((w, i) => ({ label: `M${i}`, value: w, color: 1 }))
    );
    $('betaval').textContent = `β = ${state.beta}`;
    $('noiseval').textContent = state.noise.toFixed(2);
    $('read').textContent = t('ntm.read', { v: [...r.out].map((x) => x.toFixed(2)).join(', ') });
    store.set(state);
    el.dispatchEvent(new CustomEvent('computed'));
  });
  $('row').addEventListener('change', (e) => {
    state.row = Number(e.target.value);
    compute();
  });
  $('noise').addEventListener('input', (e) => {
    state.noise = Number(e.target.value);
    $('noiseval').textContent = state.noise.toFixed(2);
    compute();
  });
  $('beta').addEventListener('input', (e) => {
    state.beta = Number(e.target.value);
    compute();
  });
  await compute();
  return {
    relabel: compute,
    unmount() {
      el.innerHTML = '';
    },
  };
}
