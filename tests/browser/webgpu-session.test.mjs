// Model sessions on the WebGPU backend (web/gpu/backend.js, cpp/kernels/webgpu_table.cpp) in
// headless Chromium's WebGPU on SwiftShader, against the wasm engine's CPU kernels in the same
// page: 20 training steps of config S (a Transformer, d_model 64, 4 heads, d_ff 256, 2 + 2
// layers, batch 32, dropout 0.1) give losses within 1e-4 relative and weights within 1e-3; the
// steps read nothing back (the table's read count does not move while they are encoded, and a
// synchronous read without a prefetch would throw) and encode no more dispatches than
// MAX_DISPATCHES_S a step (config M's, at batch 2, no more than MAX_DISPATCHES_M); a step that
// is not finite stops the run at the same step, with the same message, as on the CPU; the other
// model kinds train; GPU memory in use stays flat from one chunk of steps to the next; and a
// session on a lost device fails naming WebGPU and disposes cleanly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuPage } from './webgpu-harness.mjs';
import { CONFIGS, sessionConfig } from '../../bench/rows/configs.mjs';

const page = gpuPage();

// Dispatches a config S training step (below) encodes at most: the table's count, the same on
// every adapter. A fusion undone (web/gpu/table.js, the fused entries of kernels.hpp) raises it.
// A train call makes one more (its first step zeroes the step guard's state when no earlier
// step is unsettled: model_session.cpp).
const MAX_DISPATCHES_S = 117;
// The same for the bench's config M (bench/rows/configs.mjs: d_model 128, d_ff 512, 4 heads,
// 2 + 2 layers, dropout 0), counted at batch 2: a step's dispatches do not depend on the batch
// (attention's products cover batch × heads in one dispatch), so the count is config M's.
const MAX_DISPATCHES_M = 117;

const S = {
  model: { model: 'transformer', d_model: 64, heads: 4, d_ff: 256, enc_layers: 2, dec_layers: 2, dropout: 0.1 },
  task: 'reverse',
  seed: 3,
  train: { batch: 32, warmup: 100, label_smoothing: 0.1 },
};

// Loads the plain wasm engine into the page once; returns what page.evaluate needs by name.
const setup = async () =>
  page.evaluate(async () => {
    if (window.eng) return true;
    const ns = await import('/public/engine/attnlab.mjs');
    const mod = await ns.default({ locateFile: (f) => `/public/engine/${f}` });
    const { wrapModule } = await import('/core/api.js');
    const gpu = await import('/gpu/backend.js');
    window.eng = { engine: wrapModule(mod), mod, gpu };
    // the float32 tensors of a .safetensors file, in header order
    window.eng.tensors = (bytes) => {
      const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
      const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
      const out = {};
      for (const [k, v] of Object.entries(header)) {
        if (k === '__metadata__' || v.dtype !== 'F32') continue;
        const [a, b] = v.data_offsets;
        out[k] = Array.from(new Float32Array(bytes.slice(8 + n + a, 8 + n + b).buffer));
      }
      return out;
    };
    return true;
  });

