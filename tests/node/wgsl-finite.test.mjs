// Finiteness in the WebGPU kernels (web/gpu/wgsl.js, wgsl-recurrent.js) is read from a float's
// bits: WGSL lets a compiler assume that floats are finite, so `x != x`, `x == x` and compares
// with the largest float may be folded to a constant (Metal and some Vulkan drivers do, and then
// a NaN loss would train on). The browser tests run SwiftShader, which does not fold them, so
// only the source can say which test a kernel makes: no kernel compares a value with itself or
// with ±FLT_MAX, and step_guard's test is the exponent mask.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KERNELS, source } from '../../web/gpu/wgsl.js';
import { RECURRENT } from '../../web/gpu/wgsl-recurrent.js';

const names = [...Object.keys(KERNELS), ...Object.keys(RECURRENT)];
// code only: comments say what the kernels avoid
const code = (name) => source(name).replace(/\/\/[^\n]*/g, '');

test('no WebGPU kernel tests a float for NaN or infinity by comparing it with itself or FLT_MAX', () => {
  assert.ok(names.length > 30, `${names.length} kernels`);
  const bad = [];
  for (const name of names) {
    const src = code(name);
    // x != x, x == x (also of a field or an element: a.b, mem[i])
    for (const m of src.matchAll(/([\w.]+(?:\[[^\]]*\])?)\s*(==|!=)\s*([\w.]+(?:\[[^\]]*\])?)/g))
      if (m[1] === m[3]) bad.push(`${name}: ${m[0]}`);
    // abs(x) <= FLT_MAX and the like; a -FLT_MAX used as a value (softmax's mask) is fine
    for (const m of src.matchAll(/(<=?|>=?|==|!=)\s*-?3\.40282\d*e\+?38|3\.40282\d*e\+?38\s*(<=?|>=?|==|!=)/g))
      bad.push(`${name}: ${m[0]}`);
    if (/\bisNan\b|\bisInf\b/.test(src)) bad.push(`${name}: isNan / isInf`);
  }
  assert.deepEqual(bad, []);
});

test('step_guard reads finiteness from the exponent bits and applies it to the loss and the norm', () => {
  const src = code('step_guard');
  assert.match(src, /fn finite\(x: f32\) -> bool \{ return \(bitcast<u32>\(x\) & 0x7f800000u\) != 0x7f800000u; \}/);
  assert.match(src, /!finite\(loss\) \|\| !finite\(norm\)/);
});
