// `relatives` section demo: a pointer network (Vinyals, Fortunato & Jaitly 2015) answers for the reader's own
// points. A small Ptr-Net trains live in the engine's Worker on the convex-hull task (5–10
// points in the unit square); clicking adds points, "point" asks the engine for its answer
// (positions chosen one by one from its attention over the inputs, with each step's
// probability), drawn beside the exact hull (Andrew's monotone chain here on the page) with
// exact-match and area coverage (0 for a self-crossing answer, as the engine's evaluation
// counts it), and the engine's held-out accuracy and coverage. By keyboard, the left square takes
// focus: arrow keys move a cross-hair (Shift for fine steps), Enter or Space adds a point there.
// Start trains in chunks; after each chunk the points on the square (a random set, if the reader
// has placed none) are answered again, so the squares show the network as it trains. From the
// pre-trained network, Start is a short fine-tune (TUNE: fewer steps, smaller batches, a small
// learning rate) that takes seconds; the howto line states its figures from TUNE and LIVE.
// State: pointer.steps (the untrained run's). On the element: el.answer, el.points, el.heldOut.
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';
import { createRun } from '../common/run.js';
import { shippedIndex, pretrainedNote } from '../common/shipped.js';

const CHUNK = 25;
const SHIPPED = 'pointer-hull';
export const LIVE = {
  model: { model: 'pointer', hidden: 64, embed: 64, glimpse: true },
  task: 'convex-hull',
  task_options: { n_min: 5, n_max: 10 },
  seed: 1,
  train: { batch: 64, lr: 0.002 },
};
// The pre-trained network's fine-tune on LIVE's point sets: it already solves the task, so
// what Start shows is training resumed from a checkpoint, not learning from scratch.
export const TUNE = { steps: 100, train: { batch: 32, lr: 0.0001 } };

let shippedOnce = null;
function shippedCheckpoint(ctx) {
  // -> {meta, bytes} or null
  shippedOnce ??= (async () => {
    const meta = (await shippedIndex(ctx.base))[SHIPPED];
    if (!meta) return null;
    const r = await fetch(new URL(meta.file, ctx.base));
    return r.ok ? { meta, bytes: new Uint8Array(await r.arrayBuffer()) } : null;
  })().catch(() => null);
  return shippedOnce;
}
const SIZE = 240;

const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
// Convex hull vertices, counter-clockwise from the lowest index (the task's answer format).
export function exactHull(p) {
  const idx = p.map((_, i) => i).sort((i, j) => p[i][0] - p[j][0] || p[i][1] - p[j][1]);
  const chain = (ids) => {
    const h = [];
    for (const i of ids) {
      while (h.length >= 2 && cross(p[h.at(-2)], p[h.at(-1)], p[i]) <= 0) h.pop();
      h.push(i);
    }
    h.pop();
    return h;
  };
  const hull = [...chain(idx), ...chain([...idx].reverse())];
  const k = hull.indexOf(Math.min(...hull));
  return [...hull.slice(k), ...hull.slice(0, k)];
}
// Whether the closed polygon through p in this order has no two crossing non-adjacent edges.
export function isSimple(p, order) {
  const m = order.length;
  if (m < 3 || new Set(order).size !== m) return false;
  const e = (k) => [p[order[k]], p[order[(k + 1) % m]]];
  for (let a = 0; a < m; a++) {
    for (let b = a + 2; b < m; b++) {
      if (a === 0 && b === m - 1) continue;
      const [p1, p2] = e(a),
        [q1, q2] = e(b);
      if (cross(p1, p2, q1) * cross(p1, p2, q2) < 0 && cross(q1, q2, p1) * cross(q1, q2, p2) < 0) return false;
    }
  }
  return true;
}
// Shoelace area of the polygon through p in the given order.
export function polygonArea(p, order) {
  let s = 0;
  order.forEach((i, k) => {
    const j = order[(k + 1) % order.length];
    s += p[i][0] * p[j][1] - p[j][0] * p[i][1];
  });
  return Math.abs(s) / 2;
}

function polygonSvg(points, order, cls) {
  if (order.length < 2) return '';
  const pts = order
    .map((i) => `${(points[i][0] * SIZE).toFixed(1)},${((1 - points[i][1]) * SIZE).toFixed(1)}`)
    .join(' ');
  const colour = cls === 'pointer-answer' ? '0,114,178' : '230,159,0'; // Okabe–Ito blue / orange
  return `<polygon class="${cls}" points="${pts}" fill="rgba(${colour},0.25)" stroke="rgb(${colour})" stroke-width="2" />`;
}

