// Loads the node flavours of the Embind module for node tests, handing them the .wasm bytes
// directly so no fetch is involved:
//   build/wasm/attnlab-node.cjs         single-thread SIMD build
//   build/wasm-mt/attnlab-mt-node.cjs   pthread build (its pool workers are node worker_threads)
// loadNodeEngine() gives the raw module, loadNodeApi() the web/core/api.js wrapper over it.
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapModule } from '../../web/core/api.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const wasmDir = path.join(root, 'build', 'wasm');
export const wasmMtDir = path.join(root, 'build', 'wasm-mt');
export const nativeCli = path.join(root, 'build', 'native', 'attn');

const FLAVOURS = {
  wasm: { dir: wasmDir, name: 'attnlab-node', hint: 'npm run build:engine' },
  'wasm-mt': { dir: wasmMtDir, name: 'attnlab-mt-node', hint: 'node scripts/build.mjs (builds build/wasm-mt)' },
};

export function hasBuild(build) {
  const f = FLAVOURS[build];
  return existsSync(path.join(f.dir, `${f.name}.cjs`));
}

export async function loadNodeEngine(build = 'wasm', { threads = 2 } = {}) {
  const f = FLAVOURS[build];
  const js = path.join(f.dir, `${f.name}.cjs`);
  if (!existsSync(js)) throw new Error(`${js} is missing: run ${f.hint} first`);
  const require = createRequire(import.meta.url);
  const create = require(js);
  return create({ wasmBinary: readFileSync(path.join(f.dir, `${f.name}.wasm`)), threads });
}

export async function loadNodeApi(build = 'wasm', opts = {}) {
  const t0 = performance.now();
  const mod = await loadNodeEngine(build, opts);
  return wrapModule(mod, { loadMs: performance.now() - t0 });
}

// Stops a pthread build's pool workers so the test process can exit.
export function releaseEngine(api) {
  const pt = api?.module?.PThread;
  if (!pt) return;
  for (const w of [...pt.unusedWorkers, ...pt.runningWorkers]) w.terminate();
}

// A Runtime and its client over a real MessageChannel, as between a page and its Worker. The
// ports are closed when test `t` ends, pass or fail: an open port keeps node's event loop (and
// with it the test file's process) alive.
export async function workerClient(t, engine) {
  const { Runtime } = await import('../../web/core/runtime.js');
  const { connectEngine } = await import('../../web/core/client.js');
  const ch = new MessageChannel();
  t.after(() => {
    ch.port1.close();
    ch.port2.close();
  });
  const runtime = new Runtime(
    (m, tr) => ch.port2.postMessage(m, tr),
    async () => engine
  );
  ch.port2.addEventListener('message', (e) => runtime.handle(e.data));
  ch.port2.start();
  return { client: await connectEngine(ch.port1), runtime, channel: ch };
}
