// `multihead` section demo: multi-head attention. Top: every head of one sublayer of the shipped Transformer on
// a held-out example, side by side (the engine's own per-head maps), each head measured on that
// example (entropy, distance, the token it attends to most; measure.js), with a mute switch per
// head: muted heads' outputs are zeroed (inspect {mute}) on N held-out examples and the loss and
// token accuracy are compared with all heads. Bottom: the head-count
// ablation in small (Vaswani et al. 2017, Table 3 (A)): the same task trained in the engine's
// Worker with h = 1, 4, 16, 32 at a fixed d_model = 64, then each model's held-out loss. Before each
// ablation model's session is closed, the engine's maps of one held-out example are kept, so an
// h slider over the trained models shows d_k = d_model/h and that model's heads at once (the
// sublayer chosen above). Until the ablation has run, the untrained h-head model's heads are
// shown instead, in their own grid (step 0, from a throwaway session: nothing is trained).
// Before the ablation the reader may predict which head count ends with the lowest held-out loss
// (common/predict.js); the losses the bars show answer once the last model is evaluated.
// State: multihead.guess, multihead.layer, multihead.kind, multihead.mute (muted heads, 1-based, e.g. "1,3"; only
// when any), multihead.steps, multihead.h. On the element: el.ablation, el.heads (top),
// el.headStats, el.muted (top), el.ablationHeads ({h, dk, H, T, S, name}, the slider's maps).
// Long because: the heads view, its mute measurement and the ablation with its h slider share one
// sublayer choice and one demo state; apart they would pass both back and forth.
import { t } from '../../i18n/index.js';
import { drawBars, escapeHtml } from '../../viz/bars.js';
import '../../viz/heatmap.js';
import { loadShipped, pretrainedNote } from '../common/shipped.js';
import { tokenLabels } from '../common/maps.js';
import { findMap, headMatrix, modelConfig, vocabFrom, longest } from '../common/heads.js';
import { createRun } from '../common/run.js';
import { predict } from '../common/predict.js';
import { headSummaries, scorePass } from './measure.js';

// HEADS, D_MODEL: the paper's Table 3 (A) head counts at one width; MUTE_N held-out examples
// measure muting (facts.js: the caption quotes them)
import { HEADS, D_MODEL, MUTE_N } from './facts.js';

const CHUNK = 50;
const KINDS = ['encoder.self_attn', 'decoder.self_attn', 'decoder.multihead_attn'];
const MUTE_SEED = 11;

