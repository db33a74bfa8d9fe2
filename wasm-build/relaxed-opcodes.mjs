// Post-link step of the relaxed-SIMD flavour (build/wasm-relaxed): rewrites every prototype
// relaxed fused multiply-add (0xfd 0xaf, LEB "fd af 01": f32x4.relaxed_fma / qfma, what
// Emscripten 3.1.6's clang 14 emits for __builtin_wasm_fma_f32x4) into the standard
// f32x4.relaxed_madd (0xfd 0x105, LEB "fd 85 02"), which Chromium >= 114 and node >= 22 accept
// (scripts/bench/relaxed-probe.mjs shows both encodings tried in each engine). Same length, so
// nothing else in the module moves. relaxed_madd(a, b, c) = a * b + c of the values pushed in
// that order, which is how simd::madd (cpp/kernels/simd.hpp) pushes them.
//
// Safety: the byte pattern could in principle also occur inside another instruction's
// immediates. The rewrite therefore counts the pattern in the code section and the
// f32x4.relaxed_fma instructions that binaryen's disassembler (wasm-dis) finds, and refuses
// unless the two agree (and are > 0), and unless the module then has no other prototype
// relaxed opcode left. Usage: node wasm-build/relaxed-opcodes.mjs FILE.wasm [...]
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const PROTOTYPE = [0xfd, 0xaf, 0x01];
const FINAL = [0xfd, 0x85, 0x02];

// [start, end) of the code section (id 10).
export function codeSection(bytes) {
  let p = 8;
  while (p < bytes.length) {
    const id = bytes[p++];
    let size = 0, shift = 0, b;
    do { b = bytes[p++]; size += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    if (id === 10) return [p, p + size];
    p += size;
  }
  throw new Error('no code section');
}

export function findPattern(bytes, pattern, [start, end]) {
  const at = [];
  for (let i = start; i + pattern.length <= end; i++)
    if (pattern.every((x, k) => bytes[i + k] === x)) at.push(i);
  return at;
}

export function rewrite(bytes, disassembled) {
  const section = codeSection(bytes);
  const at = findPattern(bytes, PROTOTYPE, section);
  const instructions = (disassembled.match(/\bf32x4\.relaxed_fma\b/g) ?? []).length;
  const others = disassembled.match(/\b(?:f32x4\.relaxed_fms|f64x2\.relaxed_fm[as]|relaxed_(?:swizzle|trunc|min|max|laneselect))\b/g) ?? [];
  if (!instructions) throw new Error('no f32x4.relaxed_fma in the module: was it compiled with -mrelaxed-simd and ATTNLAB_RELAXED_SIMD?');
  if (at.length !== instructions)
    throw new Error(`the byte pattern fd af 01 occurs ${at.length} times but the module has ${instructions} f32x4.relaxed_fma instructions: refusing to rewrite`);
  if (others.length) throw new Error(`other prototype relaxed-SIMD instructions present (${[...new Set(others)].join(', ')}): not rewritten`);
  const out = Uint8Array.from(bytes);
  for (const i of at) out.set(FINAL, i);
  return { bytes: out, count: at.length };
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) {
    const bytes = readFileSync(file);
    if (findPattern(bytes, FINAL, codeSection(bytes)).length && !findPattern(bytes, PROTOTYPE, codeSection(bytes)).length) {
      console.log(`relaxed-opcodes: ${file}: already rewritten`);
      continue;
    }
    const text = execFileSync('wasm-dis', ['--enable-simd', '--enable-relaxed-simd', '--all-features', file],
      { encoding: 'utf8', maxBuffer: 1 << 30 });
    const { bytes: out, count } = rewrite(bytes, text);
    writeFileSync(file, out);
    console.log(`relaxed-opcodes: ${file}: ${count} f32x4.relaxed_fma (0xaf) -> f32x4.relaxed_madd (0x105)`);
  }
}