// input: the square that takes points (focusable, with the keyboard's cross-hair at `caret`).
function panel(points, order, cls, label, input = null) {
  const dots = points
    .map(
      ([x, y], i) =>
        `<circle cx="${(x * SIZE).toFixed(1)}" cy="${((1 - y) * SIZE).toFixed(1)}" r="4" fill="currentColor"></circle>` +
        `<text font-size="10" fill="currentColor" x="${(x * SIZE + 6).toFixed(1)}" y="${((1 - y) * SIZE - 6).toFixed(1)}">${i + 1}</text>`
    )
    .join('');
  const attrs = input
    ? `tabindex="0" role="application" aria-label="${escapeHtml(`${label}. ${input.help}`)}"`
    : `role="img" aria-label="${escapeHtml(label)}"`;
  const caret = input
    ? (([x, y]) => {
        const cx = x * SIZE,
          cy = (1 - y) * SIZE;
        return `<path class="pointer-caret" d="M${cx - 8} ${cy}H${cx + 8}M${cx} ${cy - 8}V${cy + 8}" stroke="currentColor" stroke-width="1.5"></path>`;
      })(input.caret)
    : '';
  return (
    `<figure class="pointer-panel"><svg viewBox="0 0 ${SIZE} ${SIZE}" width="${SIZE}" height="${SIZE}" ${attrs}>` +
    `<rect class="pointer-frame" x="0" y="0" width="${SIZE}" height="${SIZE}" fill="none" stroke="currentColor"></rect>${polygonSvg(points, order, cls)}${dots}${caret}</svg>` +
    `<figcaption>${escapeHtml(label)}</figcaption></figure>`
  );
}

