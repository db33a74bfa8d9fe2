// `self-attention` section demo: self-attention of a trained encoder. The shipped Transformer (trained natively by
// `npm run models`) encodes a held-out source; clicking a token shows the weights its query
// gives every key, per layer and head (or their mean), read from the engine's own maps. The
// block diagram lists the model's real configuration. Below the maps, a step-through of one
// head's computation for the chosen query (common/stepthrough.js, with the engine's q, K, V from
// inspect {parts: true}; with "mean of heads" selected it walks head 1). State:
// self-attention.ex, .layer, .head, .token. On the element: el.selected (the map row shown),
// el.step (the step-through's numbers).
import { t } from '../../i18n/index.js';
import { drawBars, escapeHtml } from '../../viz/bars.js';
import '../../viz/heatmap.js';
import { loadShipped, pretrainedNote } from '../common/shipped.js';
import { tokenLabels } from '../common/maps.js';
import { findMap, headMatrix, modelConfig, longest } from '../common/heads.js';
import { stepThrough, headParts } from '../common/stepthrough.js';

export async function mount(el, ctx) {
  const shipped = await loadShipped(ctx, 'transformer-phrases');
  if (!shipped) return (await import('../pending/index.js')).mount(el, ctx);
  const { session, meta } = shipped;
  const { read, store } = ctx;
  const cfg = modelConfig(session.info);
  const H = cfg.heads ?? 1,
    layers = cfg.enc_layers ?? 1;
  const ex = longest(await session.examples(24, { split: 'test', seed: 5 }), 4);
  const state = {
    ex: read.int('ex', 0, 0, ex.src.length - 1),
    layer: read.int('layer', 0, 0, layers - 1),
    head: read.int('head', -1, -1, H - 1),
    token: read.int('token', 1, 0, 64),
  };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="sa.example"></span> <select name="ex">${ex.srcText.map((s, i) => `<option value="${i}" lang="en">${escapeHtml(s)}</option>`).join('')}</select></label>
      <label><span data-i18n="sa.layer"></span> <select name="layer">${Array.from({ length: layers }, (_, l) => `<option value="${l}">${l + 1}</option>`).join('')}</select></label>
      <label><span data-i18n="sa.head"></span> <select name="head"><option value="-1" data-i18n="sa.meanHeads"></option>${Array.from({ length: H }, (_, h) => `<option value="${h}">${h + 1}</option>`).join('')}</select></label>
    </div>
    <div class="tokens" role="group" data-i18n-aria="sa.tokens"></div>
    <div class="demo-row">
      <div><h4 data-i18n="sa.weights"></h4><div class="bars-host" lang="en"></div></div>
      <al-heatmap data-i18n-aria="sa.heatmap"></al-heatmap>
    </div>
    <h4 data-i18n="sa.step"></h4>
    <p class="note" name="stepnote"></p>
    <div class="stepthrough-host"></div>
    <h4 data-i18n="sa.block"></h4>
    <ol class="block-diagram"></ol>
    <div class="pretrained-host"></div>`;
  const note = () => {
    el.querySelector('.pretrained-host').innerHTML = pretrainedNote(meta);
  };
  note();
  const $ = (n) => el.querySelector(`[name=${n}]`);
  const heat = el.querySelector('al-heatmap');
  $('ex').value = state.ex;
  $('layer').value = state.layer;
  $('head').value = state.head;
  let data = null,
    labels = [];
  const steps = stepThrough(el.querySelector('.stepthrough-host'), {
    engine: ctx.engine,
    onStep: (s) => {
      el.step = s;
    },
  });

  function block() {
    el.querySelector('.block-diagram').innerHTML = [
      t('sa.block.embed', { C: cfg.d_model, pos: t(`sa.pos.${cfg.pos_encoding ?? 'sinusoidal'}`) }),
      t('sa.block.attn', { H, hs: cfg.d_model / H }),
      t('sa.block.norm'),
      t('sa.block.ffn', { C: cfg.d_model, F: cfg.d_ff, act: cfg.activation ?? 'relu' }),
      t('sa.block.norm'),
      t('sa.block.repeat', { N: layers }),
    ]
      .map((s) => `<li>${escapeHtml(s)}</li>`)
      .join('');
  }

  function show() {
    const m = findMap(data, `encoder.layers.${state.layer}.self_attn`);
    if (!m) return;
    const w = headMatrix(m, state.head);
    state.token = Math.min(state.token, m.T - 1);
    el.querySelector('.tokens').innerHTML = labels
      .map(
        (l, i) => `<button type="button" data-i="${i}" aria-pressed="${i === state.token}">${escapeHtml(l)}</button>`
      )
      .join('');
    el.querySelectorAll('.tokens button').forEach((b) =>
      b.addEventListener('click', () => {
        state.token = Number(b.dataset.i);
        show();
      })
    );
    const row = [...w.slice(state.token * m.S, (state.token + 1) * m.S)];
    drawBars(
      el.querySelector('.bars-host'),
      row.map((v, j) => ({ label: labels[j], value: v, color: 1 }))
    );
    heat.set(w, m.T, m.S, { rowLabels: labels, colLabels: labels });
    el.selected = { layer: state.layer, head: state.head, token: state.token, row, T: m.T, S: m.S, H: m.H };
    showSteps(m);
    store.set(state);
    el.dispatchEvent(new CustomEvent('computed'));
  }

  // the step-through of the selected head (head 1 under "mean of heads") for the query token
  function showSteps(m) {
    const h = Math.max(0, state.head);
    const parts = headParts(m, h, state.token);
    el.querySelector('[name=stepnote]').textContent = !parts
      ? t('sa.stepMissing')
      : state.head < 0
        ? t('sa.stepMean')
        : '';
    el.querySelector('[name=stepnote]').hidden = !!parts && state.head >= 0;
    steps.set(parts, {
      labels,
      heading: t('sa.stepTitle', { layer: state.layer + 1, h: h + 1, tok: labels[state.token] ?? '', hs: m.hs ?? '' }),
      key: `${state.ex}/${state.layer}/${h}/${state.token}`,
    });
  }

  async function load() {
    const src = ex.src[state.ex],
      tgt = ex.tgt[state.ex];
    data = await session.inspect([src], [tgt], { parts: true });
    const m = findMap(data, 'encoder.layers.0.self_attn');
    labels = tokenLabels(ex.srcText[state.ex], m?.S ?? src.length, src);
    show();
  }
  $('ex').addEventListener('change', () => {
    state.ex = Number($('ex').value);
    load();
  });
  $('layer').addEventListener('change', () => {
    state.layer = Number($('layer').value);
    show();
  });
  $('head').addEventListener('change', () => {
    state.head = Number($('head').value);
    show();
  });
  heat.addEventListener('cell', (e) => {
    if (state.token !== e.detail.i) {
      state.token = e.detail.i;
      show();
    }
  });
  block();
  await load();
  return {
    relabel() {
      block();
      show();
      note();
    },
    unmount() {
      el.innerHTML = '';
    },
  };
}
