// The single-thread module stays small enough for the page: .wasm <= 1.5 MB and <= 500 KB
// gzipped, and node compiles + instantiates it in under 300 ms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { wasmDir, loadNodeEngine } from './engine.mjs';

test('attnlab.wasm is at most 1.5 MB, 500 KB gzipped', () => {
  const bytes = readFileSync(path.join(wasmDir, 'attnlab.wasm'));
  const gz = gzipSync(bytes, { level: 9 }).length;
  assert.ok(bytes.length <= 1.5 * 1024 * 1024, `attnlab.wasm is ${(bytes.length / 1024).toFixed(0)} KiB`);
  assert.ok(gz <= 500 * 1024, `gzipped ${(gz / 1024).toFixed(0)} KiB`);
});

test('the module compiles and instantiates in node in under 300 ms (best of 3)', async () => {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const mod = await loadNodeEngine('wasm');
    best = Math.min(best, performance.now() - t0);
    assert.equal(mod.info().build, 'wasm');
  }
  assert.ok(best < 300, `best of 3: ${best.toFixed(0)} ms`);
});
