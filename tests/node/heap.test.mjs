// What a model costs in the engine's memory is given back: for each kind, a session created,
// trained, evaluated, decoded, saved, loaded back and disposed leaves the engine's allocator
// (mallinfo's bytes in use, info().heapUsedBytes) where it was before, a second time round too
// (no slow leak). WebAssembly memory itself never shrinks; what matters is that the next model
// reuses it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi, releaseEngine } from './engine.mjs';

const engine = await loadNodeApi('wasm');
after(() => releaseEngine(engine));

const SEQ = { task: 'reverse', task_options: { min_len: 2, max_len: 8, symbols: 8 }, seed: 2, train: { batch: 16 } };
const KINDS = {
  transformer: {
    ...SEQ,
    model: { model: 'transformer', d_model: 32, heads: 4, d_ff: 64, enc_layers: 2, dec_layers: 2, dropout: 0.1 },
  },
  rnnsearch: { ...SEQ, model: { model: 'rnnsearch', emb: 16, hidden: 32 } },
  luong: { ...SEQ, model: { model: 'luong', emb: 16, hidden: 32, score: 'general' } },
  pointer: {
    model: { model: 'pointer', hidden: 32, embed: 32, glimpse: true },
    task: 'sort',
    task_options: { n_min: 5, n_max: 10 },
    seed: 2,
    train: { batch: 8 },
  },
};

const used = () => engine.info().heapUsedBytes;

function lifecycle(config) {
  const s = engine.createSession(config);
  s.train(5);
  s.evaluate(64, 7);
  if (s.info().model === 'pointer') {
    const ex = s.examples(1, { n: 8, split: 'test', seed: 3 });
    s.decode(ex.x, ex.n);
  } else {
    const ex = s.examples(4, { split: 'test', seed: 3 });
    s.decode(ex.src, { beam: 3 });
    s.inspect(ex.src, ex.tgt);
  }
  const bytes = s.save({ optimizer: true });
  s.dispose();
  const back = engine.loadSession(bytes);
  back.train(2);
  back.dispose();
}

for (const [kind, config] of Object.entries(KINDS)) {
  test(`${kind}: a model's whole life gives the engine's memory back`, () => {
    lifecycle(config); // the first round may leave lasting allocations (caches, pools)
    const before = used();
    lifecycle(config);
    const mid = used();
    lifecycle(config);
    const end = used();
    assert.ok(Math.abs(mid - before) <= 4096, `${kind}: ${before} -> ${mid} bytes in use after a second round`);
    assert.ok(Math.abs(end - before) <= 4096, `${kind}: ${before} -> ${end} bytes in use after a third round`);
  });
}
