// The worker_threads side of createEngine() in node: the page Worker's runtime over parentPort.
import { parentPort } from 'node:worker_threads';
import { Runtime } from './lib/runtime.js';
import { loadEngine } from './node.js';

const runtime = new Runtime(
  (msg, transfer) => parentPort.postMessage(msg, transfer),
  () => loadEngine()
);
parentPort.on('message', (msg) => runtime.handle(msg));
