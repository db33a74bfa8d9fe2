// `reversal` section demo: Sutskever et al.'s reversal trick, live. Two attention-free encoder–decoders
// (RNNencdec: the decoder sees only the final encoder state) learn to output a sequence of
// symbols; one reads its input in the same order as the output (the `copy` task), the other
// reads it reversed (the `reverse` task: the output's first symbol is the last one read).
// The encoder reads one way only (encoder "gru"), as in the paper: a bidirectional one would
// also have read the first symbol last, and the two runs would look alike. Same sizes, data
// lengths, seed and steps; the two loss curves (mean loss per 25-step chunk) are the engine's.
// Sequences of 8 to 16 symbols, so that the first symbols sit far from the decoder when read in
// order; natively with these settings (3000 steps, seed 1) the reversed run ends with a lower
// held-out loss and about three times the exact-match accuracy (tests/cpp/test_rnn_train.cpp).
// Above the race, a path-length counter: for a one-way encoder–decoder reading S words, the
// recurrent steps from source word j to the prediction of output j are S in order and 2j - 1
// reversed (the first word gets close, the last one far; the mean stays S).
// Before the race the reader may predict which model ends with the lower held-out loss
// (common/predict.js); the held-out evaluation at the end answers.
// State: reverse.steps, reverse.len, reverse.guess. On the element: el.curves = [plain, reversed]
// ([{step, loss}]), el.path (the counter's numbers).
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { raceRun } from '../common/race.js';
import { predict } from '../common/predict.js';

const TASK_OPTIONS = { min_len: 8, max_len: 16, symbols: 10 };

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const steps = ctx.read.int('steps', 3000, 50, 20000);
  let len = ctx.read.int('len', 12, 2, 30);
  el.innerHTML = `
    <div class="controls"><label><span data-i18n="rev.len"></span> <input type="range" name="len" min="2" max="30"></label> <output name="lenval"></output></div>
    <p class="readout" name="path" aria-live="polite"></p>
    <div class="predict-host"></div>
    <div class="run-host"></div><div class="chart-host"></div><p class="readout" name="summary" aria-live="polite"></p>`;
  const guess = predict(ctx, {
    question: 'predict.rev.q',
    choices: [
      { value: 'plain', label: 'rev.plain' },
      { value: 'reversed', label: 'rev.reversed' },
    ],
  });
  el.querySelector('.predict-host').replaceWith(guess.el);
  const lenInput = el.querySelector('[name=len]');
  lenInput.value = len;
  function showPath() {
    el.path = pathLengths(len);
    el.querySelector('[name=lenval]').textContent = `S = ${len}`;
    el.querySelector('[name=path]').textContent = t('rev.path', el.path);
    ctx.store.set({ len });
  }
  lenInput.addEventListener('input', () => {
    len = Number(lenInput.value);
    showPath();
  });
  showPath();
  let ev = null;
  const showSummary = () => {
    el.querySelector('[name=summary]').textContent = !ev
      ? ''
      : t('rev.summary', {
          plain: ev[0].loss.toFixed(3),
          reversed: ev[1].loss.toFixed(3),
          plainAcc: (100 * ev[0].tokenAccuracy).toFixed(1),
          reversedAcc: (100 * ev[1].tokenAccuracy).toFixed(1),
          plainSeq: (100 * ev[0].sequenceAccuracy).toFixed(1),
          reversedSeq: (100 * ev[1].sequenceAccuracy).toFixed(1),
        });
  };
  const labels = () => [t('rev.plain'), t('rev.reversed')];
  const chart = lineChart(el.querySelector('.chart-host'), {
    series: labels().map((label) => ({ label })),
    xLabel: t('bahdanau.step'),
    yLabel: t('bahdanau.loss'),
    height: 220,
  });
  const model = { model: 'rnnencdec', emb: 16, hidden: 32, encoder: 'gru' };
  const train = { batch: 16, schedule: 'constant', lr: 0.01, clip: 1 };
  const run = raceRun(el.querySelector('.run-host'), ctx, {
    steps,
    names: labels, // the status line names each model's loss
    configs: () => [
      { model, task: 'copy', task_options: TASK_OPTIONS, seed: 1, train },
      { model, task: 'reverse', task_options: TASK_OPTIONS, seed: 1, train },
    ],
    onChunk(curves) {
      el.curves = curves;
      chart.set(
        curves[0].map((p) => p.step),
        curves.map((c) => c.map((p) => p.loss))
      );
    },
    async finish(sessions) {
      ev = await Promise.all(sessions.map((s) => s.evaluate(200, 99)));
      el.evaluation = ev;
      showSummary();
      // the figures the summary shows (three decimals) decide
      const [plain, reversed] = ev.map((e) => e.loss.toFixed(3));
      guess.reveal(Number(reversed) < Number(plain) ? 'reversed' : 'plain', () =>
        t('predict.rev.a', { plain, reversed })
      );
    },
    onReset() {
      chart.set([], [[], []]);
      ev = null;
      showSummary();
    },
  });
  guess.follow(el.querySelector('.run-host'));
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      showPath();
      showSummary();
      guess.relabel();
      run.render();
      chart.relabel({ series: labels(), xLabel: t('bahdanau.step'), yLabel: t('bahdanau.loss') });
      if (run.curves[0].length)
        chart.set(
          run.curves[0].map((p) => p.step),
          run.curves.map((c) => c.map((p) => p.loss))
        );
    },
    unmount() {
      run.dispose();
      chart.destroy();
      el.innerHTML = '';
    },
  };
}

// Recurrent steps from source word j to the prediction of output j when a one-way encoder reads
// S words and the decoder starts right after the last one: (S - t_j) + j, where t_j is the step
// that reads word j (j in order, S - j + 1 reversed).
export function pathLengths(S) {
  const steps = (tj, j) => S - tj + j;
  let sum = 0;
  for (let j = 1; j <= S; j++) sum += steps(S - j + 1, j);
  return {
    S,
    plain: steps(1, 1),
    reversed: steps(S, 1),
    plainLast: steps(S, S),
    reversedLast: steps(1, S),
    mean: sum / S,
  };
}
