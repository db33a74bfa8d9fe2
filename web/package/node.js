// attnlab for Node.js (`import { loadEngine, createEngine } from 'attnlab'` under node): the
// WebAssembly engine built for node (engine/attnlab-node.cjs + .wasm, SIMD128, one thread),
// with the same API as in the browser:
//   loadEngine()    the engine on this thread, synchronous calls
//   createEngine()  a worker_threads Worker owning it, async calls and progress events
// Checkpoints are the same .safetensors bytes the native `attn` tool and the page read and write.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { wrapModule } from './lib/api.js';
import { EngineClient } from './lib/client.js';

export { connectEngine, EngineClient, RemoteSession } from './lib/client.js';
export { engineLabel } from './lib/engine.js';
export { ModelStore, checkpointBlob, readCheckpoint } from './lib/persist.js';

export const version = '__ATTNLAB_VERSION__';

const require = createRequire(import.meta.url);
let engine = null;

// Node has one build: the single-thread SIMD128 module. `base` and the options are accepted for
// the browser's signature and ignored.
export function loadEngine() {
  engine ??= (async () => {
    const t0 = performance.now();
    const create = require('./engine/attnlab-node.cjs');
    const mod = await create({ wasmBinary: readFileSync(new URL('./engine/attnlab-node.wasm', import.meta.url)) });
    return wrapModule(mod, { loadMs: performance.now() - t0 });
  })();
  return engine;
}

export function pickBuild() {
  return 'wasm';
}
export function threadsAvailable() {
  return false;
}
export function relaxedSimdAvailable() {
  return false;
}

// The worker_threads Worker speaks the page's protocol; it keeps the process alive only while a
// request is pending, so a script ends when its work does (terminate() ends it at once).
export async function createEngine() {
  const w = new Worker(new URL('./node-worker.js', import.meta.url));
  const listeners = [];
  const port = {
    // Requests (they carry an id) hold the process until answered; acks and pause/cancel do not.
    postMessage(msg, transfer) {
      if (msg.id !== undefined) w.ref();
      w.postMessage(msg, transfer);
    },
    addEventListener(type, fn) {
      if (type === 'message') listeners.push(fn);
    },
    start() {},
  };
  const client = new EngineClient(port, { terminate: () => w.terminate() });
  w.on('message', (data) => {
    for (const fn of listeners) fn({ data });
    if (client.pending.size === 0) w.unref();
  });
  w.on('error', (e) => {
    for (const p of client.pending.values()) p.reject(new Error(`engine worker failed: ${e.message}`));
    client.pending.clear();
  });
  await client.init({});
  return client;
}