export async function mount(el, ctx) {
  const { read, store } = ctx;
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const shipped = await loadShipped(ctx, 'transformer-phrases');
  const state = {
    layer: read.int('layer', 0, 0, 7),
    kind: read.str('kind', KINDS[0], KINDS),
    steps: read.int('steps', 300, 50, 5000),
    h: read.str('h', '4', HEADS.map(String)) | 0,
    mute: [
      ...new Set(
        read
          .str('mute', '')
          .split(',')
          .map(Number)
          .filter((h) => Number.isInteger(h) && h >= 1 && h <= 64)
      ),
    ].sort((a, b) => a - b),
  };
  el.innerHTML = `
    <div class="heads-view" ${shipped ? '' : 'hidden'}>
      <div class="controls">
        <label><span data-i18n="mh.kind"></span> <select name="kind">${KINDS.map((k) => `<option value="${k}" data-i18n="mh.kind.${k}"></option>`).join('')}</select></label>
        <label><span data-i18n="sa.layer"></span> <select name="layer"></select></label>
      </div>
      <div class="head-grid"></div>
      <h4 data-i18n="mh.measured"></h4>
      <div class="head-stats"></div>
      <p class="readout" name="mutecmp" aria-live="polite"></p>
      <div class="pretrained-host"></div>
    </div>
    <h4 data-i18n="mh.ablation"></h4>
    <div class="predict-host"></div>
    <div class="run-host"></div>
    <div class="bars-host mh-results"></div>
    <p class="caption" name="ablation-caption"></p>
    <div class="controls"><label><span data-i18n="mh.hSlider"></span> <input type="range" name="h" min="0" max="${HEADS.length - 1}" step="1" disabled></label> <output name="hval"></output></div>
    <p class="note" name="hnote" data-i18n="mh.hWait"></p>
    <p class="readout" name="dk" aria-live="polite"></p>
    <p class="note" name="huntrained" hidden></p>
    <div class="head-grid" name="ugrid"></div>
    <div class="head-grid" name="hgrid"></div>`;
  const $ = (n) => el.querySelector(`[name=${n}]`);
  const guess = predict(ctx, {
    question: 'predict.mh.q',
    choices: HEADS.map((h) => ({ value: String(h), text: `h = ${h}` })),
  });
  el.querySelector('.predict-host').replaceWith(guess.el);
  let top = null;

  // the engine's maps of the longest of 24 held-out examples, with token labels for the axes
  async function snapshot(session) {
    const all = await session.examples(24, { split: 'test', seed: 3 });
    const word = vocabFrom(all);
    const pool = longest(all, 1);
    const data = await session.inspect([pool.src[0]], [pool.tgt[0]]);
    const enc = findMap(data, 'encoder.layers.0.self_attn');
    return {
      data,
      srcLabels: tokenLabels(pool.srcText[0], enc?.S ?? pool.src[0].length, pool.src[0]),
      tgtLabels: ['<s>', ...pool.tgt[0].map(word)],
    };
  }

  async function loadHeads() {
    const { session, meta } = shipped;
    const cfg = modelConfig(session.info);
    $('layer').innerHTML = Array.from(
      { length: cfg.enc_layers ?? 1 },
      (_, l) => `<option value="${l}">${l + 1}</option>`
    ).join('');
    state.layer = Math.min(state.layer, (cfg.enc_layers ?? 1) - 1);
    $('layer').value = state.layer;
    $('kind').value = state.kind;
    top = await snapshot(session);
    el.querySelector('.pretrained-host').innerHTML = pretrainedNote(meta);
  }

  // every head of one sublayer into a grid of heatmaps; returns the map drawn (or null)
  function drawHeads(grid, snap, layer) {
    const [part, sub] = state.kind.split('.');
    const m = findMap(snap?.data, `${part}.layers.${layer}.${sub}`);
    if (!m) {
      grid.innerHTML = '';
      return null;
    }
    const rows = part === 'encoder' ? snap.srcLabels : snap.tgtLabels;
    const cols = sub === 'self_attn' && part === 'decoder' ? snap.tgtLabels : snap.srcLabels;
    grid.innerHTML = Array.from(
      { length: m.H },
      (_, h) =>
        `<figure><figcaption>${escapeHtml(t('mh.head', { h: h + 1 }))}</figcaption><al-heatmap></al-heatmap></figure>`
    ).join('');
    grid.querySelectorAll('al-heatmap').forEach((hm, h) => {
      hm.setAttribute('aria-label', t('mh.head', { h: h + 1 }));
      hm.set(headMatrix(m, h), m.T, m.S, {
        rowLabels: rows.slice(0, m.T),
        colLabels: cols.slice(0, m.S),
        maxWidth: 200,
      });
    });
    return m;
  }

  function showHeads() {
    const m = drawHeads(el.querySelector('.head-grid'), top, state.layer);
    if (m) el.heads = { H: m.H, T: m.T, S: m.S, name: m.name };
    store.set({ layer: state.layer, kind: state.kind });
    showStats(m);
  }

  // ---- heads, measured: summaries of the shown example's map, and muting on MUTE_N examples
  let pool = null,
    baseline = null,
    shown = null,
    measuring = 0;
  function showStats(m) {
    shown = m;
    const host = el.querySelector('.head-stats');
    if (!m) {
      host.innerHTML = '';
      el.headStats = null;
      return;
    }
    state.mute = state.mute.filter((h) => h <= m.H);
    const cross = state.kind === 'decoder.multihead_attn';
    const [part, sub] = state.kind.split('.');
    const cols = sub === 'self_attn' && part === 'decoder' ? top.tgtLabels : top.srcLabels;
    const stats = headSummaries(m, { signed: cross });
    el.headStats = {
      name: m.name,
      S: m.S,
      T: m.T,
      maxEntropy: Math.log2(m.S),
      heads: stats.map((x) => ({ ...x, token: cols[x.top] ?? '' })),
    };
    host.innerHTML = `<table>
      <caption>${escapeHtml(t('mh.statsCaption', { S: m.S, max: Math.log2(m.S).toFixed(2) }))}</caption>
      <thead><tr><th scope="col">${escapeHtml(t('sa.head'))}</th><th scope="col">${escapeHtml(t('mh.entropy'))}</th>
        <th scope="col">${escapeHtml(t(cross ? 'mh.offset' : 'mh.distance'))}</th><th scope="col">${escapeHtml(t('mh.top'))}</th><th scope="col">${escapeHtml(t('mh.muteCol'))}</th></tr></thead>
      <tbody>${stats
        .map(
          (
            x
          ) => `<tr><th scope="row">${x.head + 1}</th><td>${x.entropy.toFixed(2)}</td><td>${x.distance.toFixed(2)}</td>
        <td>${escapeHtml(t('mh.topValue', { tok: cols[x.top] ?? '', pos: x.top + 1, pct: (100 * x.topWeight).toFixed(0) }))}</td>
        <td><input type="checkbox" name="mute-${x.head + 1}" value="${x.head + 1}" aria-label="${escapeHtml(t('mh.mute', { h: x.head + 1 }))}"${state.mute.includes(x.head + 1) ? ' checked' : ''}></td></tr>`
        )
        .join('')}</tbody>
    </table>`;
    host.querySelectorAll('input[type=checkbox]').forEach((box) =>
      box.addEventListener('change', () => {
        const h = Number(box.value);
        state.mute = box.checked
          ? [...new Set([...state.mute, h])].sort((a, b) => a - b)
          : state.mute.filter((x) => x !== h);
        measure();
      })
    );
    measure();
  }

  const loadPool = async () => (pool ??= await shipped.session.examples(MUTE_N, { split: 'test', seed: MUTE_SEED }));
  async function measure() {
    const m = shown;
    store.set({ mute: state.mute.length ? state.mute.join(',') : null });
    if (!m) return;
    const run = ++measuring,
      heads = [...state.mute];
    $('mutecmp').textContent = t('mh.measuring', { n: MUTE_N });
    try {
      const ex = await loadPool();
      baseline ??= scorePass(await shipped.session.inspect(ex.src, ex.tgt), ex.tgt);
      // no head muted: a fresh pass all the same, so the numbers show the mask is gone
      const now = scorePass(
        await shipped.session.inspect(
          ex.src,
          ex.tgt,
          heads.length ? { mute: { [m.name]: heads.map((h) => h - 1) } } : {}
        ),
        ex.tgt
      );
      if (run !== measuring) return;
      el.muted = {
        name: m.name,
        heads,
        n: MUTE_N,
        all: baseline,
        muted: now,
        diff: { loss: now.loss - baseline.loss, acc: now.acc - baseline.acc },
      };
      const sign = (x, d) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(d)}`;
      // a loss ratio: a percentage, or ×r once the loss has at least doubled
      const relative = (r) => (r >= 2 ? `×${r.toFixed(0)}` : `${sign(100 * (r - 1), 1)}%`);
      $('mutecmp').textContent = heads.length
        ? t('mh.muted', {
            heads: heads.join(', '),
            n: MUTE_N,
            loss: now.loss.toFixed(4),
            acc: (100 * now.acc).toFixed(1),
            dloss: sign(now.loss - baseline.loss, 4),
            rel: relative(now.loss / baseline.loss),
            dacc: sign(100 * (now.acc - baseline.acc), 1),
            base: baseline.loss.toFixed(4),
            baseAcc: (100 * baseline.acc).toFixed(1),
          })
        : t('mh.allHeads', { n: MUTE_N, loss: now.loss.toFixed(4), acc: (100 * now.acc).toFixed(1) });
      el.dispatchEvent(new CustomEvent('computed'));
    } catch (e) {
      if (run === measuring) $('mutecmp').textContent = t('engine.error', { message: e.message });
    }
  }

  // ---- the h slider over the trained ablation models (their kept maps; one layer each)
  const snaps = new Map();
  const hInput = $('h');
  hInput.value = HEADS.indexOf(state.h);
  function showAblationHeads() {
    const ready = HEADS.every((h) => snaps.has(h));
    const dk = D_MODEL / state.h;
    hInput.disabled = !ready;
    $('hnote').hidden = ready;
    $('hval').textContent = t('mh.hValue', { h: state.h, dk });
    hInput.setAttribute('aria-valuetext', t('mh.hValue', { h: state.h, dk }));
    const m = ready ? drawHeads($('hgrid'), snaps.get(state.h), 0) : null;
    if (!ready) $('hgrid').innerHTML = '';
    if (!ready && untrained) drawHeads($('ugrid'), untrained, 0);
    else $('ugrid').innerHTML = '';
    $('huntrained').hidden = ready || !untrained;
    $('huntrained').textContent = t('mh.untrained', { h: state.h });
    $('dk').textContent = ready ? t('mh.dk', { h: state.h, dk, d: D_MODEL, kind: t(`mh.kind.${state.kind}`) }) : '';
    el.ablationHeads = m ? { h: state.h, dk, H: m.H, T: m.T, S: m.S, name: m.name } : null;
    store.set({ h: state.h });
  }
  hInput.addEventListener('input', () => {
    state.h = HEADS[Number(hInput.value)];
    showAblationHeads();
  });

  // ---- the ablation: one chunk of CHUNK steps per run step, models trained one after another
  const perModel = Math.ceil(state.steps / CHUNK);
  const ablationConfig = (h) => ({
    model: { model: 'transformer', d_model: D_MODEL, heads: h, d_ff: 128, enc_layers: 1, dec_layers: 1, dropout: 0 },
    task: 'phrases',
    task_options: { n_min: 2, n_max: 6 },
    seed: 1,
    train: { batch: 32, schedule: 'constant', lr: 0.003 },
  });
  // the untrained model's maps under the h slider until the ablation has run
  let untrained = null,
    previewGen = 0;
  async function preview() {
    const gen = ++previewGen;
    const live = () => gen === previewGen && !current && !results.length && !run.running;
    const client = await ctx.worker();
    if (!live()) return;
    const s = await client.createSession(ablationConfig(state.h));
    try {
      const snap = await snapshot(s);
      if (!live()) return;
      untrained = snap;
      showAblationHeads();
    } finally {
      s.dispose().catch(() => {});
    }
  }
  let results = [],
    current = null;
  el.ablation = results;
  el.ablationPlan = { heads: [...HEADS], dModel: D_MODEL }; // what the section's caption must say
  // the ablation's caption, its figures from the plan the demo trains
  const ablationCaption = () => {
    el.querySelector('[name=ablation-caption]').textContent = t('mh.ablationCaption', {
      dModel: D_MODEL,
      heads: HEADS.join(', '),
      dks: HEADS.map((h) => D_MODEL / h).join(', '),
    });
  };
  ablationCaption();
  const showResults = () =>
    drawBars(
      el.querySelector('.bars-host'),
      results.map((r) => ({
        label: `h = ${r.h}`,
        value: r.loss,
        text: t('mh.result', { loss: r.loss.toFixed(3), acc: (100 * r.acc).toFixed(1) }),
      })),
      { max: Math.max(0.01, ...results.map((r) => r.loss)) }
    );
  // the lowest held-out loss as the bars show it (three decimals); the first of equals
  function revealBest() {
    const shown = results.map((r) => r.loss.toFixed(3));
    const best = shown.reduce((b, l, i) => (Number(l) < Number(shown[b]) ? i : b), 0);
    guess.reveal(String(results[best].h), () =>
      t('predict.mh.a', {
        steps: perModel * CHUNK,
        losses: results.map((r, i) => `h = ${r.h}: ${shown[i]}`).join(' · '),
      })
    );
  }
  let training = 0; // the head count in training (the status line names its loss)
  const run = createRun(el.querySelector('.run-host'), ctx, {
    total: perModel * HEADS.length,
    unit: CHUNK,
    names: () => [t('mh.lossOf', { h: HEADS[training] })],
    async work(step) {
      const k = Math.floor(step / perModel);
      training = k;
      const client = await ctx.worker();
      previewGen++;
      if (!current) current = await client.createSession(ablationConfig(HEADS[k]));
      const r = await current.train(CHUNK, { chunkMs: 40 });
      const loss = r.losses[r.losses.length - 1];
      if (step % perModel === perModel - 1) {
        const ev = await current.evaluate(200, 77);
        results.push({ h: HEADS[k], loss: ev.loss, acc: ev.sequenceAccuracy });
        snaps.set(HEADS[k], await snapshot(current));
        await current.dispose();
        current = null;
        showResults();
        showAblationHeads();
        if (results.length === HEADS.length) revealBest();
      }
      return { loss, losses: [loss] };
    },
    async reset() {
      if (current) {
        await current.dispose().catch(() => {});
        current = null;
      }
      results = [];
      el.ablation = results;
      showResults();
      snaps.clear();
      untrained = null;
      showAblationHeads();
      preview().catch(() => {});
    },
  });
  // another sublayer: its own heads, none muted
  $('kind').addEventListener('change', () => {
    state.kind = $('kind').value;
    state.mute = [];
    showHeads();
    showAblationHeads();
  });
  $('layer').addEventListener('change', () => {
    state.layer = Number($('layer').value);
    state.mute = [];
    showHeads();
  });
  if (shipped) {
    await loadHeads();
    showHeads();
  }
  showAblationHeads();
  guess.follow(el.querySelector('.run-host'));
  preview().catch(() => {});
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      ablationCaption();
      if (shipped) {
        showHeads();
        el.querySelector('.pretrained-host').innerHTML = pretrainedNote(shipped.meta);
      }
      run.render();
      if (results.length) showResults();
      showAblationHeads();
      guess.relabel();
    },
    unmount() {
      previewGen++;
      run.dispose();
      el.innerHTML = '';
    },
  };
}