test('config S: 20 steps on WebGPU match the wasm engine, and encoding them reads nothing', async () => {
  await setup();
  const r = await page.evaluate(async (S) => {
    const { engine, mod, gpu, tensors } = window.eng;
    const cpu = engine.createSession(S);
    const g = await gpu.createSession(engine, { ...S, backend: 'webgpu' });
    const table = mod.gpuTable;
    const info = g.info();
    const reads = table.reads,
      dispatches = table.dispatches;
    const raw = g.inner.train(20); // encodes the 20 steps
    const readsWhileEncoding = table.reads - reads;
    const encoded = table.dispatches - dispatches;
    const got = await g.settle(raw);
    const want = cpu.train(20);
    const gw = tensors(await g.save()),
      cw = tensors(cpu.save());
    let worst = 0,
      count = 0,
      where = '';
    // The key bias of attention (in_proj_bias[d, 2d)) has a gradient that is zero in exact
    // arithmetic (q·b_k is the same for every key of a query, and softmax ignores it), so both
    // engines feed Adam rounding noise there, which it scales to ±lr a step: those weights
    // are left out. Every other weight is compared.
    const d = S.model.d_model;
    for (const k of Object.keys(cw))
      for (let i = 0; i < cw[k].length; ++i) {
        if (k.endsWith('in_proj_bias') && i >= d && i < 2 * d) continue;
        const e = Math.abs(gw[k][i] - cw[k][i]) / (1 + Math.abs(cw[k][i]));
        if (e > worst) where = `${k}[${i}]: ${gw[k][i]} vs ${cw[k][i]}`;
        worst = Math.max(worst, e);
        count += 1;
      }
    const ev = await g.evaluate(50, 9);
    const dec = await g.decode([[3, 4, 5, 6]]);
    const out = {
      backend: info.backend,
      readsWhileEncoding,
      pending: raw.pending,
      nanLosses: Array.from(raw.losses).every(Number.isNaN),
      encoded,
      gpu: Array.from(got.losses),
      cpu: Array.from(want.losses),
      step: g.info().step,
      worst,
      where,
      count,
      evalLoss: ev.loss,
      cpuEvalLoss: cpu.evaluate(50, 9).loss,
      decoded: dec[0].length,
    };
    g.dispose();
    cpu.dispose();
    return out;
  }, S);
  assert.equal(r.backend, 'webgpu');
  assert.equal(r.readsWhileEncoding, 0, 'a training step read GPU memory back');
  assert.equal(r.pending, 20);
  assert.ok(r.nanLosses, 'the engine reported losses it cannot have read');
  assert.equal(r.step, 20);
  assert.ok(
    r.encoded > 50 * 20 && r.encoded <= MAX_DISPATCHES_S * 20 + 1,
    `dispatches in 20 steps: ${r.encoded} (at most ${MAX_DISPATCHES_S} a step, and 1)`
  );
  for (let i = 0; i < 20; ++i) {
    const e = Math.abs(r.gpu[i] - r.cpu[i]) / Math.abs(r.cpu[i]);
    assert.ok(e <= 1e-4, `step ${i + 1}: loss ${r.gpu[i]} on WebGPU, ${r.cpu[i]} on wasm (relative ${e})`);
  }
  assert.ok(r.count > 100000, `compared ${r.count} weights`);
  assert.ok(r.worst <= 1e-3, `weights differ by ${r.worst} (${r.where})`);
  assert.ok(
    Math.abs(r.evalLoss - r.cpuEvalLoss) <= 1e-3 * (1 + r.cpuEvalLoss),
    `eval ${r.evalLoss} vs ${r.cpuEvalLoss}`
  );
  assert.ok(r.decoded >= 1);
  assert.deepEqual(page.errors, []);
});

test("config M's step (at batch 2) encodes at most MAX_DISPATCHES_M dispatches, whatever the batch", async () => {
  await setup();
  const M = sessionConfig(CONFIGS.M);
  const r = await page.evaluate(
    async (cfgs) => {
      const { engine, mod, gpu } = window.eng;
      const counts = [];
      for (const cfg of cfgs) {
        const g = await gpu.createSession(engine, { ...cfg, backend: 'webgpu' });
        const table = mod.gpuTable;
        await g.settle(g.inner.train(1));
        const before = table.dispatches,
          submits = table.submits;
        const raw = g.inner.train(2);
        counts.push(table.dispatches - before, table.submits - submits);
        const got = await g.settle(raw);
        counts.push(Array.from(got.losses).every(Number.isFinite));
        g.dispose();
      }
      return counts;
    },
    [2, 3].map((batch) => ({ ...M, train: { ...M.train, batch } }))
  );
  const [encoded2, submitted2, finite2, encoded3, submitted3, finite3] = r;
  assert.ok(finite2 && finite3, 'the steps trained');
  assert.equal(encoded2, encoded3, 'the same dispatches at batch 2 and 3');
  // two steps, and the call's one zeroing of the guard's state (as in the 20 steps above)
  assert.ok(
    encoded2 > 2 * 50 && encoded2 <= 2 * MAX_DISPATCHES_M + 1,
    `dispatches in 2 steps: ${encoded2} (at most ${MAX_DISPATCHES_M} a step, and 1)`
  );
  // their token ids are staged between the dispatches (GpuTable.upload), so the call submits at
  // most once (here where it allocates zeroed memory: the arena clears it on the queue after
  // what is pending; the table also submits when something is read, or at 4096 dispatches)
  assert.ok(submitted2 <= 1 && submitted3 <= 1, `submits while 2 steps were encoded: ${submitted2}, ${submitted3}`);
  assert.deepEqual(page.errors, []);
});

