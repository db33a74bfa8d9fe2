// A model trained in the engine's Worker, with the controls a reader needs: start / pause /
// resume / reset, a progress bar, and step · loss. `create()` returns the config for a new
// session; snapshots (the session's attention maps on a fixed example, every `everyMs`) and
// progress go to the callbacks; a snapshot request with `evaluate: {samples, seed}` also brings
// the held-out evaluation at that step. Reset cancels the run and disposes the session; the
// next start builds a fresh one from the same config and seed, so a run is reproducible.
// What was trained survives a reload: the weights and step are kept in IndexedDB (ModelStore,
// under the demo's name and config) every few seconds while training, on pause and at the end;
// on mount a stored model is loaded back, drawn, and can be resumed; Reset ("start over")
// forgets it. The run's element says which step is kept (data-kept, set once the store has
// it; for a finished run with final evaluations, once the record holding them is stored). Restore means the same run: `keep` ({save() -> JSON, load(kept, session, step)})
// stores the demo's own history (its chart's points, its readouts) beside the weights, and on
// restore `load` puts them back instead of the fresh `onStart` / `onSnapshot` a new run gets, so
// the chart, step, readouts and button after a reload equal those before it (a finished run
// comes back finished: Start, disabled).
// `stepButton` adds a button that trains one step and stops (stepOnce); adopt(session, step)
// makes a session built elsewhere (an imported checkpoint) the run's model.
// Optional hooks (the playground's own data): `prepare()` runs before a fresh start and stops it
// by returning false; `create(client, config)` makes the session (one with the RemoteSession's
// train/pause/resume/cancel and events); `persists()` false keeps such a run out of IndexedDB.
// Before the first Start (and after Reset) the demo is not an empty box: a throwaway session of
// the same config shows the untrained model (step 0) through the demo's own `snapshot` and
// `onSnapshot` (its map on the held-out example), and `onPreview({step: 0, loss})` gets the loss
// of that model on its first training batch; a note says it is untrained. Nothing is trained.
// Long because: the run controller's states (idle, creating, training, paused, restored) and
// its persistence and restore checks act on one `run` object; splitting them would pass it
// everywhere.
import { t } from '../../i18n/index.js';
import { modelStore } from '../../core/storage.js';

const SAVE_EVERY_MS = 3000;
// The most a stored record's `kept` history may hold (its JSON), so a record cannot grow the tab.
const KEPT_MAX_CHARS = 4 << 20;
// ... and no list in it longer than one entry per step (and the untrained model's).
const longest = (v, depth = 0) =>
  !v || typeof v !== 'object' || depth > 4
    ? 0
    : Math.max(Array.isArray(v) ? v.length : 0, ...Object.values(v).map((x) => longest(x, depth + 1)));

// `want` (the demo's config) agrees with `got` (what the stored checkpoint says): every key both
// name holds the same value (nested objects key by key; the engine fills in keys a demo leaves out).
function agrees(want, got) {
  if (want && typeof want === 'object' && !Array.isArray(want)) {
    if (!got || typeof got !== 'object' || Array.isArray(got)) return false;
    return Object.keys(want).every((k) => !(k in got) || agrees(want[k], got[k]));
  }
  if (Array.isArray(want))
    return Array.isArray(got) && got.length === want.length && want.every((w, i) => agrees(w, got[i]));
  return Object.is(want, got) || (typeof want === 'number' && typeof got === 'number' && want === got);
}

// Why a stored record cannot be this run's (null when it can): its step and history must be those
// of a run of `steps` steps, and the checkpoint's model, task, training settings and step those of
// the demo's config.
export function recordProblem(rec, steps, config, info = null) {
  const meta = rec?.meta;
  if (!meta || typeof meta !== 'object') return 'no metadata';
  const { step, loss = null, done = false, kept = null } = meta;
  if (!Number.isInteger(step) || step < 1 || step > steps) return `step ${step} is not one of 1–${steps}`;
  if (meta.steps !== undefined && meta.steps !== steps) return `${meta.steps} steps stored, ${steps} in this run`;
  if (loss !== null && typeof loss !== 'number') return `loss ${loss}`;
  if (typeof done !== 'boolean' || (done && step !== steps)) return `finished at step ${step} of ${steps}`;
  if (kept !== null) {
    let chars = Infinity;
    try {
      chars = JSON.stringify(kept).length;
    } catch {
      /* not JSON */
    }
    if (typeof kept !== 'object' || chars > KEPT_MAX_CHARS || longest(kept) > steps + 1) return 'history too long';
  }
  if (!info) return null;
  if (info.step !== undefined && info.step !== step) return `the weights are of step ${info.step}, not ${step}`;
  const model = config?.model;
  if (model && !agrees(model, info.config)) return `another model (${info.config?.model ?? '?'})`;
  if (config?.task !== undefined && info.task !== undefined && config.task !== info.task)
    return `another task (${info.task})`;
  if (config?.train && info.train && !agrees(config.train, info.train)) return 'other training settings';
  return null;
}

