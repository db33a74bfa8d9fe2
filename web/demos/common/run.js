// A run a reader can watch: start / pause / resume / reset, a progress bar and a step/loss line.
// `work(step)` does one slice of the job (an engine call, or a message to the training Worker)
// and returns {loss?, done?}; between slices the page gets the thread back, so it stays
// responsive. Every slice reports through ctx.progress (the widget's `progress` event).
import { t } from '../../i18n/index.js';

// `unit`: training steps per run step, so the status counts training steps. `names()`: the
// models' names when work returns one loss per model ({losses}); the status then gives each.
export function createRun(el, ctx, { total, work, reset = () => {}, label = 'run.step', unit = 1, names = null }) {
  el.classList.add('run');
  el.innerHTML = `
    <button type="button" name="run-toggle"></button>
    <button type="button" name="run-reset" data-i18n="run.reset"></button>
    <progress max="${total}" value="0" data-i18n-aria="run.progress"></progress>
    <output class="run-status" aria-live="polite"></output>`;
  const toggle = el.querySelector('[name=run-toggle]');
  const bar = el.querySelector('progress');
  const status = el.querySelector('.run-status');
  const run = { step: 0, loss: null, losses: null, running: false, done: false, total };
  let timer = 0;

  function render() {
    toggle.textContent = t(run.running ? 'run.pause' : run.step > 0 && !run.done ? 'run.resume' : 'run.start');
    toggle.disabled = run.done;
    bar.value = run.step;
    const loss = run.loss === null ? '—' : run.loss.toPrecision(4);
    bar.max = run.total;
    const vars = { step: run.step * unit, total: run.total * unit, loss };
    status.textContent =
      names && run.losses
        ? t('run.stepMany', {
            ...vars,
            losses: names()
              .map((n, m) => t('run.lossOf', { name: n, loss: run.losses[m].toPrecision(4) }))
              .join(' · '),
          })
        : t(label, vars);
    el.dataset.state = run.done ? 'done' : run.running ? 'running' : run.step ? 'paused' : 'idle';
  }

  async function tick() {
    timer = 0;
    if (!run.running) return;
    let r;
    try {
      r = (await work(run.step)) ?? {};
    } catch (e) {
      run.running = false;
      render();
      status.textContent = t('engine.error', { message: e.message });
      return;
    }
    if (!run.running) return;
    run.step += 1;
    if (typeof r.loss === 'number') run.loss = r.loss;
    if (Array.isArray(r.losses)) run.losses = r.losses;
    run.done = Boolean(r.done) || run.step >= run.total;
    if (run.done) run.running = false;
    ctx.progress(run.step * unit, run.loss, { total: run.total * unit, done: run.done });
    render();
    if (run.running) timer = setTimeout(tick, 0);
  }

  run.start = () => {
    if (run.running || run.done) return;
    run.running = true;
    render();
    timer = setTimeout(tick, 0);
  };
  run.pause = () => {
    run.running = false;
    clearTimeout(timer);
    render();
  };
  run.reset = () => {
    run.pause();
    Object.assign(run, { step: 0, loss: null, losses: null, done: false });
    reset();
    render();
  };
  run.render = render;
  run.dispose = () => {
    run.running = false;
    clearTimeout(timer);
  };
  toggle.addEventListener('click', () => (run.running ? run.pause() : run.start()));
  el.querySelector('[name=run-reset]').addEventListener('click', run.reset);
  render();
  return run;
}
