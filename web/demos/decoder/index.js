// `decoder` section demo: the decoder of the shipped Transformer at work. The engine decodes a held-out
// source greedily, then one teacher-forced pass over its own output yields the decoder's
// masked self-attention (the causal mask leaves every weight above the diagonal at exactly 0)
// and the cross-attention; the step slider shows which source tokens output step i reads.
// The mask toggle repeats that pass without the causal mask (inspect {causal: false}), so
// each position also reads later outputs; the readout gives the weight above the diagonal.
// State: decoder.ex, decoder.step, decoder.layer, decoder.mask.
import { t } from '../../i18n/index.js';
import { drawBars, escapeHtml } from '../../viz/bars.js';
import '../../viz/heatmap.js';
import { loadShipped, pretrainedNote } from '../common/shipped.js';
import { tokenLabels } from '../common/maps.js';
import { findMap, headMatrix, modelConfig, vocabFrom, longest } from '../common/heads.js';

export async function mount(el, ctx) {
  const shipped = await loadShipped(ctx, 'transformer-phrases');
  if (!shipped) return (await import('../pending/index.js')).mount(el, ctx);
  const { session, meta } = shipped;
  const { read, store } = ctx;
  const cfg = modelConfig(session.info);
  const layers = cfg.dec_layers ?? 1;
  const all = await session.examples(32, { split: 'test', seed: 9 });
  const word = vocabFrom(all);
  const pool = longest(all, 4);
  const N = 4;
  const state = {
    ex: read.int('ex', 0, 0, N - 1),
    step: read.int('step', 0, 0, 64),
    layer: read.int('layer', layers - 1, 0, layers - 1),
    mask: read.bool('mask', true),
  };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="sa.example"></span> <select name="ex">${pool.srcText
        .slice(0, N)
        .map((s, i) => `<option value="${i}" lang="en">${escapeHtml(s)}</option>`)
        .join('')}</select></label>
      <label><span data-i18n="sa.layer"></span> <select name="layer">${Array.from({ length: layers }, (_, l) => `<option value="${l}">${l + 1}</option>`).join('')}</select></label>
      <label><span data-i18n="dec.step"></span> <input type="range" name="step" min="0" value="0"></label>
      <label><input type="checkbox" name="mask"> <span data-i18n="dec.mask"></span></label>
    </div>
    <p class="readout" name="output" aria-live="polite"></p>
    <div class="demo-row">
      <div><h4 data-i18n="dec.cross"></h4><div class="bars-host" lang="en"></div></div>
      <div><h4 name="self-title"></h4><al-heatmap></al-heatmap><p class="readout" name="leak" aria-live="polite"></p></div>
    </div>
    <div class="pretrained-host"></div>`;
  const $ = (n) => el.querySelector(`[name=${n}]`);
  const heat = el.querySelector('al-heatmap');
  const note = () => {
    el.querySelector('.pretrained-host').innerHTML = pretrainedNote(meta);
  };
  $('ex').value = state.ex;
  $('layer').value = state.layer;
  $('mask').checked = state.mask;
  let data = null,
    out = [],
    srcLabels = [];

  function show() {
    const cross = findMap(data, `decoder.layers.${state.layer}.multihead_attn`);
    const self = findMap(data, `decoder.layers.${state.layer}.self_attn`);
    if (!cross || !self) return;
    state.step = Math.min(state.step, cross.T - 1);
    $('step').max = cross.T - 1;
    $('step').value = state.step;
    const outLabels = Array.from({ length: cross.T }, (_, i) => (i < out.length ? word(out[i]) : '</s>'));
    const w = headMatrix(cross, -1);
    const row = [...w.slice(state.step * cross.S, (state.step + 1) * cross.S)];
    drawBars(
      el.querySelector('.bars-host'),
      row.map((v, j) => ({ label: srcLabels[j] ?? '', value: v, color: 1 }))
    );
    const inputs = ['<s>', ...outLabels.slice(0, -1)];
    const selfMean = headMatrix(self, -1);
    const title = t(state.mask ? 'dec.self' : 'dec.selfOpen');
    $('self-title').textContent = title;
    heat.setAttribute('aria-label', title);
    heat.set(selfMean, self.T, self.S, { rowLabels: inputs, colLabels: inputs });
    const later = aboveDiagonal(self);
    $('leak').textContent = t(state.mask ? 'dec.leakMasked' : 'dec.leakOpen', { pct: (100 * later).toFixed(1) });
    // the output is French (the phrases task translates English noun phrases): marked lang=fr
    $('output').innerHTML = `${t('dec.output', { step: state.step + 1 })} <span lang="fr">${outLabels
      .map((l, i) =>
        i === state.step
          ? `<mark>${escapeHtml(l)}</mark>`
          : i < state.step
            ? escapeHtml(l)
            : `<span class="future">${escapeHtml(l)}</span>`
      )
      .join(' ')}</span>`;
    el.decoded = { out, cross: row, self: [...selfMean], T: self.T, step: state.step, mask: state.mask, above: later };
    store.set(state);
    el.dispatchEvent(new CustomEvent('computed'));
  }

  // The teacher-forced pass over the decoded output, with or without the causal mask; only
  // the latest request draws.
  let asked = 0;
  async function inspect() {
    const src = pool.src[state.ex],
      mine = ++asked;
    const res = await session.inspect([src], [out], { causal: state.mask });
    if (mine !== asked) return;
    data = res;
    const m = findMap(data, 'decoder.layers.0.multihead_attn');
    srcLabels = tokenLabels(pool.srcText[state.ex], m?.S ?? src.length, src);
    show();
  }

  async function load() {
    out = Array.from((await session.decode([pool.src[state.ex]]))[0]);
    await inspect();
  }
  $('ex').addEventListener('change', () => {
    state.ex = Number($('ex').value);
    state.step = 0;
    load();
  });
  $('layer').addEventListener('change', () => {
    state.layer = Number($('layer').value);
    show();
  });
  $('step').addEventListener('input', () => {
    state.step = Number($('step').value);
    show();
  });
  $('mask').addEventListener('change', () => {
    state.mask = $('mask').checked;
    inspect();
  });
  note();
  await load();
  return {
    relabel() {
      show();
      note();
    },
    unmount() {
      el.innerHTML = '';
    },
  };
}

// The share of attention that queries put on later positions, over all heads and rows of
// example 0 of a [B,H,T,T] self-attention map: 0 exactly when the causal mask is on.
function aboveDiagonal(m) {
  let mass = 0;
  for (let h = 0; h < m.H; h++)
    for (let i = 0; i < m.T; i++) for (let j = i + 1; j < m.S; j++) mass += m.weights[(h * m.T + i) * m.S + j];
  return mass / (m.H * m.T);
}