test('a step that is not finite stops the run where the CPU stops it, weights kept', async () => {
  await setup();
  const r = await page.evaluate(async () => {
    const { engine, gpu, tensors } = window.eng;
    // a rate so large that the first update overflows the next step's loss
    const cfg = {
      model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout: 0 },
      task: 'reverse',
      seed: 1,
      train: { batch: 8, schedule: 'constant', lr: 1e30, clip: 0 },
    };
    const msg = async (f) => {
      try {
        await f();
        return null;
      } catch (e) {
        return e.message;
      }
    };
    const cpu = engine.createSession(cfg);
    const g = await gpu.createSession(engine, { ...cfg, backend: 'webgpu' });
    const cpuMsg = await msg(() => {
      for (let i = 0; i < 4; ++i) cpu.train(1);
    });
    const gpuMsg = await msg(() => g.train(4));
    const before = tensors(await g.save());
    const again = await msg(() => g.train(2));
    const after = tensors(await g.save());
    const same = Object.keys(before).every((k) => before[k].every((v, i) => Object.is(v, after[k][i])));
    return { cpuMsg, gpuMsg, cpuStep: cpu.info().step, gpuStep: g.info().step, again, same };
  });
  assert.match(r.cpuMsg ?? '', /training step \d+: the (loss|gradient norm) is not finite/);
  assert.equal(r.gpuMsg?.replace(/\(loss .*\)/, ''), r.cpuMsg?.replace(/\(loss .*\)/, ''));
  assert.equal(r.gpuStep, r.cpuStep);
  assert.ok(r.again, 'training on from non-finite weights stops again');
  assert.ok(r.same, 'a step that was not finite changed the weights');
});

test('every model kind trains on WebGPU and matches the wasm engine', async () => {
  await setup();
  const kinds = [
    { model: { model: 'lm', d_model: 32, heads: 2, d_ff: 64, layers: 2, dropout: 0.1 }, task: 'reverse' },
    { model: { model: 'encoder', d_model: 32, heads: 2, d_ff: 64, layers: 2, dropout: 0.1 }, task: 'reverse' },
    { model: { model: 'rnnsearch', emb: 16, hidden: 24, attn: 24 }, task: 'dates' },
    { model: { model: 'rnnencdec', emb: 16, hidden: 24 }, task: 'dates' },
    { model: { model: 'luong', emb: 16, hidden: 24, score: 'dot' }, task: 'dates' },
    { model: { model: 'luong', emb: 16, hidden: 24, score: 'general' }, task: 'dates' },
    { model: { model: 'luong', emb: 16, hidden: 24, score: 'concat' }, task: 'dates' },
    { task: 'convex-hull', task_options: { n_min: 5, n_max: 7 } },
  ];
  const r = await page.evaluate(async (kinds) => {
    const { engine, gpu } = window.eng;
    const out = [];
    for (const k of kinds) {
      const cfg = { ...k, seed: 2, train: { ...(k.train ?? {}), batch: 8 } };
      const cpu = engine.createSession(cfg);
      const g = await gpu.createSession(engine, { ...cfg, backend: 'webgpu' });
      const want = Array.from(cpu.train(5).losses);
      const got = Array.from((await g.train(5)).losses);
      out.push({
        kind: g.info().model,
        backend: g.info().backend,
        cpuBackend: cpu.info().backend,
        want,
        got,
        step: g.info().step,
      });
      cpu.dispose();
      g.dispose();
    }
    return { out, registry: engine.modelKinds() };
  }, kinds);
  // config S's test above trains the transformer; this one every other kind of the registry
  const covered = new Set(['transformer', ...r.out.map((k) => k.kind)]);
  assert.deepEqual(
    r.registry.filter((k) => !covered.has(k)),
    [],
    'model kinds that no WebGPU test trains'
  );
  for (const k of r.out) {
    assert.equal(k.backend, 'webgpu', `${k.kind} trained on ${k.backend}`);
    assert.equal(k.cpuBackend, 'cpu', k.kind);
    assert.equal(k.step, 5, k.kind);
    for (let i = 0; i < 5; ++i) {
      const e = Math.abs(k.got[i] - k.want[i]) / Math.abs(k.want[i]);
      assert.ok(e <= 1e-4, `${k.kind} step ${i + 1}: ${k.got[i]} on WebGPU, ${k.want[i]} on wasm`);
    }
  }
});

