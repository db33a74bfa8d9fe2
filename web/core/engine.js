// The one WebAssembly loader. Picks the build: the pthread build (engine/attnlab-mt.mjs) when
// threads are asked for and the context is cross-origin isolated (SharedArrayBuffer usable),
// else the single-thread SIMD build (engine/attnlab.mjs). `base` is the page's base URL; a
// Worker passes the URL its page gave it, since its own location is elsewhere. The result is
// the synchronous engine API of api.js; its info() names the build that loaded.
import { wrapModule } from './api.js';

const pending = new Map();

export function threadsAvailable() {
  return Boolean(globalThis.crossOriginIsolated) && typeof SharedArrayBuffer === 'function';
}

// threads: 'auto' (default: only inside a Worker, where blocking waits are allowed), true, false.
export function pickBuild(threads = 'auto') {
  const inWorker = typeof document === 'undefined';
  const want = threads === 'auto' ? inWorker : Boolean(threads);
  return want && threadsAvailable() ? 'wasm-mt' : 'wasm';
}

export function loadEngine(base = globalThis.document?.baseURI ?? globalThis.location.href, { threads = 'auto' } = {}) {
  const build = pickBuild(threads);
  const key = `${build} ${base}`;
  if (!pending.has(key)) {
    const load = (which) => {
      const name = which === 'wasm-mt' ? 'attnlab-mt' : 'attnlab';
      const moduleUrl = new URL(`engine/${name}.mjs`, base).href;
      const hw = globalThis.navigator?.hardwareConcurrency || 4;
      const started = performance.now();
      return import(/* @vite-ignore */ moduleUrl).then(async (ns) => {
        const mod = await ns.default({
          locateFile: (file) => new URL(`engine/${file}`, base).href,
          mainScriptUrlOrBlob: moduleUrl,
          threads: Math.max(1, Math.min(8, hw)),
        });
        return wrapModule(mod, { loadMs: performance.now() - started });
      });
    };
    // A host that serves no pthread build still gets an engine: the single-thread one (info()
    // then names 'wasm').
    pending.set(key, load(build).catch((e) => {
      if (build !== 'wasm-mt') throw e;
      console.warn(`attnlab: the threaded engine did not load (${e.message}); using the single-thread build`);
      return load('wasm');
    }));
  }
  return pending.get(key);
}
