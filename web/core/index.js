// The engine package's entry: the Worker-backed client, the direct loader, persistence.
import { createEngine as createWith } from './client.js';

export { connectEngine, EngineClient, RemoteSession, moduleWorker } from './client.js';

// createEngine() with this folder's worker.js (bundlers see the `new Worker(new URL(...))`).
export function createEngine(opts = {}) {
  return createWith({ worker: () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }), ...opts });
}
export { loadEngine, pickBuild, threadsAvailable, relaxedSimdAvailable } from './engine.js';
export { crossOriginIsolate } from './coi.js';
export { ModelStore, readCheckpoint, downloadCheckpoint, checkpointBlob } from './persist.js';