export function sessionRun(
  el,
  ctx,
  {
    config,
    steps,
    snapshot = null,
    everyMs = 300,
    onStart,
    onProgress,
    onSnapshot,
    onDone,
    onReset,
    onPreview,
    prepare = null,
    create = null,
    persists = () => true,
    keep = null,
    stepButton = false,
  }
) {
  el.classList.add('run');
  el.innerHTML = `
    <button type="button" name="run-toggle"></button>
    <button type="button" name="run-reset" data-i18n="run.reset"></button>${stepButton ? '\n    <button type="button" name="run-step" data-i18n="run.stepOnce"></button>' : ''}
    <progress max="${steps}" value="0" data-i18n-aria="run.progress"></progress>
    <output class="run-status" aria-live="off"></output>
    <span class="run-restored note" data-i18n="run.restored" hidden></span>
    <span class="run-untrained note" data-i18n="run.untrained" hidden></span>
    <span class="run-dropped note" role="status" hidden></span>`;
  const toggle = el.querySelector('[name=run-toggle]');
  const bar = el.querySelector('progress');
  const status = el.querySelector('.run-status');
  // state: idle | creating | training | paused | restored (loaded from this browser, not training)
  const run = {
    session: null,
    state: 'idle',
    step: 0,
    base: 0,
    loss: null,
    steps,
    training: null,
    done: false,
    key: null,
    restored: false,
    snap: null,
    dropped: null, // why a stored record was dropped (shown until the next start or reset)
  };
  let offs = [];
  let lastSave = 0;

  let stepping = false; // a One step in progress (training, then storing)
  function render() {
    toggle.textContent = t(
      run.state === 'training'
        ? 'run.pause'
        : run.state === 'paused' || run.state === 'restored'
          ? 'run.resume'
          : 'run.start'
    );
    toggle.disabled = run.done || run.state === 'creating';
    const one = el.querySelector('[name=run-step]');
    // disabled until a step is wholly done (stored too): a press meanwhile would be dropped
    if (one) one.disabled = stepping || run.done || run.state === 'creating' || run.state === 'training';
    bar.max = run.steps;
    bar.value = run.step;
    const step = t('run.step', {
      step: run.step,
      total: run.steps,
      loss: run.loss === null ? '—' : run.loss.toPrecision(4),
    });
    status.textContent = run.state === 'creating' ? t('run.creating') : step;
    el.querySelector('.run-restored').hidden = !run.restored;
    const dropped = el.querySelector('.run-dropped');
    dropped.hidden = !run.dropped;
    dropped.textContent = run.dropped ? t('run.dropped', { why: run.dropped }) : '';
    el.dataset.state = run.done ? 'done' : run.state;
    const untrained = Boolean(run.preview) && run.state === 'idle' && !run.session;
    el.querySelector('.run-untrained').hidden = !untrained;
    if (!untrained) delete el.dataset.preview;
  }

  // The untrained model of this config (see the top of this file); stale when a run or another
  // preview has begun meanwhile.
  let previewGen = 0;
  async function preview() {
    const gen = ++previewGen;
    const live = () => gen === previewGen && run.state === 'idle' && !run.session;
    const client = await ctx.worker();
    if (!live()) return;
    const s = await client.createSession(await config());
    try {
      if (!live()) return;
      const snap = snapshot ? await snapshot(s) : null;
      if (!live()) return;
      if (snap) {
        const data = await s.inspect(snap.src, snap.tgt);
        if (!live()) return;
        onSnapshot?.(data, 0, s, null);
      }
      run.preview = { step: 0, loss: null };
      render();
      const r = await s.train(1, { chunkMs: 40 }); // the loss is the untrained model's, before its update
      if (!live()) return;
      run.preview = { step: 0, loss: r.losses?.[0] ?? null };
      onPreview?.(run.preview);
      el.dataset.preview = '1';
      render();
    } finally {
      s.dispose().catch(() => {});
    }
  }

  const storeKey = async () =>
    `${el.closest('[data-demo]')?.dataset.demo ?? 'demo'}:${run.steps}:${JSON.stringify(await config())}`;

  // Keeps the session's weights and step in IndexedDB (failures only cost the persistence).
  // mark: false leaves data-kept as it was (a finished run's save before its final evaluations,
  // whose own save follows: data-kept then says the record a reload restores is the final one).
  async function persist(s, { mark = true } = {}) {
    const store = await modelStore();
    if (!store || !run.key || run.step === 0 || run.session !== s || !persists()) return;
    lastSave = performance.now();
    try {
      const bytes = await s.save({ optimizer: true }); // Adam's state too: Resume continues the same run
      if (run.session === s) {
        const step = run.step;
        await store.save(run.key, bytes, {
          step,
          loss: run.loss,
          steps: run.steps,
          done: run.done,
          kept: keep?.save() ?? null,
        });
        // the step of the model this browser now keeps (a reload restores it)
        if (mark && run.session === s) el.dataset.kept = String(step);
      }
    } catch {
      /* a full or blocked store keeps nothing */
    }
  }

  function attach(s) {
    run.session = s;
    offs = [
      s.on('progress', (p) => {
        run.step = run.base + p.done;
        run.loss = p.loss;
        ctx.progress(run.step, p.loss, { total: run.steps, done: run.step >= run.steps });
        onProgress?.({ ...p, done: run.step, step: run.step }, s);
        render();
        if (performance.now() - lastSave > SAVE_EVERY_MS) persist(s);
      }),
      s.on('snapshot', (m) => onSnapshot?.(m.data, m.step, s, m.evaluation)),
      s.on('state', (m) => {
        if (m.state !== 'idle') {
          run.state = m.state;
          render();
        }
      }),
    ];
  }

  // Trains `count` steps (the rest of the run unless told); a run that reaches its last step is
  // done, a shorter one (stepOnce) stops where Start goes on from.
  async function train(s, count = run.steps - run.base) {
    run.state = 'training';
    run.restored = false;
    render();
    const snap = run.snap;
    const whole = count >= run.steps - run.base;
    run.training = s.train(count, { chunkMs: 40, snapshot: snap ? { ...snap, everyMs } : null });
    const r = await run.training.catch((e) => ({ error: e }));
    if (r.error) throw r.error;
    if (!r.cancelled && run.session === s) {
      run.done = whole || run.step >= run.steps;
      run.state = run.done ? 'idle' : 'restored';
      render();
      await persist(s, { mark: !(run.done && keep) });
      if (!run.done) return;
      await onDone?.(s);
      if (keep) await persist(s); // with what onDone showed (final evaluations)
    }
  }

  async function start() {
    if (run.state === 'training' || run.state === 'creating' || run.done) return;
    previewGen++;
    run.dropped = null;
    if (run.state === 'paused') {
      run.session.resume();
      run.state = 'training';
      render();
      return;
    }
    if (run.state === 'restored') {
      run.base = run.step;
      return train(run.session);
    }
    const s = await fresh();
    if (s) await train(s);
  }

  // A new session of the config, attached and shown (onStart); null when prepare() said no.
  async function fresh() {
    if (prepare) {
      run.state = 'creating';
      render();
      const ok = await prepare().catch(() => false);
      run.state = 'idle';
      render();
      if (!ok) return null;
    }
    run.state = 'creating';
    render();
    let s;
    try {
      const client = await ctx.worker();
      run.key = persists() ? await storeKey() : null;
      const cfg = await config();
      s = (create && (await create(client, cfg))) || (await client.createSession(cfg));
    } catch (e) {
      // an engine that did not start, or a config it refuses, leaves the run ready for another start
      run.state = 'idle';
      render();
      throw e;
    }
    attach(s);
    run.snap = snapshot ? await snapshot(s) : null;
    await onStart?.(s, 0);
    return s;
  }

  // One optimizer step, then a stop (the step button): from the untrained model, a paused run
  // (its training ends where it stands) or a stopped one; Start goes on from there.
  async function stepOnce() {
    if (stepping || run.done || run.state === 'creating' || run.state === 'training') return;
    stepping = true;
    try {
      previewGen++;
      run.dropped = null;
      if (run.state === 'paused') {
        run.session.cancel();
        await run.training?.catch(() => {});
        run.state = 'restored';
      }
      const s = run.session ?? (await fresh());
      if (!s) return;
      run.base = run.step;
      await train(s, 1);
    } finally {
      stepping = false;
      render();
    }
  }

  // A session made elsewhere (an imported checkpoint at `step`) becomes this run's model: drawn
  // through `snapshot`, stopped, and trained on by Start up to the run's steps (a model already
  // past them is finished, at steps = its step; the demo's onReset may set steps back). It is not
  // kept in this browser (its config is the file's, not the demo's).
  async function adopt(s, step) {
    await reset({ preview: false });
    previewGen++;
    attach(s);
    run.steps = Math.max(run.steps, step); // a model trained longer than this run is finished
    Object.assign(run, { step, base: step, loss: null, done: step >= run.steps, restored: false, key: null });
    run.snap = snapshot ? await snapshot(s) : null;
    run.state = run.done ? 'idle' : 'restored';
    render();
  }

  // A model this browser kept for the same demo and config: loaded, drawn, ready to resume. A
  // reset (the reader changed the task or the model meanwhile) or an unmount abandons it: the
  // model of the old config never lands under the new one.
  let resets = 0;
  async function restore() {
    if (run.session || run.state !== 'idle' || !persists()) return false;
    const store = await modelStore();
    if (!store) return false;
    const gen = resets;
    const stale = () => gen !== resets;
    const key = await storeKey();
    const rec = await store.load(key).catch(() => null);
    if (!rec || run.session || run.state !== 'idle' || stale()) return false;
    // A record that cannot be this run is dropped, with a note saying why.
    let s = null;
    const drop = async (why) => {
      // the Worker's session is gone before the note shows
      await s?.dispose().catch(() => {});
      await store.remove(key).catch(() => {});
      delete el.dataset.kept;
      if (stale()) return false;
      offs.forEach((off) => off());
      offs = [];
      Object.assign(run, { session: null, state: 'idle', step: 0, base: 0, loss: null, done: false, restored: false });
      run.dropped = why;
      render();
      return false;
    };
    const cfg = await config();
    const early = recordProblem(rec, run.steps, cfg);
    if (early) return drop(early);
    run.state = 'creating';
    render();
    // An engine that does not start says so and keeps the record: only a record that cannot be
    // this run is dropped, never a model the reader trained because the engine failed once.
    let client;
    try {
      client = await ctx.worker();
    } catch (e) {
      if (stale()) return false;
      run.state = 'idle';
      render();
      status.textContent = t('engine.error', { message: e.message });
      return true; // no preview over the message
    }
    try {
      s = await client.loadSession(rec.bytes);
      if (stale()) {
        s.dispose().catch(() => {});
        return false;
      }
      const problem = recordProblem(rec, run.steps, cfg, s.info);
      if (problem) return drop(problem);
      run.key = key;
      el.dataset.kept = String(rec.meta.step);
      attach(s);
      Object.assign(run, {
        step: rec.meta.step,
        base: rec.meta.step,
        loss: rec.meta.loss ?? null,
        done: Boolean(rec.meta.done),
        restored: true,
      });
      run.snap = snapshot ? await snapshot(s) : null;
      if (stale()) return false; // reset() has disposed the session and redrawn
      if (keep && rec.meta.kept) {
        await keep.load(rec.meta.kept, s, run.step);
      } else {
        await onStart?.(s, run.step);
        if (run.snap) onSnapshot?.(await s.inspect(run.snap.src, run.snap.tgt), run.step, s, null);
      }
      if (stale()) return false;
      run.state = run.done ? 'idle' : 'restored';
      render();
      if (run.done) await onDone?.(s);
      return true;
    } catch (e) {
      if (stale()) return false;
      return drop(e.message); // a stored model this build cannot load
    }
  }

  function pause() {
    if (run.state !== 'training') return;
    run.session.pause();
    run.state = 'paused';
    render();
    persist(run.session);
  }

  async function reset({ preview: again = true } = {}) {
    resets++;
    const s = run.session;
    run.session = null;
    if (run.key) await (await modelStore())?.remove(run.key).catch(() => {});
    delete el.dataset.kept;
    if (s) {
      if (run.state === 'training' || run.state === 'paused') {
        s.cancel();
        await run.training?.catch(() => {});
      }
      offs.forEach((off) => off());
      await s.dispose().catch(() => {});
    }
    Object.assign(run, {
      state: 'idle',
      step: 0,
      base: 0,
      loss: null,
      done: false,
      training: null,
      key: null,
      restored: false,
      snap: null,
      preview: null,
      dropped: null,
    });
    onReset?.();
    render();
    if (again) preview().catch(() => {});
  }

  toggle.addEventListener('click', () =>
    run.state === 'training'
      ? pause()
      : start().catch((e) => {
          status.textContent = t('engine.error', { message: e.message });
        })
  );
  el.querySelector('[name=run-reset]').addEventListener('click', () => reset());
  el.querySelector('[name=run-step]')?.addEventListener('click', () =>
    stepOnce().catch((e) => {
      status.textContent = t('engine.error', { message: e.message });
    })
  );
  render();
  // Leaving the page (or unmounting) keeps what was trained; only Reset forgets it.
  async function dispose() {
    previewGen++;
    resets++;
    const s = run.session;
    run.session = null;
    if (s) {
      if (run.state === 'training' || run.state === 'paused') {
        s.cancel();
        await run.training?.catch(() => {});
      }
      offs.forEach((off) => off());
      await s.dispose().catch(() => {});
    }
  }
  Object.assign(run, { start, pause, reset, render, dispose, restore, preview, stepOnce, adopt });
  restore()
    .catch(() => false)
    .then((restored) => {
      if (!restored) preview().catch(() => {});
    });
  return run;
}
