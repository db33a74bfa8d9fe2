// Several models trained side by side in the engine's Worker, interleaved chunk by chunk so
// their loss curves grow together: run step k trains every model `chunk` steps, and each curve
// point is the mean training loss of that chunk (one batch's loss alone is too noisy to compare
// curves by). Built on
// createRun (start / pause / resume / reset, progress, step · loss). `configs()` returns the
// session configs; `finish(sessions)` runs once after the last chunk (held-out evaluation).
import { createRun } from './run.js';

export function raceRun(el, ctx, { configs, steps, chunk = 25, onChunk, finish, onReset }) {
  let sessions = null;
  const curves = configs().map(() => []);
  const total = Math.ceil(steps / chunk);
  const run = createRun(el, ctx, {
    total,
    unit: chunk,
    async work(k) {
      const client = await ctx.worker();
      if (!sessions) sessions = await Promise.all(configs().map((c) => client.createSession(c)));
      let last = null;
      for (let m = 0; m < sessions.length; m++) {
        const r = await sessions[m].train(Math.min(chunk, steps - k * chunk), { chunkMs: 40 });
        const loss = r.losses.reduce((a, b) => a + b, 0) / r.losses.length;
        curves[m].push({ step: r.step, loss });
        last = loss;
      }
      onChunk?.(curves);
      if (k === total - 1) await finish?.(sessions, curves);
      return { loss: last };
    },
    async reset() {
      const s = sessions;
      sessions = null;
      curves.forEach((c) => { c.length = 0; });
      if (s) await Promise.all(s.map((x) => x.dispose().catch(() => {})));
      onReset?.();
    },
  });
  run.curves = curves;
  return run;
}
