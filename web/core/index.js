// The engine package's entry: the Worker-backed client, the direct loader, persistence.
export { createEngine, connectEngine, EngineClient, RemoteSession } from './client.js';
export { loadEngine, pickBuild, threadsAvailable, relaxedSimdAvailable } from './engine.js';
export { crossOriginIsolate } from './coi.js';
export { ModelStore, readCheckpoint, downloadCheckpoint, checkpointBlob } from './persist.js';