// The float32 tensors and the training state (metadata attnlab_train) of a .safetensors file.
const meta = (bytes) => {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return JSON.parse(JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))).__metadata__.attnlab_train);
};

test('after a step that is not finite the run is the one that never took it: step, Adam and both generators rewound, on WebGPU and on the CPU', async () => {
  await setup();
  const r = await page.evaluate(async (metaSrc) => {
    const meta = eval(metaSrc);
    const { engine, gpu } = window.eng;
    // dropout on: the dropout generator moves every step; the rate overflows the second step
    const cfg = {
      model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1, dropout: 0.2 },
      task: 'reverse',
      seed: 5,
      train: { batch: 8, schedule: 'constant', lr: 1e30, clip: 0 },
    };
    const cpu = engine.createSession(cfg);
    let cpuMsg = null;
    try {
      for (let i = 0; i < 6; ++i) cpu.train(1);
    } catch (e) {
      cpuMsg = e.message;
    }
    const g = await gpu.createSession(engine, { ...cfg, backend: 'webgpu' });
    let gpuMsg = null;
    try {
      await g.train(6); // the bad step and those after it were encoded and run
    } catch (e) {
      gpuMsg = e.message;
    }
    const stopped = cpu.info().step;
    // the run that never took the bad step: `stopped` steps, then saved
    const never = engine.createSession(cfg);
    never.train(stopped);
    const want = never.save({ optimizer: true });
    const cpuBytes = cpu.save({ optimizer: true });
    const gpuMeta = meta(await g.save({ optimizer: true }));
    const pick = (m) => ({ step: m.step, adam_steps: m.adam_steps, data_rng: m.data_rng, dropout_rng: m.dropout_rng });
    const out = {
      cpuMsg,
      gpuMsg,
      stopped,
      gpuStep: g.info().step,
      want: pick(meta(want)),
      cpu: pick(meta(cpuBytes)),
      gpu: pick(gpuMeta),
      cpuSame: want.length === cpuBytes.length && want.every((b, i) => b === cpuBytes[i]),
    };
    for (const s of [cpu, g, never]) s.dispose();
    return out;
  }, `(${meta})`);
  assert.match(r.cpuMsg ?? '', /training step \d+: the (loss|gradient norm) is not finite/);
  assert.match(r.gpuMsg ?? '', /training step \d+: the (loss|gradient norm) is not finite/);
  assert.ok(r.stopped >= 1, `stopped after ${r.stopped} steps`);
  assert.equal(r.gpuStep, r.stopped);
  assert.ok(r.want.data_rng && r.want.dropout_rng, 'the checkpoint holds both generators');
  assert.deepEqual(r.cpu, r.want, 'the CPU run after the stop');
  assert.ok(r.cpuSame, "the CPU run's checkpoint after the stop is the one of the run that never took the bad step");
  assert.deepEqual(r.gpu, r.want, 'the WebGPU run after the stop');
});

test('a WebGPU session gives all its GPU memory back when disposed', async () => {
  await setup();
  const r = await page.evaluate(async (S) => {
    const { engine, mod, gpu } = window.eng;
    const cycle = async () => {
      const g = await gpu.createSession(engine, { ...S, backend: 'webgpu' });
      await g.train(3);
      await g.evaluate(10, 1);
      g.dispose();
      return mod.gpuTable.arena.usedBytes;
    };
    const first = await cycle(); // the table's own scratch is allocated once, here
    const second = await cycle();
    const third = await cycle();
    return { first, second, third };
  }, S);
  assert.equal(r.second, r.first, `GPU bytes in use after a second session: ${r.second}, after the first ${r.first}`);
  assert.equal(r.third, r.first);
});

