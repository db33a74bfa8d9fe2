// `bahdanau` section demo settings, shared by the page and its tests: the tasks offered, the RNNsearch and
// optimizer the page trains, and the held-out draw the engine scores (alignment error rate on
// dates and phrases, whose gold alignments the engine knows).
export const TASKS = {
  reverse: { task: 'reverse', task_options: { min_len: 5, max_len: 8, symbols: 10 } },
  phrases: { task: 'phrases', task_options: { n_min: 2, n_max: 6 } },
  dates: { task: 'dates', task_options: {} },
};

// Tasks whose held-out evaluation brings an alignment error rate.
export const ALIGNED = new Set(['phrases', 'dates']);

// Scoring 200 examples costs about as much as 30 training steps, so the page asks for it about
// once a second (and at the end of a run), not with every heatmap refresh.
export const HELD_OUT = { samples: 200, seed: 2015, everyMs: 1000 };

export function sessionConfig(task, seed) {
  return {
    model: { model: 'rnnsearch', emb: 24, hidden: 48, attn: 48 }, ...TASKS[task], seed,
    train: { batch: 32, schedule: 'constant', lr: 0.01, clip: 1 },
  };
}
