// Line charts on uPlot: `lineChart(el, {series, xLabel, yLabel, logX})` returns
// {set(x, ys), relabel({series, xLabel, yLabel}), destroy()}. Colours are the Okabe–Ito set
// (colour-blind safe) with dashes as a second cue; the chart follows its container's width.
import uPlot from 'uplot';
import { OKABE_ITO } from './palette.js';

const DASH = [[], [6, 4], [2, 3], [10, 3, 2, 3]];

export function lineChart(el, opts0) {
  let opts = { xLabel: '', yLabel: '', logX: false, logY: false, height: 220, points: false, ...opts0 };
  el.classList.add('chart');
  let data = [[], ...opts.series.map(() => [])];
  let plot = null;
  const width = () => Math.max(240, Math.min(el.clientWidth || 320, 640));

  function build() {
    plot?.destroy();
    const axis = (label) => ({ label, stroke: () => getComputedStyle(el).color, grid: { stroke: 'rgba(128,128,128,.2)' }, ticks: { stroke: 'rgba(128,128,128,.3)' } });
    plot = new uPlot({
      width: width(), height: opts.height,
      scales: { x: { time: false, distr: opts.logX ? 3 : 1 }, y: { distr: opts.logY ? 3 : 1 } },
      axes: [axis(opts.xLabel), axis(opts.yLabel)],
      legend: { live: false },
      series: [{ label: opts.xLabel }, ...opts.series.map((s, i) => ({
        label: s.label, stroke: s.color ?? OKABE_ITO[i % OKABE_ITO.length], width: 2,
        dash: s.dash ?? DASH[i % DASH.length], points: { show: opts.points || Boolean(s.points) },
      }))],
    }, data, el);
  }
  build();
  const ro = new ResizeObserver(() => { if (plot.width !== width()) plot.setSize({ width: width(), height: opts.height }); });
  ro.observe(el);
  return {
    get plot() { return plot; },
    get data() { return data; },
    set(x, ys) { data = [Array.from(x), ...ys.map((y) => Array.from(y))]; plot.setData(data); },
    relabel({ series, xLabel, yLabel } = {}) {
      if (series) opts.series = opts.series.map((s, i) => ({ ...s, label: series[i] ?? s.label }));
      opts = { ...opts, xLabel: xLabel ?? opts.xLabel, yLabel: yLabel ?? opts.yLabel };
      build();
    },
    destroy() { ro.disconnect(); plot.destroy(); },
  };
}
