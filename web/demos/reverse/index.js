// §3 demo: Sutskever et al.'s reversal trick, live. Two attention-free encoder–decoders
// (RNNencdec: the decoder sees only the final encoder state) learn to output a sequence of
// symbols; one reads its input in the same order as the output (the `copy` task), the other
// reads it reversed (the `reverse` task: the output's first symbol is the last one read).
// The encoder reads one way only (encoder "gru"), as in the paper: a bidirectional one would
// also have read the first symbol last, and the two runs would look alike. Same sizes, data
// lengths, seed and steps; the two loss curves (mean loss per 25-step chunk) are the engine's.
// Sequences of 8 to 16 symbols, so that the first symbols sit far from the decoder when read in
// order; natively with these settings (3000 steps, seed 1) the reversed run ends with a lower
// held-out loss and about three times the exact-match accuracy (tests/cpp/test_rnn_train.cpp).
// State: reverse.steps. On the element: el.curves = [plain, reversed] ([{step, loss}]).
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { raceRun } from '../common/race.js';

const TASK_OPTIONS = { min_len: 8, max_len: 16, symbols: 10 };

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const steps = ctx.read.num('steps', 3000, 50, 20000);
  el.innerHTML = `<div class="run-host"></div><div class="chart-host"></div><p class="readout" name="summary" aria-live="polite"></p>`;
  const labels = () => [t('rev.plain'), t('rev.reversed')];
  const chart = lineChart(el.querySelector('.chart-host'), { series: labels().map((label) => ({ label })), xLabel: t('bahdanau.step'), yLabel: t('bahdanau.loss'), height: 220 });
  const model = { model: 'rnnencdec', emb: 16, hidden: 32, encoder: 'gru' };
  const train = { batch: 16, schedule: 'constant', lr: 0.01, clip: 1 };
  const run = raceRun(el.querySelector('.run-host'), ctx, {
    steps,
    configs: () => [{ model, task: 'copy', task_options: TASK_OPTIONS, seed: 1, train }, { model, task: 'reverse', task_options: TASK_OPTIONS, seed: 1, train }],
    onChunk(curves) {
      el.curves = curves;
      chart.set(curves[0].map((p) => p.step), curves.map((c) => c.map((p) => p.loss)));
    },
    async finish(sessions) {
      const ev = await Promise.all(sessions.map((s) => s.evaluate(200, 99)));
      el.evaluation = ev;
      el.querySelector('[name=summary]').textContent = t('rev.summary', {
        plain: ev[0].loss.toFixed(3), reversed: ev[1].loss.toFixed(3),
        plainAcc: (100 * ev[0].tokenAccuracy).toFixed(1), reversedAcc: (100 * ev[1].tokenAccuracy).toFixed(1),
        plainSeq: (100 * ev[0].sequenceAccuracy).toFixed(1), reversedSeq: (100 * ev[1].sequenceAccuracy).toFixed(1) });
    },
    onReset() { chart.set([], [[], []]); el.querySelector('[name=summary]').textContent = ''; },
  });
  return {
    start: run.start, pause: run.pause, reset: run.reset,
    relabel() { run.render(); chart.relabel({ series: labels(), xLabel: t('bahdanau.step'), yLabel: t('bahdanau.loss') }); if (run.curves[0].length) chart.set(run.curves[0].map((p) => p.step), run.curves.map((c) => c.map((p) => p.loss))); },
    unmount() { run.dispose(); chart.destroy(); el.innerHTML = ''; },
  };
}
