// `bahdanau` section demo settings, shared by the page and its tests: the tasks offered, the scores
// (RNNsearch's additive, Luong's dot / general / concat), the models and optimizer the page trains, and the held-out draw the engine scores (alignment error rate on
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

// The attention scores offered: Bahdanau's additive one (RNNsearch) and Luong's dot, general and
// concat (the engine's luong kind: global attention with input feeding). A Luong decoder state
// has the annotations' width (2 × hidden), so its encoder reads with 24 units each way to keep
// the decoder at RNNsearch's 48.
export const SCORES = ['additive', 'dot', 'general', 'concat'];

export function modelConfig(score = 'additive') {
  return score === 'additive'
    ? { model: 'rnnsearch', emb: 24, hidden: 48, attn: 48 }
    : { model: 'luong', emb: 24, hidden: 24, score };
}

export function sessionConfig(task, seed, score = 'additive') {
  return {
    model: modelConfig(score),
    ...TASKS[task],
    seed,
    train: { batch: 32, schedule: 'constant', lr: 0.01, clip: 1 },
  };
}
