// Step-through of one attention computation with a trained model's own numbers: for one query
// token of one head, q (1×hs), the keys K (S×hs), the scores q·kⱼ, the scaled scores ÷√d_k, the
// softmax weights, the values V (S×hs) and the output Σⱼ wⱼvⱼ (1×hs), as small number tables.
// Prev/Next (or ←/→, Home/End inside the widget) walk the computation one key at a time and
// then the sum; the current row is highlighted and a live region reads each step.
// q, K and V are the engine's (inspect {parts: true}); the weights are the engine's map row, so
// the softmax column is exactly what the demo's bars and heatmap show. The scores and the sum
// are formed here from those numbers. The host element gets `step` ({q, K, V, scores, scaled,
// weights, out, hs, S, j}, j = S for the sum) and `attention(q, k, v, opts)`, the engine's own
// attention() for checking the numbers against it.
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';

// fixed decimals, without a minus sign on a value that rounds to zero
const fixed = (d) => (x) => {
  const s = x.toFixed(d);
  return /^-0\.0*$/.test(s) ? s.slice(1) : s;
};
const f2 = fixed(2),
  f3 = fixed(3);
// the output row: a key with a tiny weight adds a tiny w·v, which two decimals would show as all
// 0.00, so a non-zero value under 0.005 is written with two significant digits (3.1e-4)
const fOut = (x) => (x !== 0 && Math.abs(x) < 0.005 ? x.toExponential(1) : f2(x));

// The head's inputs for query i of example 0 from a map inspected with {parts: true}.
export function headParts(m, h, i) {
  if (!m?.q || !m.hs) return null;
  const { T, S, hs } = m;
  return {
    hs,
    S,
    q: m.q.slice((h * T + i) * hs, (h * T + i + 1) * hs),
    K: m.k.slice(h * S * hs, (h + 1) * S * hs),
    V: m.v.slice(h * S * hs, (h + 1) * S * hs),
    weights: m.weights.slice((h * T + i) * S, (h * T + i + 1) * S),
  };
}

