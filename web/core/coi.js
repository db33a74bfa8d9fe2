// Cross-origin isolation for static hosts. The threaded engine (build/wasm-mt) needs
// SharedArrayBuffer, which a browser gives only to a cross-origin isolated page, i.e. one served
// with COOP: same-origin and COEP: require-corp. The dev server sends them; a static host
// usually does not. crossOriginIsolate() then registers the page's own service worker
// (web/public/coi-sw.js, next to index.html), which adds the headers to every same-origin
// response, and reloads the page once when the worker first takes control. Where that cannot
// work it resolves with the reason, and the page runs the single-thread engine and says so:
//   'file'       the page was opened from file:// (no service workers there)
//   'insecure'   not a secure context (plain http on a host other than localhost)
//   'no-sw'      the browser offers no service workers (or they are disabled, e.g. private mode)
//   'iframe'     the page is inside another page's frame: the top-level page decides isolation
//   'sandbox'    the page runs in a sandboxed frame (an opaque origin): even asking for service
//                workers throws a SecurityError there
//   'no-effect'  the worker controls the page, a reload happened, yet the page is not isolated
//   'error'      registering the worker failed (message in `error`)
// Resolves {isolated: true, via: 'headers'|'service-worker'} or {isolated: false, reason, error?};
// while it reloads the page it never resolves.
const FLAG = 'attnlab-coi-reloaded';
// sessionStorage can throw (sandboxed frames, storage disabled): then no flag, no reload loop.
const flag = {
  get() {
    try {
      return globalThis.sessionStorage?.getItem(FLAG);
    } catch {
      return '1';
    }
  },
  set() {
    try {
      globalThis.sessionStorage?.setItem(FLAG, '1');
    } catch {
      /* see get() */
    }
  },
  clear() {
    try {
      globalThis.sessionStorage?.removeItem(FLAG);
    } catch {
      /* see get() */
    }
  },
};

// navigator.serviceWorker, or null where there is none or reading it throws (a sandboxed frame).
function serviceWorkers() {
  try {
    return globalThis.navigator?.serviceWorker ?? null;
  } catch {
    return null;
  }
}
const opaqueOrigin = () => globalThis.origin === 'null' || globalThis.location?.origin === 'null';

export async function crossOriginIsolate({ base = globalThis.document?.baseURI, script = 'coi-sw.js' } = {}) {
  const sw = serviceWorkers();
  if (globalThis.crossOriginIsolated) {
    flag.clear();
    return { isolated: true, via: sw?.controller ? 'service-worker' : 'headers' };
  }
  if (globalThis.location?.protocol === 'file:') return { isolated: false, reason: 'file' };
  if (opaqueOrigin()) return { isolated: false, reason: 'sandbox' };
  if (!globalThis.isSecureContext) return { isolated: false, reason: 'insecure' };
  if (!sw) return { isolated: false, reason: 'no-sw' };
  let framed = true;
  try {
    framed = globalThis.top !== globalThis.self;
  } catch {
    /* cross-origin parent */
  }
  if (framed) return { isolated: false, reason: 'iframe' };
  if (sw.controller && flag.get()) return { isolated: false, reason: 'no-effect' };
  try {
    const url = new URL(script, base);
    await sw.register(url.href, { scope: new URL('./', url).href });
    // `ready` never settles for a page outside the worker's scope: give up after 5 s.
    await Promise.race([
      sw.ready,
      new Promise((_, reject) => setTimeout(() => reject(new Error('service worker not ready after 5 s')), 5000)),
    ]);
  } catch (e) {
    return { isolated: false, reason: e?.name === 'SecurityError' ? 'no-sw' : 'error', error: String(e?.message ?? e) };
  }
  if (flag.get()) return { isolated: false, reason: 'no-effect' };
  flag.set();
  // The worker claims this page on activation; reload once it controls it (or at once if it
  // already does: a worker of an earlier visit that served this page before it was updated).
  if (!sw.controller) {
    await new Promise((resolve) => {
      sw.addEventListener('controllerchange', resolve, { once: true });
      setTimeout(resolve, 3000);
    });
  }
  globalThis.location.reload();
  return new Promise(() => {});
}
