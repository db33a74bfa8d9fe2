// The browser build really uses WebAssembly SIMD: its disassembly holds f32x4 instructions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { wasmDir } from './engine.mjs';

test('attnlab.wasm contains f32x4 SIMD instructions', () => {
  const text = execFileSync('wasm-dis', [path.join(wasmDir, 'attnlab.wasm')], { maxBuffer: 1 << 28 }).toString();
  const ops = text.match(/f32x4\.\w+/g) ?? [];
  const kinds = new Set(ops);
  assert.ok(ops.length >= 8, `only ${ops.length} f32x4 instructions`);
  assert.ok(kinds.has('f32x4.mul') && kinds.has('f32x4.add'), `f32x4 kinds: ${[...kinds].join(', ')}`);
});
