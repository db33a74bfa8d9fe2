// The one WebAssembly loader: fetches and instantiates the Embind module built into
// public/engine/ (attnlab.mjs + attnlab.wasm). `base` is the page's base URL; a Worker passes
// the URL its page gave it, since its own location is elsewhere.
let pending = null;

export function loadEngine(base = globalThis.document?.baseURI ?? globalThis.location.href) {
  if (!pending) {
    const moduleUrl = new URL('engine/attnlab.mjs', base).href;
    pending = import(/* @vite-ignore */ moduleUrl).then((ns) =>
      ns.default({ locateFile: (file) => new URL(`engine/${file}`, base).href }),
    );
  }
  return pending;
}
