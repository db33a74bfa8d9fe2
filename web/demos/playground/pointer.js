// The playground's pointer network (Vinyals, Fortunato & Jaitly 2015): its tasks and sizes,
// the session config, one held-out point set to watch, the heatmap of the engine's pointer
// distributions on it (rows = output steps, columns = input points then "end"), and the
// engine's held-out metrics as text, for sessions trained here or checkpoints imported.
import { t } from '../../i18n/index.js';
import { trainDefaults } from './train.js';

// Point counts per task; tsp stays at 8 points so its exact optimal tours are cheap to score.
export const POINTER_TASKS = {
  'convex-hull': { n_min: 5, n_max: 10 },
  tsp: { n_min: 5, n_max: 8 },
  sort: { n_min: 5, n_max: 10 },
};
export const POINTER_SIZES = {
  small: { hidden: 32, embed: 32, lr: 0.005 },
  medium: { hidden: 64, embed: 64, lr: 0.003 },
};

// The engine refuses a call whose estimated work exceeds its bound (cpp/models/cost.hpp), before
// any of it runs: "<call>: this call would take about <cost> units of work (...), <times> times
// the <bound> one call may do; <advice>". An imported checkpoint whose measure would cost too much
// (a crafted file with 1,000-point sets held the Worker, and every other demo with it, for
// minutes) is refused that way: {n, hidden, times} from the engine's error and the checkpoint's
// info, for the reader's language, or null for any other error.
export function tooCostly(error, info) {
  const m =
    /this call would take about ([\d.e+]+) units of work .*?, ([\d.e+]+) times the ([\d.e+]+) one call may do/.exec(
      String(error?.message ?? '')
    );
  if (!m) return null;
  const times = Number(m[2]);
  return {
    n: Number(info?.task_options?.n_max ?? info?.task_options?.n ?? 0),
    hidden: Number(info?.config?.hidden ?? 0),
    times: times >= 10 ? Math.round(times).toLocaleString('en-US') : times.toFixed(1),
  };
}

export function pointerConfig(task, size, seed) {
  const z = POINTER_SIZES[size];
  return {
    model: { model: 'pointer', hidden: z.hidden, embed: z.embed, glimpse: true },
    task,
    task_options: POINTER_TASKS[task],
    seed,
    train: trainDefaults('pointer', { lr: z.lr }),
  };
}

// One held-out point set of the task's largest size: {n, dim, x: number[n*dim], target}.
export async function pointerExample(session, task) {
  const e = await session.examples(1, { n: POINTER_TASKS[task].n_max, split: 'test', seed: 4 });
  return { n: e.n, dim: e.dim, x: Array.from(e.x), target: [...e.target[0]] };
}

// Inputs just past the trained range, to see whether the answers hold up (tsp stops at the
// engine's limit of 10 points).
export function longerRange(task) {
  const { n_max } = POINTER_TASKS[task];
  return { n_min: n_max + 1, n_max: task === 'tsp' ? 10 : n_max + 5 };
}

const path = (order) => order.map((i) => i + 1).join(' → ');

// The decode the engine returned for the example, as a heatmap: [steps, n + 1] weights, each
// row the distribution of one output step over the n points and the end mark.
export function pointerMap(data, example) {
  if (!data?.probs || !example) return null;
  const S = data.n + 1,
    T = data.probs.length / S;
  const order = [...data.order];
  return {
    T,
    S,
    order,
    weights: Float32Array.from(data.probs),
    rowLabels: Array.from({ length: T }, (_, k) =>
      k < order.length ? `${k + 1}: ${order[k] + 1}` : `${k + 1}: ${t('pg.end')}`
    ),
    colLabels: [...Array.from({ length: data.n }, (_, i) => String(i + 1)), t('pg.end')],
  };
}

export function exampleText(example, order, task) {
  return t('pg.pointer.example', {
    n: example.n,
    task: t(`pg.taskName.${task}`),
    target: path(example.target),
    order: order ? path(order) : '…',
  });
}

const pct = (x) => (100 * x).toFixed(1);

// The engine's evaluation as one line: pointer metrics by task (pointer: the session is a
// pointer network's), or the seq2seq ones. Every model's evaluation has the same camelCase keys.
export function metricsText(ev, task, pointer) {
  if (!pointer) {
    return t('pg.metrics.seq', {
      n: ev.samples,
      loss: ev.loss.toFixed(3),
      tok: pct(ev.tokenAccuracy),
      acc: pct(ev.sequenceAccuracy),
    });
  }
  if (task === 'convex-hull') {
    return t('pg.metrics.hull', {
      n: ev.samples,
      acc: pct(ev.sequenceAccuracy),
      cover: pct(ev.areaCoverage),
      invalid: pct(ev.invalidRate),
    });
  }
  if (task === 'tsp') {
    return t('pg.metrics.tsp', {
      n: ev.samples,
      acc: pct(ev.sequenceAccuracy),
      tour: ev.tourLength.toFixed(3),
      opt: ev.optimalTourLength.toFixed(3),
    });
  }
  return t('pg.metrics.sort', { n: ev.samples, acc: pct(ev.sequenceAccuracy) });
}
