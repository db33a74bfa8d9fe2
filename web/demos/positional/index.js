// `positional` section demo: the sine/cosine position table PE(pos, 2i) = sin(pos / 10000^(2i/C)),
// PE(pos, 2i+1) = cos(…) (Vaswani et al. 2017, §3.5), as the engine's own table: a heatmap of
// dimensions × positions with hover/keyboard readout and the waveform of one chosen dimension.
// State: positional.dim, positional.L, positional.C in the URL hash.
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import '../../viz/heatmap.js';

export async function mount(el, ctx) {
  const { engine, read, store } = ctx;
  if (typeof engine.positionalEncoding !== 'function') {
    el.innerHTML = '<p class="note" data-i18n="positional.missing"></p>';
    return {
      unmount() {
        el.innerHTML = '';
      },
    };
  }
  const state = { L: read.int('L', 100, 8, 200), C: read.int('C', 64, 8, 128), dim: read.int('dim', 6, 0, 127) };
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="positional.dim"></span> <input type="range" name="dim" min="0"></label>
      <output name="dimval"></output>
    </div>
    <al-heatmap data-i18n-aria="positional.heatmap"></al-heatmap>
    <div class="wave"></div>`;
  const heat = el.querySelector('al-heatmap');
  const dim = el.querySelector('[name=dim]');
  const chart = lineChart(el.querySelector('.wave'), {
    series: [{ label: 'PE' }],
    xLabel: t('positional.pos'),
    yLabel: 'PE',
    height: 160,
  });
  const pe = await engine.positionalEncoding(state.L, state.C); // [L, C]
  // heatmap rows = dimensions, columns = positions
  const tr = new Float32Array(state.L * state.C);
  for (let p = 0; p < state.L; p++) for (let c = 0; c < state.C; c++) tr[c * state.L + p] = pe[p * state.C + c];
  // cells of 3 px or more (5 px at desktop width): the map fits a phone with little shrinking
  heat.set(tr, state.C, state.L, {
    palette: 'diverging',
    minCell: 3,
    maxWidth: 560,
    // rows are dimensions 2i (sin) and 2i+1 (cos): a labelled row (every 8th, even) is dimension 2i
    rowLabels: Array.from({ length: state.C }, (_, c) => (c % 8 === 0 ? `2i=${c}` : '')),
    colLabels: Array.from({ length: state.L }, (_, p) => (p % 10 === 0 ? String(p) : '')),
  });
  heat.describe = (i, j) =>
    t('positional.cell', { pos: j, dim: i, i: Math.floor(i / 2), value: tr[i * state.L + j].toFixed(4) });
  el.pe = { L: state.L, C: state.C, values: pe };
  dim.max = state.C - 1;
  dim.value = Math.min(state.dim, state.C - 1);

  function wave() {
    const d = Number(dim.value);
    const xs = Array.from({ length: state.L }, (_, p) => p);
    chart.set(xs, [xs.map((p) => pe[p * state.C + d])]);
    el.querySelector('[name=dimval]').textContent = t('positional.dimval', {
      dim: d,
      i: Math.floor(d / 2),
      kind: d % 2 ? 'cos' : 'sin',
      period: (2 * Math.PI * 10000 ** ((d - (d % 2)) / state.C)).toFixed(1),
    });
    store.set({ dim: d });
  }
  dim.addEventListener('input', wave);
  heat.addEventListener('cell', (e) => {
    dim.value = e.detail.i;
    wave();
  });
  wave();
  return {
    relabel() {
      chart.relabel({ xLabel: t('positional.pos') });
      wave();
      heat.draw();
    },
    unmount() {
      chart.destroy();
      el.innerHTML = '';
    },
  };
}
