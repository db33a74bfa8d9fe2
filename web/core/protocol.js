// The typed message protocol between the page (client.js) and the Worker (worker.js,
// runtime.js). Requests carry an `id` and get exactly one reply; events carry no id.
//
// page -> worker
//   {id, type: 'init', base, threads, backend, threadSplit} -> reply: engine info
//                          (backend: 'auto' | 'webgpu' | 'wasm', see web/gpu/choose.js;
//                          threadSplit: 'kernels' | 'auto', see THREAD_SPLITS)
//   {id, type: 'call', fn, args}                          -> reply: result of engine[fn](...args)
//   {id, type: 'create', config}                          -> reply: {session, info}
//   {id, type: 'load', bytes, overrides}                  -> reply: {session, info}
//   {id, type: 'session', session, method, args}          -> reply: result of session[method](...args)
//   {id, type: 'train', session, steps, chunkMs, snapshot} -> reply: {steps, losses, cancelled, step}
//   {id, type: 'dispose', session}                        -> reply: true
//   {id, type: 'backend', choice}                         -> reply: {choice} (for models created next)
//   {id, type: 'thread-split', split}                     -> reply: {split} (for models created next)
//   {id, type: 'gpu-lose'}                                -> reply: whether a WebGPU device was destroyed
//   {type: 'pause' | 'resume' | 'cancel', session}        (no reply; state events follow)
//   {type: 'snapshot-ack', session}                       (the page drew the session's last snapshot)
// worker -> page
//   {id, ok: true, result} | {id, ok: false, error: {name, message}}
//   {event: 'progress', session, step, loss, losses, tokensPerSec, lr, done, total, readBack?}
//                          readBack (WebGPU): the step of the last state read back
//   {event: 'snapshot', session, step, data}   latest-wins: at most one unacknowledged
//   {event: 'state', session, state: 'training' | 'paused' | 'idle'}
//   {event: 'engine', backend: 'webgpu' | 'wasm', adapter?, gemm?, reason?, detail?, ms?, session?,
//    step?}
//                          the backend a new model got, or a WebGPU run's fall back to wasm
//                          reason: 'chosen' | 'none' | 'failed' | 'slower' | 'lost'; with backend
//                          'webgpu': 'wasm-failed' (Auto: the CPU side failed while timed) or none
export const REQUESTS = [
  'init',
  'call',
  'create',
  'load',
  'session',
  'train',
  'dispose',
  'backend',
  'thread-split',
  'gpu-lose',
];
// How the pthread build's threads share a model's training step when its config does not say
// (train.thread_split, api/model_session.hpp): 'kernels' splits every kernel call, the same bits
// on any number of cores; 'auto' lets the engine's cost model pick, which takes thread ranks for
// the guide's Transformers (faster, but bits that depend on the thread count).
export const THREAD_SPLITS = ['kernels', 'auto'];
export const CONTROLS = ['pause', 'resume', 'cancel', 'snapshot-ack'];
export const EVENTS = ['progress', 'snapshot', 'state', 'engine'];

// Engine functions callable through {type: 'call'}.
export const CALLS = [
  'info',
  'setThreads',
  'attention',
  'timeAttention',
  'softmax',
  'positionalEncoding',
  'contentAddress',
  'estimateBytes',
  'modelKinds',
  'kindInfo',
  'taskNames',
  'lmScore',
];
// Session methods callable through {type: 'session'}.
export const SESSION_METHODS = [
  'info',
  'trainBatch',
  'evaluate',
  'decode',
  'inspect',
  'examples',
  'save',
  'encodeText',
  'decodeText',
  'pieces',
  'translate',
];

export function errorPayload(e) {
  return { name: e?.name ?? 'Error', message: e?.message ?? String(e) };
}

// The engine's TypeError and RangeError arrive as the same types on the page's side.
const ERROR_TYPES = { TypeError, RangeError };

export function toError(p) {
  const e = new (ERROR_TYPES[p?.name] ?? Error)(p?.message ?? String(p));
  if (p?.name && p.name !== 'Error') e.cause = p.name;
  return e;
}

// The ArrayBuffers inside a result (typed arrays, nested in arrays/objects), for transfer.
export function transferables(x, out = [], seen = new Set()) {
  if (x && typeof x === 'object') {
    if (ArrayBuffer.isView(x)) {
      if (!seen.has(x.buffer) && !(typeof SharedArrayBuffer === 'function' && x.buffer instanceof SharedArrayBuffer)) {
        seen.add(x.buffer);
        out.push(x.buffer);
      }
    } else if (Array.isArray(x)) x.forEach((v) => transferables(v, out, seen));
    else for (const v of Object.values(x)) transferables(v, out, seen);
  }
  return out;
}
