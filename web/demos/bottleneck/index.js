// `bottleneck` section demo: the fixed-size bottleneck, measured. An encoder–decoder without attention
// (RNNencdec) and one with it (RNNsearch) — same sizes, data, seed and steps — learn to copy
// symbol sequences of 3 to 16 tokens. Afterwards the engine decodes 200 held-out sequences
// with each model and the page plots exact-match accuracy per source length: the shape of
// Bahdanau et al.'s length figure, on the reader's machine. State: bottleneck.steps.
import { t } from '../../i18n/index.js';
import { lineChart } from '../../viz/chart.js';
import { raceRun } from '../common/race.js';

const TASK_OPTIONS = { min_len: 3, max_len: 16, symbols: 10 };

// exact-match accuracy per source length; rows of ids
export function accuracyByLength(src, tgt, out) {
  const by = new Map();
  src.forEach((s, i) => {
    const o = Array.from(out[i] ?? []);
    const ok = o.length === tgt[i].length && o.every((x, k) => x === tgt[i][k]);
    const e = by.get(s.length) ?? [0, 0];
    by.set(s.length, [e[0] + (ok ? 1 : 0), e[1] + 1]);
  });
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([len, [c, n]]) => ({ len, acc: c / n, n }));
}

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const steps = ctx.read.num('steps', 2000, 50, 20000);
  el.innerHTML = `
    <div class="run-host"></div>
    <div class="demo-row"><div class="loss-host"></div><div class="acc-host"></div></div>
    <p class="readout" name="summary" aria-live="polite"></p>`;
  const labels = () => [t('bn.encdec'), t('bn.search')];
  const loss = lineChart(el.querySelector('.loss-host'), { series: labels().map((label) => ({ label })), xLabel: t('bahdanau.step'), yLabel: t('bahdanau.loss'), height: 200 });
  const acc = lineChart(el.querySelector('.acc-host'), { series: labels().map((label) => ({ label })), xLabel: t('bn.length'), yLabel: t('bn.accuracy'), height: 200, points: true });
  const train = { batch: 16, schedule: 'constant', lr: 0.01, clip: 1 };
  let perLength = null;
  const run = raceRun(el.querySelector('.run-host'), ctx, {
    steps,
    configs: () => ['rnnencdec', 'rnnsearch'].map((m) => ({ model: { model: m, emb: 16, hidden: 32, attn: 32 }, task: 'copy', task_options: TASK_OPTIONS, seed: 1, train })),
    onChunk(curves) { loss.set(curves[0].map((p) => p.step), curves.map((c) => c.map((p) => p.loss))); },
    async finish(sessions) {
      const ex = await sessions[0].examples(200, { split: 'test', seed: 21 });
      const outs = await Promise.all(sessions.map((s) => s.decode(ex.src)));
      perLength = outs.map((o) => accuracyByLength(ex.src, ex.tgt, o));
      el.perLength = perLength;
      acc.set(perLength[0].map((p) => p.len), perLength.map((r) => r.map((p) => p.acc)));
      const tail = (r) => r.filter((p) => p.len >= 10);
      const mean = (r) => r.reduce((s, p) => s + p.acc, 0) / Math.max(1, r.length);
      el.querySelector('[name=summary]').textContent = t('bn.summary', { encdec: (100 * mean(tail(perLength[0]))).toFixed(0), search: (100 * mean(tail(perLength[1]))).toFixed(0) });
    },
    onReset() { loss.set([], [[], []]); acc.set([], [[], []]); perLength = null; el.querySelector('[name=summary]').textContent = ''; },
  });
  return {
    start: run.start, pause: run.pause, reset: run.reset,
    relabel() {
      run.render();
      loss.relabel({ series: labels(), xLabel: t('bahdanau.step'), yLabel: t('bahdanau.loss') });
      acc.relabel({ series: labels(), xLabel: t('bn.length'), yLabel: t('bn.accuracy') });
      if (run.curves[0].length) loss.set(run.curves[0].map((p) => p.step), run.curves.map((c) => c.map((p) => p.loss)));
      if (perLength) acc.set(perLength[0].map((p) => p.len), perLength.map((r) => r.map((p) => p.acc)));
    },
    unmount() { run.dispose(); loss.destroy(); acc.destroy(); el.innerHTML = ''; },
  };
}
