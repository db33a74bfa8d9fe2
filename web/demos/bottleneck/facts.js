// The bottleneck demo's settings that its caption quotes (web/demos/common/facts.js fills them).
export const TASK_OPTIONS = { min_len: 3, max_len: 16, symbols: 10 };
export const HELD_OUT = 200; // held-out sequences decoded with each model after training
export const FACTS = { minLen: TASK_OPTIONS.min_len, maxLen: TASK_OPTIONS.max_len, heldOut: HELD_OUT };
