// Trains a small Transformer to reverse sequences from Node.js with attnlab's npm package: the
// engine runs in a worker thread and reports progress; the model is evaluated on held-out
// sequences and saved as .safetensors, the file the native `attn` tool, the C++ package and
// the page all read.
//   npm install attnlab && node train.mjs [steps = 400] [out = reverse.safetensors]
import { writeFileSync } from 'node:fs';
import { createEngine, version } from 'attnlab';

const steps = Number(process.argv[2] ?? 400);
const file = process.argv[3] ?? 'reverse.safetensors';

const engine = await createEngine();
console.log(`attnlab ${version}, engine ${engine.info.build}`);
// The same JSON as `attn train --config` and the C++ attnlab::Session::create.
const session = await engine.createSession({
  model: { model: 'transformer', d_model: 32, heads: 4, d_ff: 64, enc_layers: 2, dec_layers: 2, dropout: 0 },
  task: 'reverse',
  task_options: { min_len: 2, max_len: 6, symbols: 8 },
  seed: 1,
  train: { batch: 64, schedule: 'constant', lr: 0.003 },
});
console.log(`model: ${session.info.model}, ${session.info.params} parameters, task ${session.info.task}`);

let shown = 0;
session.on('progress', (p) => {
  if (p.done - shown >= 50 || p.done === p.total) {
    shown = p.done;
    console.log(
      `step ${String(p.step).padStart(4)}/${steps}  loss ${p.loss.toFixed(4)}  ${Math.round(p.tokensPerSec)} tokens/s`
    );
  }
});
const t0 = performance.now();
await session.train(steps);
console.log(`trained ${steps} steps in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const ev = await session.evaluate(500, 1234);
console.log(
  `held-out: loss ${ev.loss.toFixed(4)}, token accuracy ${ev.tokenAccuracy.toFixed(4)}, ` +
    `sequence accuracy ${ev.sequenceAccuracy.toFixed(4)} (${ev.samples} sequences)`
);

const ex = await session.examples(1);
const [reversed] = await session.decode(ex.src);
console.log(`reverse of [${ex.src[0].join(' ')}] -> [${reversed.join(' ')}] (expected [${ex.tgt[0].join(' ')}])`);

writeFileSync(file, await session.save());
console.log(`saved ${file}`);
engine.terminate();
