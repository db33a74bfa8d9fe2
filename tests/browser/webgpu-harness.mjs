// Shared by the WebGPU kernel tests: headless Chromium with WebGPU on SwiftShader, the table of
// web/gpu/ loaded from a static server of web/, a runner that uploads buffers, makes table calls
// and reads results back, and seeded data and a tolerance check.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root, serveDir } from './harness.mjs';
import { webgpuArgs } from '../../scripts/lib/chromium-flags.mjs';

// headless Chromium with WebGPU on SwiftShader (scripts/lib/chromium-flags.mjs, as the bench rows)
export const GPU_ARGS = webgpuArgs('swiftshader');

let server, context, page, dir;

// Registers the browser's set-up and tear-down; returns a proxy to the page for page.evaluate.
export function gpuPage() {
  before(async () => {
    server = await serveDir(path.join(root, 'web'));
    dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-webgpu-'));
    context = await chromium.launchPersistentContext(dir, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: GPU_ARGS,
    });
    page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(String(e)));
    await page.goto(`${server.url}gpu/table.js`); // same origin as the modules; the document is not used
    const opened = await page.evaluate(async () => {
      const { openGpu, GpuTable } = await import('/gpu/table.js');
      const gpu = await openGpu();
      const errors = [];
      gpu.device.addEventListener('uncapturederror', (e) => errors.push(e.error.message));
      window.gpuTest = { table: new GpuTable(gpu.device, { arenaBytes: 1 << 16 }), errors };
      return gpu.name;
    });
    assert.match(opened, /swiftshader/i);
  });
  after(async () => {
    await context?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    evaluate: (...a) => page.evaluate(...a),
    get errors() {
      return page.errors;
    },
  };
}

// Runs `calls` on the table: buffers {name: {type: 'f32' | 'i32' | 'u8', data}} are uploaded into
// one allocation each; an argument {buf, off} is that buffer's address plus `off` elements (also
// as a field of an object argument).
// Returns the float contents of `outs` after the calls.
export async function onGpu(buffers, calls, outs) {
  const plain = Object.fromEntries(
    Object.entries(buffers).map(([k, v]) => [k, { type: v.type, data: Array.from(v.data) }])
  );
  const r = await page.evaluate(
    async ({ plain, calls, outs }) => {
      const { table, errors } = window.gpuTest;
      const T = { f32: Float32Array, i32: Int32Array, u8: Uint8Array };
      const at = {};
      for (const [k, { type, data }] of Object.entries(plain)) {
        const arr = T[type].from(data, (v) => (v === null ? NaN : v));
        at[k] = { addr: table.alloc(arr.byteLength), size: arr.BYTES_PER_ELEMENT, n: arr.length };
        table.upload(at[k].addr, arr);
      }
      // {buf, off}: an address; {big}: a BigInt; any other object (a GEMM epilogue): its fields so
      const arg = (a) =>
        a && typeof a === 'object' && 'buf' in a
          ? at[a.buf].addr + (a.off ?? 0) * at[a.buf].size
          : a && typeof a === 'object' && 'big' in a
            ? BigInt(a.big)
            : a && typeof a === 'object'
              ? Object.fromEntries(Object.entries(a).map(([k, v]) => [k, arg(v)]))
              : a;
      for (const [name, ...args] of calls) table[name](...args.map(arg));
      const out = {};
      for (const k of outs) out[k] = Array.from(await table.readFloats(at[k].addr, at[k].n));
      for (const k of Object.keys(at)) table.release(at[k].addr);
      return { out, errors: errors.splice(0) };
    },
    { plain, calls, outs }
  );
  assert.deepEqual(r.errors, [], 'WebGPU validation errors');
  return r.out;
}

let seed = 12345;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return (seed / 2147483648) * 2 - 1;
};
export const f32 = (n, scale = 1) => Float32Array.from({ length: n }, () => rnd() * scale);
export const close = (got, want, tol, what) => {
  assert.equal(got.length, want.length, `${what}: length`);
  let worst = 0,
    at = -1;
  for (let i = 0; i < want.length; ++i) {
    const e = Math.abs(got[i] - want[i]) / (1 + Math.abs(want[i]));
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  assert.ok(worst <= tol, `${what}: error ${worst} at ${at} (got ${got[at]}, want ${want[at]}) over ${tol}`);
};
