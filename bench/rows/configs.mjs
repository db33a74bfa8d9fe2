// The benchmark configs of the Transformer training rows, shared by the wasm, browser and WebGPU
// rows (this module imports no engine and no TF.js, so any of them can load it):
//   CONFIGS        S and M: vocabulary V, d_model C, heads H, d_ff F, layers per stack, source
//                  length len (copy task), batch, and the steps the wasm rows time
//   flopsOf(c)     model FLOPs of one training step (trainStepFlops of bench/peers/env.mjs)
//   sessionConfig  the engine's session config for a config: copy task, dropout 0, seed 1,
//                  constant learning rate 1e-3
import { trainStepFlops } from '../peers/env.mjs';

export const CONFIGS = {
  S: { V: 32, C: 64, H: 4, F: 256, layers: 2, len: 16, batch: 32, steps: 8 },
  M: { V: 32, C: 128, H: 4, F: 512, layers: 2, len: 32, batch: 32, steps: 4 },
};

// The copy task's batches: S = len source tokens, T = len + 1 target tokens (<s>/</s>).
export const flopsOf = (c) =>
  trainStepFlops({ B: c.batch, S: c.len, T: c.len + 1, C: c.C, F: c.F, V: c.V, enc: c.layers, dec: c.layers });

export const sessionConfig = (c) => ({
  model: {
    model: 'transformer',
    d_model: c.C,
    heads: c.H,
    d_ff: c.F,
    enc_layers: c.layers,
    dec_layers: c.layers,
    dropout: 0,
  },
  task: 'copy',
  task_options: { min_len: c.len, max_len: c.len, symbols: c.V - 3 },
  seed: 1,
  train: { batch: c.batch, schedule: 'constant', lr: 1e-3 },
});
