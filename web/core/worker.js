// The Web Worker that owns the engine: loads the WebAssembly module on 'init' (the threaded
// build when the page is cross-origin isolated, else the relaxed-SIMD one where the browser has
// it, else the plain SIMD128 one; engine.js picks) and hands every message to the runtime.
import { loadEngine } from './engine.js';
import { Runtime } from './runtime.js';

const runtime = new Runtime(
  (msg, transfer) => self.postMessage(msg, transfer),
  ({ base, threads, relaxed, files }) =>
    loadEngine(base, { threads: threads ?? 'auto', relaxed: relaxed ?? 'auto', files })
);
self.onmessage = (e) => runtime.handle(e.data);
