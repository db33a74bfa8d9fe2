// Several models trained side by side in the engine's Worker, interleaved chunk by chunk so
// their loss curves grow together: run step k trains every model `chunk` steps, and each curve
// point is the mean training loss of that chunk (one batch's loss alone is too noisy to compare
// curves by). Built on
// createRun (start / pause / resume / reset, progress, step · loss). `configs()` returns the
// session configs; `finish(sessions)` runs once after the last chunk (held-out evaluation).
// Before the first Start (and after Reset) the curves are not empty: throwaway sessions of the
// same configs each give the loss of the untrained model on its first batch, the curves' step-0
// point (onChunk draws it); `onPreview(sessions)` may show more of the untrained models. Nothing
// is trained; a note says the point is the untrained model's.
import { createRun } from './run.js';
import { t } from '../../i18n/index.js';

// `names()`: the models' names in the current language; the status line gives each model's loss.
export function raceRun(el, ctx, { configs, steps, chunk = 25, onChunk, finish, onReset, onPreview, names = null }) {
  let sessions = null;
  const curves = configs().map(() => []);
  const total = Math.ceil(steps / chunk);
  let previewGen = 0;
  async function preview() {
    const gen = ++previewGen;
    const live = () => gen === previewGen && !sessions && run.step === 0 && !run.running;
    const client = await ctx.worker();
    if (!live()) return;
    const ss = await Promise.all(configs().map((c) => client.createSession(c)));
    try {
      if (!live()) return;
      await onPreview?.(ss, live);
      const first = await Promise.all(ss.map((s) => s.train(1, { chunkMs: 40 }))); // the loss before the update
      if (!live()) return;
      first.forEach((r, m) => {
        curves[m].length = 0;
        curves[m].push({ step: 0, loss: r.losses[0] });
      });
      onChunk?.(curves);
      note.hidden = false;
      el.dataset.preview = '1';
    } finally {
      ss.forEach((s) => s.dispose().catch(() => {}));
    }
  }
  const run = createRun(el, ctx, {
    total,
    unit: chunk,
    names,
    async work(k) {
      previewGen++;
      note.hidden = true;
      delete el.dataset.preview;
      const client = await ctx.worker();
      if (!sessions) sessions = await Promise.all(configs().map((c) => client.createSession(c)));
      let last = null;
      const losses = [];
      for (let m = 0; m < sessions.length; m++) {
        const r = await sessions[m].train(Math.min(chunk, steps - k * chunk), { chunkMs: 40 });
        const loss = r.losses.reduce((a, b) => a + b, 0) / r.losses.length;
        curves[m].push({ step: r.step, loss });
        last = loss;
        losses.push(loss);
      }
      onChunk?.(curves);
      if (k === total - 1) await finish?.(sessions, curves);
      return { loss: last, losses };
    },
    async reset() {
      const s = sessions;
      sessions = null;
      curves.forEach((c) => {
        c.length = 0;
      });
      note.hidden = true;
      delete el.dataset.preview;
      if (s) await Promise.all(s.map((x) => x.dispose().catch(() => {})));
      onReset?.();
      preview().catch(() => {});
    },
  });
  const note = document.createElement('span');
  note.className = 'run-untrained note';
  note.dataset.i18n = 'run.untrainedLoss';
  note.textContent = t(note.dataset.i18n);
  note.hidden = true;
  el.append(note);
  const dispose = run.dispose;
  run.dispose = () => {
    previewGen++;
    dispose();
  };
  run.curves = curves;
  run.preview = preview;
  preview().catch(() => {});
  return run;
}
