// The Web Worker that owns the engine: loads the WebAssembly module (threaded build when the
// page is cross-origin isolated) on 'init' and hands every message to the runtime.
import { loadEngine } from './engine.js';
import { Runtime } from './runtime.js';

const runtime = new Runtime(
  (msg, transfer) => self.postMessage(msg, transfer),
  ({ base, threads }) => loadEngine(base, { threads: threads ?? 'auto' }),
);
self.onmessage = (e) => runtime.handle(e.data);
