// `dot-product` section demo: one token's new representation as a softmax mixture. The query is "are" in
// "How are you"; the reader sets its score against each key, the engine's attention turns
// the scores into weights (d_k = 1, so the scores reach the softmax unchanged) and mixes the
// three value vectors (seeded random, V = 4 dims). State: mixing.s0…s2 in the URL hash.
import { randn } from '../../core/random.js';
import { drawBars } from '../../viz/bars.js';
import { latest } from '../common/latest.js';

const TOKENS = ['How', 'are', 'you'];
const DV = 4;
// Scores whose softmax is 0.2 / 0.1 / 0.7 (ln 0.2 − ln 0.2, ln 0.1 − ln 0.2, ln 0.7 − ln 0.2, on the
// sliders' 0.05 grid): 0.2005 / 0.0996 / 0.6999.
const DEFAULTS = [0, -0.7, 1.25];

export async function mount(el, ctx) {
  const { engine, read, store } = ctx;
  const scores = DEFAULTS.map((d, i) => read.num(`s${i}`, d, -4, 4));
  const values = randn(TOKENS.length * DV, 2017); // [S=3, Dv=4]
  el.innerHTML = `
    <div class="controls">${TOKENS.map(
      (tok, i) => `
      <label><span data-i18n="mixing.score"></span> “are”·“${tok}” <input type="range" name="s${i}" min="-4" max="4" step="0.05">
        <output name="s${i}-value" class="slider-value"></output></label>`
    ).join('')}
    </div>
    <div class="demo-row">
      <div><h4 data-i18n="mixing.weights"></h4><div class="weights" lang="en"></div></div>
      <div><h4 data-i18n="mixing.values"></h4><div class="values"></div></div>
      <div><h4 data-i18n="mixing.output"></h4><div class="output"></div></div>
    </div>`;
  // each slider's value beside it (the prose asks for a score difference of 1)
  const showValue = (i) => {
    el.querySelector(`[name=s${i}-value]`).textContent = scores[i].toFixed(2);
  };
  scores.forEach((s, i) => {
    el.querySelector(`[name=s${i}]`).value = s;
    showValue(i);
  });

  const compute = latest(async (stale) => {
    const r = await engine.attention(new Float32Array([1]), Float32Array.from(scores), values, {
      T: 1,
      S: 3,
      Dk: 1,
      Dv: DV,
    });
    if (stale()) return;
    el.result = { scores: [...scores], weights: [...r.weights], out: [...r.out], values: [...values] };
    drawBars(
      el.querySelector('.weights'),
      TOKENS.map((tok, j) => ({ label: tok, value: r.weights[j], color: 1 }))
    );
    el.querySelector('.values').innerHTML = TOKENS.map(
      (tok, j) =>
        `<div class="vec"><span class="bar-label">v(${tok})</span> [${[...values.slice(j * DV, j * DV + DV)].map((x) => x.toFixed(2)).join(', ')}]</div>`
    ).join('');
    drawBars(
      el.querySelector('.output'),
      [...r.out].map((x, d) => ({ label: `d${d}`, value: x })),
      { max: 2, signed: true }
    );
    store.set(Object.fromEntries(scores.map((s, i) => [`s${i}`, s])));
    el.dispatchEvent(new CustomEvent('computed'));
  });
  el.querySelectorAll('input[type=range]').forEach((inp, i) =>
    inp.addEventListener('input', () => {
      scores[i] = Number(inp.value);
      showValue(i);
      compute();
    })
  );
  await compute();
  return {
    relabel() {},
    unmount() {
      el.innerHTML = '';
    },
  };
}
