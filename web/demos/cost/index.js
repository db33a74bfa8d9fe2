// `results` section demo: the n² cost of self-attention, measured inside the engine. For n = 64 …
// n_max tokens (d_k = 64) the Worker's engine runs softmax(QKᵀ/√d_k)V on inputs that stay in the
// wasm heap, repeating the call until MIN_SECONDS have passed, and returns the time per call
// (engine.timeAttention), the fastest of three: no message round trip or copy is in the figure. The page plots it
// beside a least-squares fit c·n². One n per step, so the run can be paused and the page stays live.
// State: cost.max (n_max) in the URL hash. Measurements on the element: el.timings.
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { createRun } from '../common/run.js';
import { browserLocale } from '../../core/locale.js';

export const DK = 64;
export const MIN_SECONDS = 0.02;
const SIZES = [64, 128, 256, 384, 512, 768, 1024, 1536, 2048];

export const REPEATS = 3;

// The fastest of REPEATS timings: a busy machine only ever adds time, so the minimum is the
// figure least disturbed by it. Before the first size the engine runs once untimed, so that n =
// 64 is not measured in the browser's first, unoptimised compile of the wasm code.
async function timeOnce(engine, n, warm) {
  if (!warm) await engine.timeAttention({ T: 128, S: 128, Dk: DK, minSeconds: MIN_SECONDS });
  let best = Infinity;
  for (let r = 0; r < REPEATS; r++)
    best = Math.min(best, await engine.timeAttention({ T: n, S: n, Dk: DK, minSeconds: MIN_SECONDS }));
  return best;
}

export function mount(el, ctx) {
  const { engine, read, store } = ctx;
  let maxN = read.int('max', 1024, 128, 2048);
  el.innerHTML = `
    <div class="controls">
      <label><span data-i18n="cost.max"></span> <select name="max">${SIZES.slice(1)
        .map((n) => `<option>${n}</option>`)
        .join('')}</select></label>
    </div>
    <div class="run-host"></div>
    <div class="chart-host"></div>
    <p class="readout" name="summary" aria-live="polite"></p>`;
  const sel = el.querySelector('[name=max]');
  sel.value = String(maxN);
  const chart = lineChart(el.querySelector('.chart-host'), {
    series: [{ label: t('cost.measured'), points: true, dash: [] }, { label: t('cost.fit') }],
    xLabel: t('cost.n'),
    yLabel: t('cost.ms'),
    height: 220,
  });
  let timings = [];
  const sizes = () => SIZES.filter((n) => n <= maxN);

  function summary() {
    const out = el.querySelector('[name=summary]');
    if (timings.length < 2) {
      out.textContent = t('cost.hint', { dk: DK, minMs: MIN_SECONDS * 1000 });
      return;
    }
    const c = timings.reduce((s, p) => s + p.ms * p.n * p.n, 0) / timings.reduce((s, p) => s + p.n ** 4, 0);
    chart.set(
      timings.map((p) => p.n),
      [timings.map((p) => p.ms), timings.map((p) => c * p.n * p.n)]
    );
    const a = timings[0],
      b = timings[timings.length - 1];
    out.textContent = t('cost.summary', {
      n1: a.n,
      n2: b.n,
      ratio: (b.ms / a.ms).toFixed(1),
      sq: ((b.n / a.n) ** 2).toFixed(0),
      pairs: (b.n * b.n).toLocaleString(browserLocale()),
    });
  }

  const run = createRun(el.querySelector('.run-host'), ctx, {
    total: sizes().length,
    label: 'cost.step',
    async work(step) {
      const n = sizes()[step];
      const ms = await timeOnce(engine, n, step > 0);
      timings.push({ n, ms });
      el.timings = timings;
      chart.set(
        timings.map((p) => p.n),
        [timings.map((p) => p.ms), timings.map(() => null)]
      );
      summary();
      return { loss: null, done: step + 1 >= sizes().length };
    },
    reset() {
      timings = [];
      el.timings = timings;
      chart.set([], [[], []]);
      summary();
    },
  });
  sel.addEventListener('change', () => {
    maxN = Number(sel.value);
    store.set({ max: maxN });
    run.total = sizes().length;
    run.reset();
  });
  summary();
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      chart.relabel({ series: [t('cost.measured'), t('cost.fit')], xLabel: t('cost.n'), yLabel: t('cost.ms') });
      run.render();
      summary();
    },
    unmount() {
      run.dispose();
      chart.destroy();
      el.innerHTML = '';
    },
  };
}