export async function mount(el, ctx) {
  const info = await ctx.engine.info();
  if (!info.sessions) return (await import('../pending/index.js')).mount(el, ctx);
  const freshSteps = ctx.read.int('steps', 600, CHUNK, 20000);
  const shipped = await shippedCheckpoint(ctx);
  let start = shipped ? ctx.read.str('start', 'shipped') : 'fresh';
  if (start !== 'shipped' && start !== 'fresh') start = shipped ? 'shipped' : 'fresh';
  const steps = () => (start === 'shipped' ? TUNE.steps : freshSteps);
  el.innerHTML = `
    <label class="pointer-start" ${shipped ? '' : 'hidden'}><span data-i18n="pointer.start"></span>
      <select name="start"><option value="shipped" data-i18n="pointer.start.shipped"></option>
        <option value="fresh" data-i18n="pointer.start.fresh"></option></select></label>
    <div class="run-host"></div>
    <div class="controls">
      <button type="button" name="point" data-i18n="pointer.point"></button>
      <button type="button" name="random" data-i18n="pointer.random"></button>
      <button type="button" name="clear" data-i18n="pointer.clear"></button>
    </div>
    <p class="note pointer-howto"></p>
    <div class="demo-row pointer-row"></div>
    <p class="readout pointer-caret-at" aria-live="polite"></p>
    <p class="readout pointer-metrics" aria-live="polite"></p>
    <p class="note pointer-pace" hidden></p>
    <div class="pretrained-host"></div>`;
  const startSel = el.querySelector('[name=start]');
  startSel.value = start;
  el.start = start;
  const showNote = () => {
    el.querySelector('.pretrained-host').innerHTML = shipped && start === 'shipped' ? pretrainedNote(shipped.meta) : '';
    const o = LIVE.task_options;
    el.querySelector('.pointer-howto').textContent = t(
      shipped && start === 'shipped' ? 'pointer.howto.shipped' : 'pointer.howto',
      {
        steps: steps(),
        batch: start === 'shipped' ? TUNE.train.batch : LIVE.train.batch,
        nmin: o.n_min,
        nmax: o.n_max,
        lr: start === 'shipped' ? TUNE.train.lr : LIVE.train.lr,
      }
    );
  };
  const row = el.querySelector('.pointer-row');
  const metrics = el.querySelector('.pointer-metrics');
  const caretAt = el.querySelector('.pointer-caret-at');
  let session = null,
    points = [],
    answer = null,
    seed = 1,
    caret = [0.5, 0.5];
  el.points = points;

  function draw() {
    el.answer = answer; // the element's answer is always the one drawn (none once the points change)
    const focused = row.querySelector('svg') === document.activeElement;
    row.innerHTML =
      panel(points, answer ? answer.order : [], 'pointer-answer', t('pointer.model'), {
        caret,
        help: t('pointer.keys'),
      }) + panel(points, answer ? answer.exact : [], 'pointer-exact', t('pointer.exact'));
    const input = row.querySelector('svg');
    input.addEventListener('click', (e) => {
      const r = e.currentTarget.getBoundingClientRect();
      addPoint((e.clientX - r.left) / r.width, 1 - (e.clientY - r.top) / r.height);
    });
    input.addEventListener('keydown', key);
    if (focused) input.focus({ preventScroll: true }); // the replaced square keeps the focus, in place
    if (!answer) {
      metrics.textContent = t('pointer.waiting', { n: points.length });
      return;
    }
    const steps = answer.order.map((i, k) => `${i + 1} (${(100 * answer.probs[k][i]).toFixed(0)}%)`).join(' → ');
    metrics.innerHTML =
      `${escapeHtml(t('pointer.order'))} ${escapeHtml(steps)}<br>` +
      escapeHtml(
        t('pointer.metrics', {
          correct: t(answer.correct ? 'pointer.yes' : 'pointer.no'),
          cover: (100 * answer.areaCoverage).toFixed(1),
        })
      ) +
      (el.heldOut
        ? `<br>${escapeHtml(t('pointer.heldout', { acc: (100 * el.heldOut.sequenceAccuracy).toFixed(1), cover: (100 * el.heldOut.areaCoverage).toFixed(1), n: el.heldOut.samples }))}`
        : '');
  }

  // Arrow keys move the cross-hair by 5 % of the square (1 % with Shift); Enter or Space adds a point.
  function key(e) {
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    const step = e.shiftKey ? 0.01 : 0.05;
    if (moves[e.key]) {
      e.preventDefault();
      caret = caret.map((v, k) => Math.round(Math.min(1, Math.max(0, v + step * moves[e.key][k])) * 100) / 100);
      draw();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      addPoint(...caret);
    } else return;
    el.caret = caret;
    caretAt.textContent = t('pointer.caret', { x: caret[0].toFixed(2), y: caret[1].toFixed(2), n: points.length });
  }

  function addPoint(x, y) {
    points.push([Math.min(1, Math.max(0, x)), Math.min(1, Math.max(0, y))]);
    answer = null;
    draw();
  }

  async function ensureSession() {
    const client = await ctx.worker();
    if (!session) {
      session =
        start === 'shipped' && shipped
          ? await client.loadSession(shipped.bytes, { task_options: LIVE.task_options, train: TUNE.train })
          : await client.createSession(LIVE);
    }
    return session;
  }

  // evaluate: also the held-out accuracy (200 point sets; once per trained state)
  async function point({ evaluate = true } = {}) {
    if (points.length < 3) {
      metrics.textContent = t('pointer.waiting', { n: points.length });
      return;
    }
    const s = await ensureSession();
    const asked = JSON.stringify(points);
    try {
      const a = await s.decode(points.flat(), points.length);
      if (JSON.stringify(points) !== asked) return; // the reader changed the points meanwhile: this answer is for another set
      const order = [...a.order],
        exact = exactHull(points),
        n = points.length;
      const probs = order.map((_, k) => [...a.probs.slice(k * (n + 1), (k + 1) * (n + 1))]);
      const simple = isSimple(points, order);
      answer = {
        order,
        exact,
        probs,
        correct: order.length === exact.length && order.every((v, k) => v === exact[k]),
        areaCoverage: simple ? polygonArea(points, order) / polygonArea(points, exact) : 0,
      };
      if (evaluate) el.heldOut ??= await s.evaluate(200, 1);
    } catch (e) {
      answer = null;
      metrics.textContent = t('engine.error', { message: e.message });
      return;
    }
    draw();
    el.dispatchEvent(new CustomEvent('computed'));
  }

  // How long a chunk takes on this machine, and so the whole run (measured, not promised).
  let pace = null;
  const pacer = el.querySelector('.pointer-pace');
  function showPace(seconds, step) {
    if (seconds !== undefined) pace = { seconds, left: run.total - step - 1 };
    pacer.hidden = !pace;
    // the time left while there is some; once the run is over, only what a chunk took
    if (pace)
      pacer.textContent = t(pace.left > 0 ? 'pointer.pace' : 'pointer.paceDone', {
        chunk: CHUNK,
        s: pace.seconds.toFixed(1),
        left: Math.round(pace.left * pace.seconds),
      });
  }

  const randomPoints = () => {
    points.length = 0;
    let z = (seed++ * 2654435761) % 4294967296;
    const next = () => {
      z = (z * 1664525 + 1013904223) % 4294967296;
      return 0.05 + 0.9 * (z / 4294967296);
    };
    for (let i = 0; i < 8; i++) points.push([next(), next()]);
    answer = null;
    draw();
  };

  const run = createRun(el.querySelector('.run-host'), ctx, {
    total: Math.ceil(steps() / CHUNK),
    unit: CHUNK,
    async work(step) {
      const s = await ensureSession();
      if (points.length < 3) randomPoints();
      const t0 = performance.now();
      const r = await s.train(CHUNK);
      showPace((performance.now() - t0) / 1000, step);
      el.heldOut = null;
      const last = step + 1 >= run.total;
      await point({ evaluate: last }); // the squares follow the training; the held-out score at the end
      return { loss: r.losses.at(-1) };
    },
    async reset() {
      const s = session;
      session = null;
      answer = null;
      pace = null;
      showPace();
      draw();
      if (s) await s.dispose().catch(() => {});
    },
  });

  startSel.addEventListener('change', async () => {
    start = startSel.value;
    el.start = start;
    ctx.store.set({ start });
    run.total = Math.ceil(steps() / CHUNK);
    showNote();
    await run.reset();
  });
  el.querySelector('[name=point]').addEventListener('click', () => point());
  el.querySelector('[name=clear]').addEventListener('click', () => {
    points.length = 0;
    answer = null;
    draw();
  });
  el.querySelector('[name=random]').addEventListener('click', randomPoints);
  draw();
  showNote();
  return {
    start: run.start,
    pause: run.pause,
    reset: run.reset,
    relabel() {
      run.render();
      draw();
      showNote();
      showPace();
    },
    unmount() {
      run.dispose();
      el.innerHTML = '';
    },
  };
}
