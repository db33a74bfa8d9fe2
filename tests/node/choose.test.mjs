// The "Trains on: Auto" verdict (web/gpu/choose.js) on scripted sessions and a scripted clock:
// each backend is timed as a run trains (chunks of several steps, one read-back each) over at
// least three chunks after a warm-up, the faster median per step wins, one slow chunk (a
// compile, a GC pause) does not decide it, and a session that fails on either side is reported
// as a failure with its message, not as "slower" or "faster".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackendChooser } from '../../web/gpu/choose.js';

// Sessions whose train(k) advance a shared clock by script[backend](call, k) ms; every call is
// logged (backend, steps).
function scripted(script, { dispose = () => {} } = {}) {
  let clock = 0;
  const calls = [];
  const createSession = async (engine, config) => {
    const backend = config.backend === 'webgpu' ? 'webgpu' : 'wasm';
    let n = 0;
    return {
      info: () => ({ task: 'reverse' }),
      train: async (k) => {
        const ms = script[backend](n++, k);
        if (ms instanceof Error) throw ms;
        clock += ms;
        calls.push({ backend, k });
        return { losses: new Float32Array(k) };
      },
      dispose: () => dispose(backend),
    };
  };
  const events = [];
  const chooser = new BackendChooser({}, (m) => events.push(m), 'auto', { createSession, now: () => clock });
  chooser.gpu = Promise.resolve({ name: 'Scripted GPU' });
  return { chooser, calls, events };
}

const config = { model: { model: 'transformer' }, task: 'reverse', seed: 1 };

test('auto: the median of at least three timed chunks decides, not one slow chunk', async () => {
  // WebGPU: 5 ms a step, but its first timed chunk stalls (a late pipeline compile); wasm: 6 ms
  // (calls: 0 the warm-up, 1 and 2 the sizing step and chunk, 3 on the timed chunks)
  const { chooser, calls, events } = scripted({
    webgpu: (n, k) => (n === 0 ? 400 : n === 3 ? 200 * k : 5 * k),
    wasm: (n, k) => (n === 0 ? 50 : 6 * k),
  });
  assert.equal(await chooser.forCreate(config), 'webgpu');
  const v = events.at(-1);
  assert.equal(v.event, 'engine');
  assert.equal(v.backend, 'webgpu');
  assert.equal(v.adapter, 'Scripted GPU');
  assert.equal(v.ms.webgpu, 5);
  assert.equal(v.ms.wasm, 6);
  for (const b of ['webgpu', 'wasm']) {
    const timed = calls.filter((c) => c.backend === b).slice(3); // after the warm-up and sizing calls
    assert.ok(timed.length >= 3, `${b}: ${timed.length} timed chunks`);
    // a chunk is several steps read back once, as a run's chunks are (about 50 ms of steps)
    assert.ok(
      timed.every((c) => c.k > 1),
      `${b}: chunk sizes ${timed.map((c) => c.k)}`
    );
  }
});

test('auto: a chunk is sized as a run sizes it, read-back included, so a slow read-back is amortized as in the run', async () => {
  // WebGPU: a read-back of 30 ms a chunk and 1 ms a step (a run's chunks of about 50 ms hold 20
  // steps: 2.5 ms a step); wasm: 4 ms a step, nothing to read back. One step's 31 ms alone would
  // size WebGPU's chunks at one step and time it at 31 ms a step.
  const { chooser, calls, events } = scripted({
    webgpu: (n, k) => 30 + k,
    wasm: (n, k) => 4 * k,
  });
  assert.equal(await chooser.forCreate(config), 'webgpu');
  const v = events.at(-1);
  assert.equal(v.backend, 'webgpu');
  const timed = calls.filter((c) => c.backend === 'webgpu').slice(3);
  assert.equal(timed.length, 3);
  assert.ok(
    timed.every((c) => c.k >= 8),
    `WebGPU chunk sizes ${timed.map((c) => c.k)}`
  );
  assert.ok(v.ms.webgpu < 5 && v.ms.wasm === 4, JSON.stringify(v.ms));
  // a step that fills a chunk on its own is timed a step at a time, without a sizing chunk
  const slow = scripted({ webgpu: (n, k) => 5 + 60 * k, wasm: (n, k) => 80 * k });
  assert.equal(await slow.chooser.forCreate(config), 'webgpu');
  assert.deepEqual(
    slow.calls.map((c) => c.k),
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
  );
});

test('auto: wasm wins when its median is faster, with both medians shown', async () => {
  const { chooser, events } = scripted({
    webgpu: (n, k) => (n < 2 ? 100 : n === 3 ? 1 * k : 9 * k), // one lucky chunk
    wasm: (n, k) => 4 * k,
  });
  assert.equal(await chooser.forCreate(config), 'cpu');
  const v = events.at(-1);
  assert.deepEqual([v.backend, v.reason, v.ms], ['wasm', 'slower', { webgpu: 9, wasm: 4 }]);
});

test('auto: a WebGPU session that fails is reported as a failure with its reason, not as slower', async () => {
  for (const failAt of [0, 3]) {
    const { chooser, events } = scripted({
      webgpu: (n, k) => (n === failAt ? new Error('WebGPU: out of memory for 1048576 bytes') : 5 * k),
      wasm: (n, k) => 50 * k,
    });
    assert.equal(await chooser.forCreate(config), 'cpu');
    const v = events.at(-1);
    assert.equal(v.backend, 'wasm');
    assert.equal(v.reason, 'failed', `failing at call ${failAt}`);
    assert.match(v.detail, /out of memory/);
    assert.equal(v.ms, undefined);
  }
});

test('auto: a WebGPU session lost while timed, whose dispose then throws, is still reported as a failure', async () => {
  const { chooser, events } = scripted(
    {
      webgpu: (n, k) => (n === 2 ? new Error('WebGPU: the device was lost (destroyed)') : 5 * k),
      wasm: (n, k) => 50 * k,
    },
    {
      dispose: (backend) => {
        // the C++ session's release reaches Module.gpuTable, gone with the device
        if (backend === 'webgpu') throw new TypeError("Cannot read properties of null (reading 'release')");
      },
    }
  );
  assert.equal(await chooser.forCreate(config), 'cpu');
  const v = events.at(-1);
  assert.deepEqual([v.backend, v.reason], ['wasm', 'failed']);
  assert.match(v.detail, /device was lost/);
});

test('auto: a wasm session that fails is reported as a failure with its message; WebGPU trains the model', async () => {
  for (const failAt of [0, 3]) {
    const { chooser, events } = scripted({
      webgpu: (n, k) => 50 * k, // slow, but the CPU cannot train the model at all
      wasm: (n, k) => (n === failAt ? new Error('memory access out of bounds') : 5 * k),
    });
    assert.equal(await chooser.forCreate(config), 'webgpu');
    const v = events.at(-1);
    assert.equal(v.backend, 'webgpu');
    assert.equal(v.reason, 'wasm-failed', `failing at call ${failAt}`);
    assert.match(v.detail, /out of bounds/);
    assert.deepEqual(v.ms, { webgpu: 50, wasm: null });
  }
});

test('auto: the verdict is kept per model config (the seed aside)', async () => {
  const { chooser, calls } = scripted({ webgpu: (n, k) => 2 * k, wasm: (n, k) => 3 * k });
  assert.equal(await chooser.forCreate(config), 'webgpu');
  const n = calls.length;
  assert.equal(await chooser.forCreate({ ...config, seed: 9 }), 'webgpu');
  assert.equal(calls.length, n);
});
