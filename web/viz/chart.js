// Line charts on uPlot: `lineChart(el, {series, xLabel, yLabel, logX})` (a series: {label,
// color?, dash?, points?, spanGaps?}; null values are gaps, joined over with spanGaps) returns
// {set(x, ys), relabel({series, xLabel, yLabel}), destroy()}. Colours are the Okabe–Ito set
// (colour-blind safe) with dashes as a second cue; the chart follows its container's width.
// Axes and their labels take the text colour when drawn and are redrawn after a light/dark switch.
// PNG / CSV download buttons sit under it; `el.chartData` is what the CSV saves ({xLabel, labels,
// data}), and the PNG is the plot with its legend drawn under it.
// Its text alternative is a visually hidden summary kept current (`.chart-summary`: per series,
// how many points and the first, last, smallest and largest value), in the page's language.
import '../core/locale.js'; // first: uPlot reads navigator.language as it loads
import uPlot from 'uplot';
import { OKABE_ITO, watchScheme } from './palette.js';
import { exportBar, chartTable } from './export.js';

const DASH = [[], [6, 4], [2, 3], [10, 3, 2, 3]];

// A series' colour and dash, as the plot draws it and the PNG's legend repeats it.
const look = (s, i) => ({ color: s.color ?? OKABE_ITO[i % OKABE_ITO.length], dash: s.dash ?? DASH[i % DASH.length] });

const num = (v) => (Math.abs(v) >= 1000 || Number.isInteger(v) ? String(Math.round(v)) : v.toPrecision(3));
const WORDS = {
  en: {
    chart: (y, x) => `Chart of ${y || 'values'} against ${x || 'x'}.`,
    empty: 'no data yet',
    series: (l, n, a, b, lo, hi) => `${l}: ${n} points, from ${a} to ${b} (smallest ${lo}, largest ${hi}).`,
  },
  ko: {
    chart: (y, x) => `${x || 'x'}에 따른 ${y || '값'} 그래프.`,
    empty: '아직 데이터 없음',
    series: (l, n, a, b, lo, hi) => `${l}: 점 ${n}개, ${a}에서 ${b}까지 (가장 작은 값 ${lo}, 가장 큰 값 ${hi}).`,
  },
};

