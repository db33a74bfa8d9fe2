// §1's trace: one token through the whole language model, with the engine's own numbers. The
// engine runs the model over <s> and the text (session.inspect with {trace: true}) and returns
// every activation of that forward pass at every position; the step-through follows the last
// position, the one whose logits give the next word: the token embedding and its position
// encoding, then per layer Q, K and V per head, the scores q·kⱼ/√d_k (the whole [t × t] matrix,
// the causal mask's −∞ in grey), the softmax weights, the heads' weighted sums of V, the output
// projection, the residual sums, the layer norms (where the model's norm_first puts them), the
// feed-forward network's two linear layers and activation, then the final norm, the logits and
// their softmax with the likeliest words, the argmax and the word drawn marked. Every tensor is
// drawn as a heat strip or matrix (blue negative, orange positive, scaled to its largest |value|)
// with its shape and its numbers (all of a short vector, the first of a long one). Previous and
// Next (or ←/→, Home/End inside the widget) walk the steps; a live region reads each one.
// The host gets `trace` for tests: {step, steps, layers, perLayer, fixed, id, layer, figures:
// [{label, shape, values}], tokens, position, logits (the traced row), top: [{id, token, p}],
// argmax, sampled}.
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';
import { diverging } from '../../viz/palette.js';
import { softmax, ranked } from './sample.js';

const TOP = 10; // words listed at the last step
const SHOW = 8; // numbers shown of a long vector
const SHORT = 16; // a vector this short shows all its numbers

// fixed two decimals, a tiny non-zero value with two significant digits, no "-0.00"
export function num(x) {
  if (x === -Infinity) return '−∞';
  if (x !== 0 && Math.abs(x) < 0.005) return x.toExponential(1);
  const s = x.toFixed(2);
  return /^-0\.00$/.test(s) ? '0.00' : s;
}
const shape = (r, c) => `[${r} × ${c}]`;

// The steps of a trace (one row of inspect(..., {trace: true}).traces) at its last position.
// A step: {id, layer (null outside the layers), figures: [{label, rows, cols, values (row-major
// rows × cols), masked (1 where the causal mask hides the cell: −∞ scores, their zero weights),
// focus (the traced position's row of a matrix)}]}.
export function traceSteps(trace) {
  const n = trace.tokens.length,
    p = n - 1;
  const byName = new Map(trace.tensors.map((x) => [x.name, x]));
  const H = trace.tensors.find((x) => x.name.endsWith('.self_attn.q'))?.dims[0] ?? 0;
  const lastRow = (x) => {
    const w = x.dims[x.dims.length - 1];
    return x.values.slice(p * w, (p + 1) * w);
  };
  const vec = (label, x) => ({ label, rows: 1, cols: x.dims[1], values: lastRow(x) });
  // head h's [n × d] block of an [H, n, d] tensor
  const block = (x, h) => {
    const [, r, c] = x.dims;
    return x.values.slice(h * r * c, (h + 1) * r * c);
  };
  const steps = [];
  const seen = new Set();
  for (const x of trace.tensors) {
    const m = /^(?:decoder|encoder)\.layers\.(\d+)\.(.+)$/.exec(x.name);
    const layer = m ? Number(m[1]) : null;
    const part = m ? m[2] : /^(?:decoder|encoder)\.norm$/.test(x.name) ? 'norm' : x.name;
    if (['input', 'self_attn.k', 'self_attn.v'].includes(part)) continue;
    const key = `${layer}.${part}`;
    seen.add(key);
    if (part === 'self_attn.q') {
      const prefix = x.name.slice(0, -'q'.length);
      const [K, V] = ['k', 'v'].map((s) => byName.get(prefix + s));
      const hs = x.dims[2];
      const figures = [];
      for (let h = 0; h < H; ++h) {
        figures.push({
          label: t('lm.trace.q', { h: h + 1 }),
          rows: 1,
          cols: hs,
          values: block(x, h).slice(p * hs, (p + 1) * hs),
          group: h,
        });
        figures.push({
          label: t('lm.trace.k', { h: h + 1 }),
          rows: n,
          cols: hs,
          values: block(K, h),
          focus: p,
          group: h,
        });
        figures.push({
          label: t('lm.trace.v', { h: h + 1 }),
          rows: n,
          cols: hs,
          values: block(V, h),
          focus: p,
          group: h,
        });
      }
      steps.push({ id: 'qkv', layer, figures, hs, H });
      continue;
    }
    if (part === 'self_attn.scores' || part === 'self_attn.weights') {
      const id = part.slice('self_attn.'.length);
      const scores = byName.get(x.name.replace(/weights$/, 'scores'));
      const figures = Array.from({ length: H }, (_, h) => {
        const masked = block(scores, h).map((v) => (v === -Infinity ? 1 : 0));
        return {
          label: t(`lm.trace.${id}`, { h: h + 1 }),
          rows: n,
          cols: n,
          values: block(x, h),
          focus: p,
          masked: masked.some((v) => v) ? masked : null,
        };
      });
      steps.push({ id, layer, figures });
      continue;
    }
    // pre-LN: norm1 comes before the attention, norm2 before the feed-forward network
    const id =
      (part === 'norm1' && !seen.has(`${layer}.self_attn.q`)) || (part === 'norm2' && !seen.has(`${layer}.linear1`))
        ? `${part}.pre`
        : part.replace('self_attn.', '');
    steps.push({ id, layer, figures: [vec(t(`lm.trace.t.${id}`), x)] });
  }
  steps.push({ id: 'softmax', layer: null, figures: [] });
  return steps;
}