export function stepThrough(host, { engine, onStep } = {}) {
  host.classList.add('stepthrough');
  host.innerHTML = `
    <p class="readout st-title"></p>
    <div class="st-mats"></div>
    <div class="controls st-buttons">
      <button type="button" class="st-prev"></button>
      <button type="button" class="st-next"></button>
      <output class="st-pos"></output>
    </div>
    <p class="readout st-live" aria-live="polite"></p>`;
  const prev = host.querySelector('.st-prev'),
    next = host.querySelector('.st-next');
  let cur = null,
    title = '',
    lastKey = null;
  host.attention = (q, k, v, opts) => engine.attention(q, k, v, opts);

  // parts: from headParts (null hides the widget); key names the computation shown, and the same
  // key again (a relabel) keeps the current step
  function set(parts, { labels = [], heading = '', key = null } = {}) {
    title = heading;
    const keep = key !== null && key === lastKey && cur ? cur.j : 0;
    lastKey = key;
    if (!parts) {
      cur = null;
      host.step = null;
      host.hidden = true;
      return;
    }
    host.hidden = false;
    const { q, K, V, hs, S, weights } = parts;
    const scores = Array.from({ length: S }, (_, j) => {
      let d = 0;
      for (let c = 0; c < hs; c++) d += q[c] * K[j * hs + c];
      return d;
    });
    const scaled = scores.map((s) => s / Math.sqrt(hs));
    const w = Array.from(weights);
    const out = Array.from({ length: hs }, (_, c) => w.reduce((a, wj, j) => a + wj * V[j * hs + c], 0));
    cur = {
      q: Array.from(q),
      K: Array.from(K),
      V: Array.from(V),
      scores,
      scaled,
      weights: w,
      out,
      hs,
      S,
      j: Math.min(keep, S),
      labels,
    };
    render();
  }

  const go = (j) => {
    if (!cur) return;
    const k = Math.max(0, Math.min(cur.S, j));
    if (k !== cur.j) {
      cur.j = k;
      render();
    }
  };
  prev.addEventListener('click', () => {
    if (cur) go(cur.j - 1);
  });
  next.addEventListener('click', () => {
    if (cur) go(cur.j + 1);
  });
  host.addEventListener('keydown', (e) => {
    if (!cur || e.target.closest('select, input')) return;
    const to = { ArrowLeft: cur.j - 1, ArrowRight: cur.j + 1, Home: 0, End: cur.S }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });

  // one small table: a header row of column numbers, then labelled rows of numbers
  function table(caption, rows, { cols, fmt = f2, curRow = -1, colHead = null } = {}) {
    const head = colHead ?? Array.from({ length: cols }, (_, c) => String(c + 1));
    return `<div class="st-scroll" role="region" tabindex="0" aria-label="${escapeHtml(caption)}"><table class="st-mat">
      <caption>${escapeHtml(caption)}</caption>
      <thead><tr><td></td>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>
      <tbody>${rows.map((r, k) => `<tr${k === curRow ? ' class="st-cur" aria-current="true"' : ''}><th scope="row">${escapeHtml(r.label)}</th>${r.values.map((x) => `<td>${fmt(x)}</td>`).join('')}</tr>`).join('')}</tbody>
    </table></div>`;
  }

  function render() {
    if (!cur) return;
    const { q, K, V, scores, scaled, weights, out, hs, S, j, labels } = cur;
    const row = (M, k) => M.slice(k * hs, (k + 1) * hs);
    const tok = (k) => `${k + 1} ${labels[k] ?? ''}`.trim();
    const sum = j >= S;
    // the output so far: Σ over the keys walked (all of them at the last step)
    const upto = sum ? S : j + 1;
    const partial = Array.from({ length: hs }, (_, c) => {
      let a = 0;
      for (let k = 0; k < upto; k++) a += weights[k] * V[k * hs + c];
      return a;
    });
    const wv = sum ? null : row(V, j).map((x) => weights[j] * x);
    host.querySelector('.st-title').textContent = title;
    host.querySelector('.st-mats').innerHTML = [
      table(t('st.q'), [{ label: 'q', values: q }], { cols: hs }),
      table(
        t('st.K'),
        Array.from({ length: S }, (_, k) => ({ label: tok(k), values: row(K, k) })),
        { cols: hs, curRow: sum ? -1 : j }
      ),
      table(
        t('st.scores', { hs }),
        Array.from({ length: S }, (_, k) => ({ label: tok(k), values: [scores[k], scaled[k], weights[k]] })),
        { fmt: f3, curRow: sum ? -1 : j, colHead: [t('st.col.score'), t('st.col.scaled', { hs }), t('st.col.weight')] }
      ),
      table(
        t('st.V'),
        Array.from({ length: S }, (_, k) => ({ label: tok(k), values: row(V, k) })),
        { cols: hs, curRow: sum ? -1 : j }
      ),
      table(
        t('st.out'),
        [
          ...(wv ? [{ label: t('st.wv', { j: j + 1 }), values: wv }] : []),
          { label: sum ? t('st.sum') : t('st.partial', { j: j + 1 }), values: sum ? out : partial },
        ],
        { cols: hs, curRow: 0, fmt: fOut }
      ),
    ].join('');
    prev.textContent = t('st.prev');
    next.textContent = t('st.next');
    prev.setAttribute('aria-disabled', String(j === 0));
    next.setAttribute('aria-disabled', String(sum));
    host.querySelector('.st-pos').textContent = sum ? t('st.posSum', { S }) : t('st.pos', { j: j + 1, S });
    host.querySelector('.st-live').textContent = sum
      ? t('st.liveSum', { S, out: out.slice(0, 4).map(f2).join(', ') })
      : t('st.liveKey', {
          j: j + 1,
          S,
          tok: labels[j] ?? '',
          score: f3(scores[j]),
          hs,
          scaled: f3(scaled[j]),
          w: f3(weights[j]),
        });
    host.step = { q, K, V, scores, scaled, weights, out, hs, S, j };
    onStep?.(host.step);
  }

  return {
    set,
    relabel: render,
    get step() {
      return host.step ?? null;
    },
  };
}