test('GPU memory stays flat over a run: each step gives its workspace back to the arena', async () => {
  await setup();
  // fixed lengths, so every step needs the same workspace after the first
  const runs = [
    {
      model: { model: 'transformer', d_model: 32, heads: 2, d_ff: 64, enc_layers: 1, dec_layers: 1, dropout: 0.1 },
      task: 'reverse',
      task_options: { min_len: 8, max_len: 8 },
    },
    {
      model: { model: 'rnnsearch', emb: 16, hidden: 24, attn: 24 },
      task: 'reverse',
      task_options: { min_len: 7, max_len: 7 },
    },
    { task: 'convex-hull', task_options: { n_min: 6, n_max: 6 } },
  ];
  const r = await page.evaluate(async (runs) => {
    const { engine, mod, gpu } = window.eng;
    const out = [];
    for (const k of runs) {
      const g = await gpu.createSession(engine, { ...k, seed: 4, train: { batch: 8 }, backend: 'webgpu' });
      const arena = mod.gpuTable.arena;
      const seen = [];
      for (let chunk = 0; chunk < 8; ++chunk) {
        await g.train(3);
        if (chunk % 3 === 1) {
          await g.evaluate(8, 1);
          await g.save({ optimizer: true });
        }
        seen.push({ used: arena.usedBytes, blocks: arena.used.size, capacity: arena.capacity });
      }
      out.push({ kind: g.info().model, backend: g.info().backend, step: g.info().step, seen });
      g.dispose();
    }
    return out;
  }, runs);
  assert.equal(r.length, runs.length);
  for (const k of r) {
    assert.equal(k.backend, 'webgpu', k.kind);
    assert.equal(k.step, 24, k.kind);
    // the first chunk grows the workspace and allocates the records; later chunks add nothing
    const [first, ...later] = k.seen;
    for (const [i, s] of later.entries())
      assert.deepEqual(s, first, `${k.kind}: GPU memory after chunk ${i + 2} (first chunk: ${JSON.stringify(first)})`);
  }
  assert.deepEqual(page.errors, []);
});

test('a WebGPU session whose device was lost fails its next call with WebGPU in the message and disposes without an error', async () => {
  await setup();
  const r = await page.evaluate(async () => {
    // a module of its own: losing its device leaves the other tests' device alone
    const ns = await import('/public/engine/attnlab.mjs');
    const mod = await ns.default({ locateFile: (f) => `/public/engine/${f}` });
    const { wrapModule } = await import('/core/api.js');
    const { gpu } = window.eng;
    const engine = wrapModule(mod);
    const cfg = {
      model: { model: 'lm', d_model: 16, heads: 2, d_ff: 32, layers: 1 },
      task: 'reverse',
      seed: 1,
      train: { batch: 4 },
      backend: 'webgpu',
    };
    const g = await gpu.createSession(engine, cfg);
    const other = await gpu.createSession(engine, cfg);
    await g.train(2);
    g.lose();
    const lost = mod.gpuTable.device.lost;
    await lost;
    const message = async (f) => {
      try {
        await f();
        return null;
      } catch (e) {
        return String(e?.message ?? e);
      }
    };
    const trainErr = await message(() => g.train(1));
    const disposeErr = await message(() => g.dispose());
    const otherErr = await message(() => other.dispose());
    // the engine goes on: a CPU session of the same module trains
    const cpu = engine.createSession({ ...cfg, backend: 'cpu' });
    const steps = cpu.train(2).losses.length;
    cpu.dispose();
    return { trainErr, disposeErr, otherErr, steps, table: mod.gpuTable };
  });
  assert.match(r.trainErr ?? '', /^WebGPU: the device was lost/);
  assert.equal(r.disposeErr, null, 'dispose after the loss');
  assert.equal(r.otherErr, null, 'dispose of a session that never trained, after the loss');
  assert.equal(r.table, null, 'the lost table is detached from the module');
  assert.equal(r.steps, 2);
  assert.deepEqual(page.errors, []);
});
