// The one WebAssembly loader. Picks the build: the pthread build (engine/attnlab-mt.mjs) when
// threads are asked for and the context is cross-origin isolated (SharedArrayBuffer usable),
// else the relaxed-SIMD build (engine/attnlab-relaxed.mjs: its GEMM and row kernels use
// f32x4.relaxed_madd, one FMA where the CPU has it) when WebAssembly.validate accepts a tiny
// relaxed-SIMD module, else the single-thread SIMD128 build (engine/attnlab.mjs). A build that
// fails to load falls back to engine/attnlab.mjs. `base` is the page's base URL; a
// Worker passes the URL its page gave it, since its own location is elsewhere. The result is
// the synchronous engine API of api.js; its info() names the build that loaded and, for the
// threaded one, its pool size (poolSize: navigator.hardwareConcurrency capped at 8). Its pthread
// pool holds 2 * poolSize - 1 workers: the kernels' poolSize - 1 and as many again for a
// session that trains on thread ranks (train.thread_split, api/model_session.hpp), whose rank
// threads run beside the kernel workers; a thread started with the pool empty would wait on this
// Worker's event loop, which a blocked step never returns to.
// `files` (optional) maps engine file names ('attnlab.mjs', 'attnlab.wasm', ...) to the URLs to
// load them from instead of engine/<name> under `base` (the npm package passes bundler-visible
// URLs). The files may live on another origin (a CDN): the module and the wasm are then fetched
// with CORS, and the pthread build's worker script is started through a same-origin Blob.
import { wrapModule } from './api.js';

/* global __ATTNLAB_ENGINE_HASHES__ */
// The content hash of each engine file of this build (scripts/web/engine-hashes.mjs), put in its
// URL so that a new release never runs the engine an HTTP cache kept from the last one; empty
// where this module is used unbuilt (node, the npm package, the dev server).
const HASHES = typeof __ATTNLAB_ENGINE_HASHES__ === 'object' ? __ATTNLAB_ENGINE_HASHES__ : {};
export const engineFileUrl = (file, base) =>
  new URL(`engine/${file}${HASHES[file] ? `?v=${HASHES[file]}` : ''}`, base).href;

export const MAX_POOL = 8;
export const poolSize = () => Math.max(1, Math.min(MAX_POOL, globalThis.navigator?.hardwareConcurrency || 4));
// The pthread workers started for a pool of `threads` (see above).
export const pthreadWorkers = (threads) => 2 * threads - 1;

// What a Worker started now would run: its build and thread count (the page shows it).
export function expectedEngine() {
  const build = pickBuild(true);
  return { build, threads: build === 'wasm-mt' ? poolSize() : 1, fma: build === 'wasm-relaxed' };
}

// A short, language-neutral label for the engine that runs: "WebAssembly SIMD128 · 1 thread",
// "WebAssembly SIMD128 · 4 threads" (+ " · FMA" when the build has relaxed-SIMD FMA). With a
// session's thread plan (`plan`: its info().threads) on ranks: "· 4 threads as ranks"; on ranks
// that split their kernel calls: "· 2 ranks × 4 threads".
export function engineLabel({ build, threads, kernelThreads, poolSize: pool, fma, plan } = {}) {
  const n = build === 'wasm-mt' ? (pool ?? kernelThreads ?? threads ?? 1) : 1;
  const mt = build === 'wasm-mt' && plan?.ranks > 1;
  const count =
    mt && plan.mode === 'ranks'
      ? `${plan.ranks} threads as ranks`
      : mt && plan.mode === 'both'
        ? `${plan.ranks} ranks × ${plan.kernel_threads} threads`
        : `${n} thread${n === 1 ? '' : 's'}`;
  return `WebAssembly SIMD128 · ${count}${fma || build === 'wasm-relaxed' ? ' · FMA' : ''}`;
}

const pending = new Map();

export function threadsAvailable() {
  return Boolean(globalThis.crossOriginIsolated) && typeof SharedArrayBuffer === 'function';
}

// (func (param v128 v128 v128) (result v128) local.get 0 local.get 1 local.get 2
//  f32x4.relaxed_madd): valid only where the engine has relaxed SIMD with the standard opcode
// 0xfd 0x105 (Chromium >= 114, node >= 22 or 20 with --experimental-wasm-relaxed-simd).
const RELAXED_PROBE = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, 0x03,
  0x02, 0x01, 0x00, 0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, 0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01,
  0x20, 0x02, 0xfd, 0x85, 0x02, 0x0b,
]);

