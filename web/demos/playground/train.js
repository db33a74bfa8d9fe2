// The playground's training defaults, the one place its config builders (index.js, owndata.js,
// pointer.js) take them from: per model, the batch, schedule, learning rate and clip. The
// playground's small widths train in fewer steps with larger learning rates than the engine's
// own defaults (the registry's), so these are its own.
const TRAIN = {
  transformer: { batch: 32, schedule: 'constant', lr: 0.003, clip: 1 },
  lm: { batch: 32, schedule: 'constant', lr: 0.003, clip: 1 },
  rnnsearch: { batch: 32, schedule: 'constant', lr: 0.01, clip: 1 },
  pointer: { batch: 64, lr: 0.003, clip: 2 },
};

// The train options of `model`, with `overrides` (e.g. a size's lr or a data set's batch) on top;
// a recurrent kind without a row of its own (Luong) trains as RNNsearch does.
export function trainDefaults(model, overrides = {}) {
  return { ...(TRAIN[model] ?? TRAIN.rnnsearch), ...overrides };
}
