// `relatives` section demo: order matters (Vinyals, Bengio & Kudlur 2016), for the order of the output.
// Three identical RNNsearch models read the same sets of symbols (the engine's sort task, input
// in the order drawn) and learn to write the same set back; only the order they must write it in
// differs: as drawn, reversed, or ascending. No input gives its answer away: every model sees the
// set as drawn. Each run step trains every model on the same batch (trainBatch with that model's
// target order); at the end the engine decodes held-out sets and the page reports exact-match
// accuracy against each model's order. Before the run the reader may predict which order ends
// with the lowest training loss (common/predict.js); the last chunk's losses, as the status line
// shows them, answer. State: order.steps, order.guess. On the element: el.result.
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { drawBars } from '../../viz/bars.js';
import { createRun } from '../common/run.js';
import { predict } from '../common/predict.js';

const ORDERS = ['drawn', 'reversed', 'ascending'];
const CHUNK = 10;
// the set `row` (ids, as drawn) written in `order`
export const reorder = (row, order) =>
  order === 'drawn' ? [...row] : order === 'reversed' ? [...row].reverse() : [...row].sort((a, b) => a - b);

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const steps = ctx.read.int('steps', 300, CHUNK, 20000);
  el.innerHTML = `<div class="predict-host"></div><div class="run-host"></div><div class="demo-row"><div class="chart-host"></div><div class="bars-host"></div></div>`;
  const labels = () => ORDERS.map((o) => t(`order.${o}`));
  const guess = predict(ctx, {
    question: 'predict.order.q',
    choices: ORDERS.map((o) => ({ value: o, label: `order.${o}` })),
  });
  el.querySelector('.predict-host').replaceWith(guess.el);
  const chart = lineChart(el.querySelector('.chart-host'), {
    series: labels().map((label) => ({ label })),
    xLabel: t('bahdanau.step'),
    yLabel: t('bahdanau.loss'),
    height: 200,
  });
  let sessions = null,
    curves = ORDERS.map(() => []),
    result = null;
  const draw = () =>
    chart.set(
      curves[0].map((p) => p.step),
      curves.map((c) => c.map((p) => p.loss))
    );
  const showResult = () =>
    drawBars(
      el.querySelector('.bars-host'),
      result.map((r, i) => ({ label: labels()[i], value: r, text: `${(100 * r).toFixed(1)}%`, color: i }))
    );
  const config = {
    model: { model: 'rnnsearch', emb: 16, hidden: 32, attn: 32 },
    task: 'sort',
    task_options: { min_len: 3, max_len: 8, symbols: 10 },
    seed: 1,
    train: { batch: 16, schedule: 'constant', lr: 0.01, clip: 1 },
  };
  // Before training (and after Reset): the curves' step-0 points, the loss of the untrained
  // models on the first batch in each order, from throwaway sessions (nothing is trained).
  let previewGen = 0;
  const note = () => el.querySelector('.run-host .run-untrained');
  async function preview() {
    const gen = ++previewGen;
    const live = () => gen === previewGen && !sessions && run.step === 0 && !run.running;
    const client = await ctx.worker();
    if (!live()) return;
    const ss = await Promise.all(ORDERS.map(() => client.createSession(config)));
    try {
      const batch = await ss[0].examples(16, { split: 'train', seed: 1 });
      const first = [];
      for (let m = 0; m < ORDERS.length; m++)
        first.push(
          (
            await ss[m].trainBatch(
              batch.src,
              batch.src.map((row) => reorder(row, ORDERS[m]))
            )
          ).losses[0]
        );
      if (!live()) return;
      curves = ORDERS.map((_, m) => [{ step: 0, loss: first[m] }]);
      draw();
      note().hidden = false;
    } finally {
      ss.forEach((x) => x.dispose().catch(() => {}));
    }
  }
  const run = createRun(el.querySelector('.run-host'), ctx, {
    total: Math.ceil(steps / CHUNK),
    unit: CHUNK,
    names: labels, // the status line names each order's loss
    async work(k) {
      previewGen++;
      note().hidden = true;
      const client = await ctx.worker();
      sessions ??= await Promise.all(ORDERS.map(() => client.createSession(config)));
      const losses = ORDERS.map(() => 0);
      for (let c = 0; c < CHUNK; c++) {
        const batch = await sessions[0].examples(16, { split: 'train', seed: 1 + k * CHUNK + c });
        for (let m = 0; m < ORDERS.length; m++) {
          const r = await sessions[m].trainBatch(
            batch.src,
            batch.src.map((row) => reorder(row, ORDERS[m]))
          );
          losses[m] += r.losses[0] / CHUNK;
        }
      }
      losses.forEach((l, m) => curves[m].push({ step: (k + 1) * CHUNK, loss: l }));
      draw();
      if (k === Math.ceil(steps / CHUNK) - 1) {
        const test = await sessions[0].examples(100, { split: 'test', seed: 42 });
        result = [];
        for (let m = 0; m < ORDERS.length; m++) {
          const out = await sessions[m].decode(test.src);
          const want = test.src.map((row) => reorder(row, ORDERS[m]));
          result.push(
            want.filter((tg, i) => tg.length === out[i].length && tg.every((x, j) => x === out[i][j])).length /
              want.length
          );
        }
        el.result = result;
        showResult();
        // the losses as the status line shows them (four significant digits) decide
        const shown = losses.map((l) => l.toPrecision(4));
        const best = shown.reduce((b, l, m) => (Number(l) < Number(shown[b]) ? m : b), 0);
        guess.reveal(ORDERS[best], () =>
          t('predict.order.a', {
            chunk: CHUNK,
            losses: shown.map((l, m) => t('run.lossOf', { name: labels()[m], loss: l })).join(' · '),
          })
        );
      }
      return { loss: losses[0], losses };
    },
    async reset() {
      const s = sessions;
      sessions = null;
      result = null;
      curves = ORDERS.map(() => []);
      chart.set(
        [],
        ORDERS.map(() => [])
      );
      el.querySelector('.bars-host').innerHTML = '';
      note().hidden = true;
      if (s) await Promise.all(s.map((x) => x.dispose().catch(() => {})));
      preview().catch(() => {});
    },
  });
  el.querySelector('.run-host').insertAdjacentHTML(
    'beforeend',
    `<span class="run-untrained note" data-i18n="run.untrainedLoss" hidden>${t('run.untrainedLoss')}</span>`
  );
  guess.follow(el.querySelector('.run-host'));
  preview().catch(() => {});
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      run.render();
      chart.relabel({ series: labels(), xLabel: t('bahdanau.step'), yLabel: t('bahdanau.loss') });
      draw();
      if (result) showResult();
      guess.relabel();
    },
    unmount() {
      previewGen++;
      run.dispose();
      chart.destroy();
      el.innerHTML = '';
    },
  };
}