export function relaxedSimdAvailable() {
  try {
    return WebAssembly.validate(RELAXED_PROBE);
  } catch {
    return false;
  }
}

// threads: 'auto' (default: only inside a Worker, where blocking waits are allowed), true, false.
// relaxed: 'auto' (default: where the browser validates relaxed SIMD) or false (never).
export function pickBuild(threads = 'auto', relaxed = 'auto') {
  const inWorker = typeof document === 'undefined';
  const want = threads === 'auto' ? inWorker : Boolean(threads);
  if (want && threadsAvailable()) return 'wasm-mt';
  return relaxed !== false && relaxedSimdAvailable() ? 'wasm-relaxed' : 'wasm';
}

const MODULE_NAMES = { wasm: 'attnlab', 'wasm-mt': 'attnlab-mt', 'wasm-relaxed': 'attnlab-relaxed' };

// A URL of another origin (pthread workers are classic scripts: `new Worker(url)` refuses them).
function crossOrigin(url) {
  const here = globalThis.location?.origin;
  return Boolean(here) && here !== 'null' && new URL(url).origin !== here;
}

// The pthread workers import their script with importScripts (no CORS): a cross-origin isolated
// page takes it from another origin only with Cross-Origin-Resource-Policy. A server that sends
// CORS alone would leave the pool's workers failing and the engine never ready; a request of the
// same mode finds that out first, and the single-thread build loads instead.
async function pthreadScriptLoads(which, url) {
  if (which !== 'wasm-mt' || !crossOrigin(url) || typeof fetch !== 'function') return;
  try {
    await fetch(url, { mode: 'no-cors', cache: 'no-store' });
  } catch {
    throw new Error(
      `${url} is refused to this cross-origin isolated page (its server sends no Cross-Origin-Resource-Policy)`
    );
  }
}

// The pthread build's worker script as something `new Worker()` accepts from this origin.
function pthreadWorkerUrl(url) {
  if (!crossOrigin(url) || typeof Blob !== 'function') return url;
  return URL.createObjectURL(new Blob([`importScripts(${JSON.stringify(url)});`], { type: 'text/javascript' }));
}

export function loadEngine(
  base = globalThis.document?.baseURI ?? globalThis.location.href,
  { threads = 'auto', relaxed = 'auto', files = null } = {}
) {
  const build = pickBuild(threads, relaxed);
  const fileUrl = (file) => (files?.[file] ? new URL(files[file], base).href : engineFileUrl(file, base));
  const key = `${build} ${fileUrl(`${MODULE_NAMES[build]}.mjs`)}`;
  if (!pending.has(key)) {
    const load = (which) => {
      const name = MODULE_NAMES[which];
      const moduleUrl = fileUrl(`${name}.mjs`);
      const threads = poolSize();
      const started = performance.now();
      return pthreadScriptLoads(which, fileUrl(`${name}.worker.js`))
        .then(() => import(/* @vite-ignore */ moduleUrl))
        .then(async (ns) => {
          const mod = await ns.default({
            locateFile: (file) => (file.endsWith('.worker.js') ? pthreadWorkerUrl(fileUrl(file)) : fileUrl(file)),
            mainScriptUrlOrBlob: moduleUrl,
            threads: pthreadWorkers(threads), // the pthread pool (PTHREAD_POOL_SIZE=Module.threads)
          });
          const extra =
            which === 'wasm-mt'
              ? { poolSize: threads }
              : which === 'wasm-relaxed'
                ? { build: 'wasm-relaxed', fma: true }
                : {};
          return wrapModule(mod, { loadMs: performance.now() - started, ...extra });
        });
    };
    // A host that serves no pthread (or relaxed) build still gets an engine: the plain
    // single-thread one (info() then names 'wasm').
    pending.set(
      key,
      load(build).catch((e) => {
        if (build === 'wasm') throw e;
        console.warn(`attnlab: the ${build} engine did not load (${e.message}); using the single-thread build`);
        return load('wasm');
      })
    );
  }
  return pending.get(key);
}
