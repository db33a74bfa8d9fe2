// Demo: softmax(QKᵀ/√d_k) of random Q, K, computed by the engine and drawn as a heatmap.
// State (n, d_k, causal, seed) lives in the URL hash under "sdpa.*" so a link reproduces it.
// Exposes the inputs and the engine's output on the element for tests: el.inputs, el.result.
import { randn } from '../../core/random.js';
import { t, onLangChange } from '../../i18n/index.js';
import '../../viz/heatmap.js';

function readState() {
  const p = new URLSearchParams(location.hash.slice(1));
  const num = (k, d, lo, hi) => Math.min(hi, Math.max(lo, Number(p.get(k)) || d));
  return { n: num('sdpa.n', 8, 2, 32), dk: num('sdpa.dk', 16, 1, 512), causal: p.get('sdpa.causal') === '1',
           seed: num('sdpa.seed', 1, 1, 1e9) };
}

function writeState(s) {
  const p = new URLSearchParams(location.hash.slice(1));
  p.set('sdpa.n', s.n); p.set('sdpa.dk', s.dk); p.set('sdpa.causal', s.causal ? '1' : '0'); p.set('sdpa.seed', s.seed);
  history.replaceState(null, '', `#${p}`);
}

export function mount(el, engine) {
  const state = readState();
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="sdpa.n"></span> <input type="range" name="n" min="2" max="32"></label>
      <label><span data-i18n="sdpa.dk"></span> <input type="range" name="dk" min="1" max="9"></label>
      <label><input type="checkbox" name="causal"> <span data-i18n="sdpa.causal"></span></label>
      <button type="button" name="reroll" data-i18n="sdpa.reroll"></button>
      <output name="dkval"></output>
    </div>
    <al-heatmap></al-heatmap>
    <p class="engine-status"></p>`;
  const $ = (name) => el.querySelector(`[name=${name}]`);
  const heat = el.querySelector('al-heatmap');
  const status = el.querySelector('.engine-status');
  $('n').value = state.n;
  $('dk').value = Math.round(Math.log2(state.dk));
  $('causal').checked = state.causal;

  const labelStatus = () => {
    const info = engine.info();
    status.textContent = t('sdpa.status', { threads: info.threads ? t('sdpa.threads') : '' });
  };

  function compute() {
    const { n, dk, causal, seed } = state;
    const q = randn(n * dk, seed), k = randn(n * dk, seed + 7919);
    const v = new Float32Array(n * dk);
    const result = engine.attention(q, k, v, { T: n, S: n, Dk: dk, causal });
    el.inputs = { q, k, n, dk, causal };
    el.result = result;
    const labels = Array.from({ length: n }, (_, i) => `t${i + 1}`);
    heat.set(result.weights, n, n, { rowLabels: labels, colLabels: labels });
    $('dkval').textContent = `d_k = ${dk}`;
    writeState(state);
    el.dispatchEvent(new CustomEvent('computed'));
  }

  $('n').addEventListener('input', (e) => { state.n = Number(e.target.value); compute(); });
  $('dk').addEventListener('input', (e) => { state.dk = 2 ** Number(e.target.value); compute(); });
  $('causal').addEventListener('change', (e) => { state.causal = e.target.checked; compute(); });
  $('reroll').addEventListener('click', () => { state.seed += 1; compute(); });
  const off = onLangChange(() => { labelStatus(); heat.draw(); });
  labelStatus();
  compute();
  return () => { off(); el.innerHTML = ''; };
}
