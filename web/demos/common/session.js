// A model trained in the engine's Worker, with the controls a reader needs: start / pause /
// resume / reset, a progress bar, and step · loss. `create()` returns the config for a new
// session; snapshots (the session's attention maps on a fixed example, every `everyMs`) and
// progress go to the callbacks; a snapshot request with `evaluate: {samples, seed}` also brings
// the held-out evaluation at that step. Reset cancels the run and disposes the session; the
// next start builds a fresh one from the same config and seed, so a run is reproducible.
import { t } from '../../i18n/index.js';

export function sessionRun(el, ctx, { config, steps, snapshot = null, everyMs = 300, onStart, onProgress, onSnapshot, onDone, onReset }) {
  el.classList.add('run');
  el.innerHTML = `
    <button type="button" name="run-toggle"></button>
    <button type="button" name="run-reset" data-i18n="run.reset"></button>
    <progress max="${steps}" value="0"></progress>
    <output class="run-status" aria-live="off"></output>`;
  const toggle = el.querySelector('[name=run-toggle]');
  const bar = el.querySelector('progress');
  const status = el.querySelector('.run-status');
  const run = { session: null, state: 'idle', step: 0, loss: null, steps, training: null, done: false };
  let offs = [];

  function render() {
    toggle.textContent = t(run.state === 'training' ? 'run.pause' : run.state === 'paused' ? 'run.resume' : 'run.start');
    toggle.disabled = run.done || run.state === 'creating';
    bar.max = run.steps;
    bar.value = run.step;
    status.textContent = run.state === 'creating' ? t('run.creating')
      : t('run.step', { step: run.step, total: run.steps, loss: run.loss === null ? '—' : run.loss.toPrecision(4) });
    el.dataset.state = run.done ? 'done' : run.state;
  }

  async function start() {
    if (run.state === 'training' || run.state === 'creating' || run.done) return;
    if (run.state === 'paused') { run.session.resume(); run.state = 'training'; render(); return; }
    run.state = 'creating';
    render();
    const client = await ctx.worker();
    const s = await client.createSession(await config());
    run.session = s;
    offs = [
      s.on('progress', (p) => {
        run.step = p.done;
        run.loss = p.loss;
        ctx.progress(p.done, p.loss, { total: run.steps, done: p.done >= run.steps });
        onProgress?.(p, s);
        render();
      }),
      s.on('snapshot', (m) => onSnapshot?.(m.data, m.step, s, m.evaluation)),
      s.on('state', (m) => { if (m.state !== 'idle') { run.state = m.state; render(); } }),
    ];
    const snap = snapshot ? await snapshot(s) : null;
    await onStart?.(s);
    run.state = 'training';
    render();
    run.training = s.train(run.steps, { chunkMs: 40, snapshot: snap ? { ...snap, everyMs } : null });
    const r = await run.training.catch((e) => ({ error: e }));
    if (r.error) throw r.error;
    if (!r.cancelled && run.session === s) {
      run.done = true;
      run.state = 'idle';
      render();
      await onDone?.(s);
    }
  }

  function pause() {
    if (run.state !== 'training') return;
    run.session.pause();
    run.state = 'paused';
    render();
  }

  async function reset() {
    const s = run.session;
    run.session = null;
    if (s) {
      if (run.state === 'training' || run.state === 'paused') { s.cancel(); await run.training?.catch(() => {}); }
      offs.forEach((off) => off());
      await s.dispose().catch(() => {});
    }
    Object.assign(run, { state: 'idle', step: 0, loss: null, done: false, training: null });
    onReset?.();
    render();
  }

  toggle.addEventListener('click', () => (run.state === 'training' ? pause() : start().catch((e) => { status.textContent = t('engine.error', { message: e.message }); })));
  el.querySelector('[name=run-reset]').addEventListener('click', () => reset());
  render();
  Object.assign(run, { start, pause, reset, render, dispose: reset });
  return run;
}