export function lineChart(el, opts0) {
  let opts = { xLabel: '', yLabel: '', logX: false, logY: false, height: 220, points: false, ...opts0 };
  el.classList.add('chart');
  const summary = document.createElement('p');
  summary.className = 'chart-summary sr-only';
  function describe() {
    const w = WORDS[el.closest('[lang]')?.lang === 'ko' ? 'ko' : 'en'];
    const parts = opts.series.map((sr, i) => {
      const ys = (data[i + 1] ?? []).filter((v) => v !== null && Number.isFinite(v));
      if (!ys.length) return `${sr.label}: ${w.empty}.`;
      return w.series(sr.label, ys.length, num(ys[0]), num(ys.at(-1)), num(Math.min(...ys)), num(Math.max(...ys)));
    });
    summary.textContent = [w.chart(opts.yLabel, opts.xLabel), ...parts].join(' ');
  }
  let data = [[], ...opts.series.map(() => [])];
  let plot = null;
  const width = () => Math.max(240, Math.min(el.clientWidth || 320, 640));
  Object.defineProperty(el, 'chartData', {
    configurable: true,
    get: () => ({ xLabel: opts.xLabel, labels: opts.series.map((s) => s.label), data }),
  });
  const bar = exportBar(el, { kind: 'chart', picture, table: () => chartTable(el.chartData) });

  // The picture a PNG saves: the plot and, under it, its legend (each series' colour, dash and
  // label), which uPlot draws in HTML, so the canvas alone would lose it.
  function picture() {
    if (!plot) return null;
    const src = plot.ctx.canvas;
    const r = src.width / (plot.width || src.width); // device pixels per CSS pixel
    const style = getComputedStyle(el);
    const font = `${Math.round(12 * r)}px ${style.fontFamily || 'sans-serif'}`;
    const pad = 8 * r,
      swatch = 24 * r,
      gap = 6 * r,
      sep = 16 * r,
      lineH = 18 * r;
    const g0 = document.createElement('canvas').getContext('2d');
    g0.font = font;
    // lay the entries out in rows across the plot's width
    const rows = [[]];
    let x = pad;
    const items = opts.series
      .map((s, i) => ({ label: s.label ?? '', ...look(s, i) }))
      .map((it) => ({ ...it, w: swatch + gap + g0.measureText(it.label).width }));
    for (const it of items) {
      if (x + it.w > src.width - pad && rows.at(-1).length) {
        rows.push([]);
        x = pad;
      }
      rows.at(-1).push({ ...it, x });
      x += it.w + sep;
    }
    const out = document.createElement('canvas');
    out.width = src.width;
    out.height = Math.round(src.height + 2 * pad + rows.length * lineH);
    const g = out.getContext('2d');
    g.drawImage(src, 0, 0);
    g.font = font;
    g.textBaseline = 'middle';
    rows.forEach((row, k) => {
      const y = Math.round(src.height + pad + (k + 0.5) * lineH);
      for (const { label, color, dash, x: x0 } of row) {
        g.strokeStyle = color;
        g.lineWidth = 2 * r;
        g.setLineDash(dash.map((d) => d * r));
        g.beginPath();
        g.moveTo(x0, y);
        g.lineTo(x0 + swatch, y);
        g.stroke();
        g.fillStyle = style.color;
        g.fillText(label, x0 + swatch + gap, y);
      }
    });
    return out;
  }

  // The y axis title is drawn along the plot's height, centred: a chart too short for its title
  // (§2's "exact-match accuracy" at 200 px) grows until the title fits on the canvas.
  let height = opts.height;
  function fitTitle() {
    const a = plot.axes[1];
    if (!a?.label) return;
    const g = plot.ctx;
    g.save();
    g.font = a.labelFont[0];
    const w = g.measureText(a.label).width;
    g.restore();
    const mid = plot.bbox.top + plot.bbox.height / 2,
      room = 2 * Math.min(mid, g.canvas.height - mid);
    if (w <= room) return;
    height += Math.ceil((w - room) / (window.devicePixelRatio || 1)) + 6;
    plot.setSize({ width: width(), height });
  }

  function build() {
    plot?.destroy();
    height = opts.height;
    const axis = (label) => ({
      label,
      stroke: () => getComputedStyle(el).color,
      grid: { stroke: 'rgba(128,128,128,.2)' },
      ticks: { stroke: 'rgba(128,128,128,.3)' },
    });
    plot = new uPlot(
      {
        width: width(),
        height,
        scales: { x: { time: false, distr: opts.logX ? 3 : 1 }, y: { distr: opts.logY ? 3 : 1 } },
        axes: [axis(opts.xLabel), axis(opts.yLabel)],
        legend: { live: false },
        series: [
          { label: opts.xLabel },
          ...opts.series.map((s, i) => ({
            label: s.label,
            stroke: look(s, i).color,
            width: 2,
            dash: look(s, i).dash,
            spanGaps: Boolean(s.spanGaps), // a sparse series (a measure every few steps) drawn joined
            // a lone point (a curve's step 0 before training) is drawn as a dot
            points: { show: opts.points || s.points ? true : (u) => u.data[0].length === 1 },
          })),
        ],
      },
      data,
      el
    );
    el.append(summary, bar);
    fitTitle();
    describe();
  }
  build();
  const ro = new ResizeObserver(() => {
    if (plot.width !== width()) plot.setSize({ width: width(), height });
  });
  ro.observe(el);
  const langs = new MutationObserver(describe); // a language switch without a relabel
  langs.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  const unwatch = watchScheme(() => plot.redraw(false)); // axes in the new text colour
  const api = {
    get plot() {
      return plot;
    },
    get data() {
      return data;
    },
    set(x, ys) {
      data = [Array.from(x), ...ys.map((y) => Array.from(y))];
      plot.setData(data);
      describe();
    },
    relabel({ series, xLabel, yLabel } = {}) {
      if (series) opts.series = opts.series.map((s, i) => ({ ...s, label: series[i] ?? s.label }));
      opts = { ...opts, xLabel: xLabel ?? opts.xLabel, yLabel: yLabel ?? opts.yLabel };
      build();
    },
    destroy() {
      ro.disconnect();
      langs.disconnect();
      unwatch();
      plot.destroy();
      bar.remove();
    },
  };
  el.lineChart = api; // tests read the plot (axis titles and their room) from the element
  return api;
}