// Draws values (rows × cols) on a canvas, one pixel per cell (CSS scales it up, unsmoothed):
// the diverging scale over ±max|value|, −∞ in grey.
function paint(canvas, { rows, cols, values, masked }) {
  canvas.width = cols;
  canvas.height = rows;
  const g = canvas.getContext('2d');
  if (!g) return;
  let max = 0;
  values.forEach((v, i) => {
    if (!masked?.[i]) max = Math.max(max, Math.abs(v));
  });
  const img = g.createImageData(cols, rows);
  for (let i = 0; i < rows * cols; ++i) {
    const v = values[i];
    const c = masked?.[i]
      ? [150, 150, 150]
      : diverging(max ? v / max : 0)
          .match(/\d+/g)
          .map(Number);
    img.data.set([c[0], c[1], c[2], 255], i * 4);
  }
  g.putImageData(img, 0, 0);
}

// inspect(ids): the engine's inspection of <s> + ids with {trace: true}; act: the model's
// activation function's name (its config's "activation")
export function mountTrace(host, { vocab, subword, act = 'relu', inspect }) {
  host.classList.add('lm-trace');
  host.innerHTML = `
    <p class="readout tr-title"></p>
    <p class="note tr-what"></p>
    <div class="tr-figs"></div>
    <div class="controls tr-buttons">
      <button type="button" class="tr-prev"></button>
      <button type="button" class="tr-next"></button>
      <output class="tr-pos"></output>
    </div>
    <p class="readout tr-live" aria-live="polite"></p>`;
  host.hidden = true;
  const prev = host.querySelector('.tr-prev'),
    next = host.querySelector('.tr-next');
  const word = (id) => (subword ? vocab[id].replaceAll('\u2581', ' ').trim() || vocab[id] : vocab[id]);
  let cur = null,
    seq = 0,
    step = 0;

  // ids: the text's token ids (without <s>); sampled: the word drawn after them, or null;
  // restart: from the first step (else the step shown stays)
  async function follow(ids, sampled, { restart = false } = {}) {
    const mine = ++seq;
    const r = await inspect(ids);
    if (mine !== seq) return;
    const tr = r.traces[0];
    const steps = traceSteps(tr);
    if (restart) step = 0;
    const logits = tr.tensors.find((x) => x.name === 'logits');
    const V = logits.dims[1];
    const row = logits.values.slice((tr.tokens.length - 1) * V, tr.tokens.length * V);
    const probs = softmax(row);
    const top = ranked(row)
      .slice(0, TOP)
      .map((id) => ({ id, token: vocab[id], p: probs[id], z: row[id] }));
    if (sampled !== null && !top.some((x) => x.id === sampled))
      top.push({ id: sampled, token: vocab[sampled], p: probs[sampled], z: row[sampled] });
    const layers = new Set(steps.filter((s) => s.layer !== null).map((s) => s.layer)).size;
    cur = { tr, steps, row, probs, top, sampled, layers, V };
    step = Math.min(step, steps.length - 1);
    host.hidden = false;
    render();
  }

  const go = (k) => {
    if (!cur) return;
    const to = Math.max(0, Math.min(cur.steps.length - 1, k));
    if (to !== step) {
      step = to;
      render();
    }
  };
  prev.addEventListener('click', () => go(step - 1));
  next.addEventListener('click', () => go(step + 1));
  host.addEventListener('keydown', (e) => {
    if (!cur) return;
    const to = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: cur.steps.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });

  // one tensor: its label and shape, the heat strip or matrix, its numbers
  function figure(f, i) {
    const focusRow = f.focus ?? 0;
    const shown = f.rows === 1 ? f.values : f.values.slice(focusRow * f.cols, (focusRow + 1) * f.cols);
    const finite = Array.from(f.values).filter(Number.isFinite);
    const lo = Math.min(...finite),
      hi = Math.max(...finite);
    const numbers = shown.length <= SHORT ? Array.from(shown) : Array.from(shown.slice(0, SHOW));
    const more = shown.length > numbers.length ? ` … (${t('lm.trace.of', { n: shown.length })})` : '';
    const rowNote =
      f.rows > 1 ? `${t('lm.trace.row', { pos: focusRow + 1, tok: word(cur.tr.tokens[focusRow]) })}: ` : '';
    // a matrix: 10 px a cell up to the column's width (at least 80 px wide)
    const box = f.rows === 1 ? '' : ` style="--tr-w: ${Math.max(80, f.cols * 10)}px; --tr-ar: ${f.cols} / ${f.rows}"`;
    const kind = f.rows > 1 ? 'tr-mat' : f.cols > SHORT ? 'tr-vec tr-wide' : 'tr-vec';
    return `<figure class="tr-fig ${kind}">
      <figcaption><span class="tr-label">${escapeHtml(f.label)}</span>: <span class="tr-shape">${shape(f.rows, f.cols)}</span></figcaption>
      <div class="tr-canvas-box"${box}>
        <canvas data-fig="${i}" role="img" aria-label="${escapeHtml(
          t('lm.trace.aria', { label: f.label, shape: shape(f.rows, f.cols), lo: num(lo), hi: num(hi) })
        )}"></canvas>
        ${f.rows > 1 ? `<span class="tr-focus" style="top: ${(100 * focusRow) / f.rows}%; height: ${100 / f.rows}%"></span>` : ''}
      </div>
      <p class="tr-values">${escapeHtml(rowNote)}<span class="tr-nums">${numbers.map(num).join(' ')}</span>${escapeHtml(more)}</p>
    </figure>`;
  }

  function lastStep() {
    const { top, sampled } = cur;
    const max = top[0].p;
    return `<ol class="tr-top">${top
      .map(
        (x, k) => `<li data-id="${x.id}"${k === 0 ? ' class="tr-argmax"' : ''}>
        <span class="tr-word" lang="en">${escapeHtml(x.token)}</span>
        <span class="bar-track"><span class="bar-fill c0" style="width:${(100 * x.p) / max}%"></span></span>
        <span class="tr-p">${(100 * x.p).toFixed(1)}% <small>(z = ${num(x.z)})</small></span>
        <span class="tr-marks">${k === 0 ? `<strong>${escapeHtml(t('lm.trace.argmax'))}</strong>` : ''}${
          x.id === sampled ? ` <strong>◀ ${escapeHtml(t('lm.sample.drawn'))}</strong>` : ''
        }</span>
      </li>`
      )
      .join('')}</ol>`;
  }

  // the figures, those of one head (Q, K, V) on a line of their own
  function grouped(figs) {
    let html = '',
      open = null;
    figs.forEach((f, i) => {
      if ((f.group ?? null) !== open) {
        if (open !== null) html += '</div>';
        open = f.group ?? null;
        if (open !== null) html += '<div class="tr-group">';
      }
      html += figure(f, i);
    });
    return html + (open !== null ? '</div>' : '');
  }

  // the largest logits, by word
  function topLogits() {
    const items = cur.top
      .slice(0, 5)
      .map((x) => `<span lang="en">${escapeHtml(x.token)}</span> ${num(x.z)}`)
      .join(', ');
    return `<p class="tr-values tr-toplogits">${escapeHtml(t('lm.trace.topLogits'))}: ${items}</p>`;
  }

  function render() {
    if (!cur) return;
    const { tr, steps, layers, V, top, sampled } = cur;
    const s = steps[step];
    const n = tr.tokens.length;
    const qkv = steps.find((x) => x.id === 'qkv');
    const args = {
      layer: (s.layer ?? 0) + 1,
      layers,
      tok: word(tr.tokens[n - 1]),
      pos: n,
      H: qkv?.H ?? '',
      hs: qkv?.hs ?? '',
      V,
      C: tr.tensors[0].dims[1],
      F: steps.find((x) => x.id === 'linear1')?.figures[0].cols ?? '',
      act,
    };
    const title = (s.layer === null ? '' : `${t('lm.trace.layer', args)} · `) + t(`lm.trace.s.${s.id}`, args);
    host.querySelector('.tr-title').textContent = t('lm.trace.title', {
      tok: args.tok,
      text: Array.from(tr.tokens, word).join(subword ? '' : ' '),
    });
    host.querySelector('.tr-what').textContent = title;
    const figs = s.id === 'softmax' ? [] : s.figures;
    host.querySelector('.tr-figs').innerHTML =
      s.id === 'softmax'
        ? `<figure class="tr-fig"><figcaption><span class="tr-label">${escapeHtml(t('lm.trace.probs'))}</span>: <span class="tr-shape">${shape(1, V)}</span></figcaption>${lastStep()}<p class="tr-values"><span class="tr-nums">${top.map((x) => num(x.p)).join(' ')}</span></p></figure>`
        : grouped(figs) +
          (s.id === 'logits' ? topLogits() : '') +
          (figs.some((f) => f.masked) ? `<p class="note">${escapeHtml(t('lm.trace.maskNote'))}</p>` : '');
    host.querySelectorAll('canvas[data-fig]').forEach((c) => paint(c, figs[Number(c.dataset.fig)]));
    prev.textContent = t('st.prev');
    next.textContent = t('st.next');
    prev.setAttribute('aria-disabled', String(step === 0));
    next.setAttribute('aria-disabled', String(step === steps.length - 1));
    const pos = t('lm.trace.pos', { k: step + 1, n: steps.length });
    host.querySelector('.tr-pos').textContent = pos;
    const figNote = figs.length ? ` ${figs[0].label}: ${shape(figs[0].rows, figs[0].cols)}.` : '';
    const end =
      s.id === 'softmax'
        ? ` ${t('lm.trace.liveTop', { tok: top[0].token, p: (100 * top[0].p).toFixed(1) })}` +
          (sampled !== null ? ` ${t('lm.trace.liveDrawn', { tok: vocab[sampled] })}` : '')
        : '';
    host.querySelector('.tr-live').textContent = `${pos}: ${title.replace(/\.?$/, '.')}${figNote}${end}`;
    host.trace = {
      step,
      steps: steps.length,
      layers,
      perLayer: steps.filter((x) => x.layer === 0).length,
      fixed: steps.filter((x) => x.layer === null).length,
      id: s.id,
      layer: s.layer,
      figures: figs.map((f) => ({ label: f.label, shape: shape(f.rows, f.cols), values: Array.from(f.values) })),
      tokens: Array.from(tr.tokens),
      position: n - 1,
      logits: Array.from(cur.row),
      top: top.map(({ id, token, p }) => ({ id, token, p })),
      argmax: top[0].id,
      sampled,
    };
    host.dispatchEvent(new CustomEvent('traced'));
  }

  return {
    follow,
    relabel() {
      if (!cur) return;
      cur.steps = traceSteps(cur.tr);
      render();
    },
    get open() {
      return cur !== null;
    },
    unmount() {
      ++seq;
      host.innerHTML = '';
    },
  };
}
