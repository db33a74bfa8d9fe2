// The multihead demo's settings that its caption quotes (web/demos/common/facts.js fills them).
// HEADS: the paper's Table 3 (A) head counts at one width (d_k = 64, 16, 4, 2: the same arithmetic
// for each); MUTE_N held-out examples measure muting.
export const HEADS = [1, 4, 16, 32];
export const D_MODEL = 64;
export const MUTE_N = 32;
export const FACTS = {
  heads: HEADS,
  dModel: D_MODEL,
  models: HEADS.length,
  maxHeads: HEADS.at(-1),
  minHeads: HEADS[0],
  muteN: MUTE_N,
};
