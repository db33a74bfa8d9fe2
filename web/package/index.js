// attnlab for the browser and bundlers (`import { loadEngine, createEngine } from 'attnlab'`).
// The same API as the page's engine package (lib/ = web/core/), with the engine files found
// beside this module: each is named by a literal `new URL('./engine/…', import.meta.url)`, which
// bundlers (Vite, webpack 5, Parcel, esbuild with its file loader) copy into the application,
// and which an unbundled page resolves against wherever the package is served (a CDN too).
import { createEngine as createWith, moduleWorker } from './lib/client.js';
import { loadEngine as loadWith } from './lib/engine.js';

export { connectEngine, EngineClient, RemoteSession, moduleWorker } from './lib/client.js';
export { pickBuild, threadsAvailable, relaxedSimdAvailable, engineLabel, expectedEngine } from './lib/engine.js';
export { crossOriginIsolate } from './lib/coi.js';
export { ModelStore, readCheckpoint, downloadCheckpoint, checkpointBlob } from './lib/persist.js';

export const version = '__ATTNLAB_VERSION__';

// The URL of every engine file this package ships, by name.
export function engineFiles() {
  return {
    'attnlab.mjs': new URL('./engine/attnlab.mjs', import.meta.url).href,
    'attnlab.wasm': new URL('./engine/attnlab.wasm', import.meta.url).href,
    'attnlab-relaxed.mjs': new URL('./engine/attnlab-relaxed.mjs', import.meta.url).href,
    'attnlab-relaxed.wasm': new URL('./engine/attnlab-relaxed.wasm', import.meta.url).href,
    'attnlab-mt.mjs': new URL('./engine/attnlab-mt.mjs', import.meta.url).href,
    'attnlab-mt.wasm': new URL('./engine/attnlab-mt.wasm', import.meta.url).href,
    'attnlab-mt.worker.js': new URL('./engine/attnlab-mt.worker.js', import.meta.url).href,
  };
}

// This module's folder. Not written `new URL('./', import.meta.url)`: bundlers take that pattern for
// an asset reference, and Vite 8 inlines it as a data: URL that no engine file resolves against.
const here = () => import.meta.url.slice(0, import.meta.url.lastIndexOf('/') + 1);

// A base URL of your own (a folder holding engine/) overrides the packaged files.
const where = (base, files) => (base ? { base, files } : { base: here(), files: files ?? engineFiles() });

// The engine on this thread, synchronous calls (attention maps, softmax, small models).
export function loadEngine(base, { threads = 'auto', relaxed = 'auto', files = null } = {}) {
  const w = where(base, files);
  return loadWith(w.base, { threads, relaxed, files: w.files });
}

// A Worker that owns the engine; every call is async and training reports progress.
export function createEngine({ base = null, threads = 'auto', files = null, worker = null } = {}) {
  const start =
    worker ??
    (() => {
      try {
        return new Worker(new URL('./lib/worker.js', import.meta.url), { type: 'module' });
      } catch {
        // Served from another origin: a same-origin Blob Worker that imports it.
        return moduleWorker(new URL('./lib/worker.js', import.meta.url));
      }
    });
  return createWith({ ...where(base, files), threads, worker: start });
}
