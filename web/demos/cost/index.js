// `results` section demo: the n² cost of self-attention, measured inside the engine. For n = 64 …
// n_max tokens (d_k = 64) the Worker's engine runs softmax(QKᵀ/√d_k)V on inputs that stay in the
// wasm heap, repeating the call until MIN_SECONDS have passed, and returns the time per call
// (engine.timeAttention), the fastest of three: no message round trip or copy is in the figure. The page plots it
// beside a least-squares fit c·n². One n per step, so the run can be paused and the page stays live.
// Before the run the reader may predict how the time grows (common/predict.js); at the end the
// answer is the power of n nearest to the growth the run measured.
// State: cost.max (n_max), cost.guess in the URL hash. Measurements on the element: el.timings.
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { createRun } from '../common/run.js';
import { predict } from '../common/predict.js';
import { browserLocale } from '../../core/locale.js';

export const DK = 64;
export const MIN_SECONDS = 0.02;
const SIZES = [64, 128, 256, 384, 512, 768, 1024, 1536, 2048];

export const REPEATS = 3;

// The growth from the first to the last timing as a power of n: ratio = (n2/n1)^p. The ratio is
// the one the summary line shows (one decimal), so the answer follows the figures on screen;
// the answer is the power (1, 2 or 3) nearest to p.
const POWERS = ['linear', 'quadratic', 'cubic'];
export function growth(a, b) {
  const ratio = Number((b.ms / a.ms).toFixed(1));
  const p = Math.log(ratio) / Math.log(b.n / a.n);
  const k = Math.min(3, Math.max(1, Math.round(p)));
  return { ratio, p, k, answer: POWERS[k - 1] };
}

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
    <div class="predict-host"></div>
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
  const guess = predict(ctx, {
    question: 'predict.cost.q',
    choices: POWERS.map((v) => ({ value: v, label: `predict.cost.${v}` })),
  });
  el.querySelector('.predict-host').replaceWith(guess.el);
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
      const done = step + 1 >= sizes().length;
      if (done) {
        const a = timings[0],
          b = timings.at(-1),
          g = growth(a, b);
        guess.reveal(g.answer, () =>
          t('predict.cost.a', {
            n1: a.n,
            n2: b.n,
            nx: b.n / a.n,
            ratio: g.ratio.toFixed(1),
            p: g.p.toFixed(2),
            nearest: ['n', 'n²', 'n³'][g.k - 1],
          })
        );
      }
      return { loss: null, done };
    },
    reset() {
      timings = [];
      el.timings = timings;
      chart.set([], [[], []]);
      summary();
    },
  });
  guess.follow(el.querySelector('.run-host'));
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
      guess.relabel();
    },
    unmount() {
      run.dispose();
      chart.destroy();
      el.innerHTML = '';
    },
  };
}
