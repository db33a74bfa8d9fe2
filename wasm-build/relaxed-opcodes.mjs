// Post-link step of the relaxed-SIMD flavour (build/wasm-relaxed): rewrites every prototype
// relaxed fused multiply-add (0xfd 0xaf, LEB "fd af 01": f32x4.relaxed_fma / qfma, what
// Emscripten 3.1.6's clang 14 emits for __builtin_wasm_fma_f32x4) into the standard
// f32x4.relaxed_madd (0xfd 0x105, LEB "fd 85 02"), which Chromium >= 114 and node >= 22 accept
// (bench/relaxed-probe.mjs shows both encodings tried in each engine). Same length, so
// nothing else in the module moves. relaxed_madd(a, b, c) = a * b + c of the values pushed in
// that order, which is how simd::madd (cpp/kernels/simd.hpp) pushes them.
//
// Safety: the byte pattern also occurs inside other instructions' immediates (an f32.const, a
// memarg, a v128.const). The rewrite therefore walks every function body instruction by
// instruction (instructionOffsets: each opcode's immediates are skipped by their encoding) and
// rewrites only opcodes, and it refuses unless their count equals the f32x4.relaxed_fma
// instructions that binaryen's disassembler (wasm-dis) finds (and is > 0), and unless the module
// has no other prototype relaxed opcode. Usage: node wasm-build/relaxed-opcodes.mjs FILE.wasm [...]
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const PROTOTYPE = [0xfd, 0xaf, 0x01];
const FINAL = [0xfd, 0x85, 0x02];

// [start, end) of the code section (id 10).
export function codeSection(bytes) {
  let p = 8;
  while (p < bytes.length) {
    const id = bytes[p++];
    let size = 0,
      shift = 0,
      b;
    do {
      b = bytes[p++];
      size += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    if (id === 10) return [p, p + size];
    p += size;
  }
  throw new Error('no code section');
}

export function findPattern(bytes, pattern, [start, end]) {
  const at = [];
  for (let i = start; i + pattern.length <= end; i++) if (pattern.every((x, k) => bytes[i + k] === x)) at.push(i);
  return at;
}

// Offsets of every 0xfd 0xaf 0x01 that is an opcode (not bytes of an immediate) in the code
// section [start, end): a walk over each function body's instructions, skipping immediates as
// the binary format encodes them (MVP, sign-extension, bulk memory, reference types, SIMD,
// atomics and exception handling).
export function instructionOffsets(bytes, [start, end]) {
  let p = start;
  const u = () => {
    let v = 0,
      shift = 0,
      b;
    do {
      b = bytes[p++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return v;
  };
  const skipLeb = () => {
    while (bytes[p++] & 0x80);
  };
  const memarg = () => {
    skipLeb();
    skipLeb();
  };
  const blocktype = () => {
    const b = bytes[p];
    if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) p++;
    else skipLeb();
  };
  const at = [];
  const count = u();
  for (let f = 0; f < count; f++) {
    const size = u(),
      bodyEnd = p + size;
    for (let groups = u(); groups > 0; groups--) {
      skipLeb();
      p++;
    } // locals: count, type
    while (p < bodyEnd) {
      const here = p,
        op = bytes[p++];
      if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x06) blocktype();
      else if (
        [0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x18, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xd2].includes(op)
      )
        skipLeb();
      else if (op === 0x0e) {
        for (let n = u(); n >= 0; n--) skipLeb();
      } // br_table: labels + default
      else if (op === 0x11 || op === 0x13) {
        skipLeb();
        skipLeb();
      } // call_indirect, return_call_indirect
      else if (op >= 0x28 && op <= 0x3e) memarg();
      else if (op === 0x3f || op === 0x40 || op === 0xd0) p++;
      else if (op === 0x41 || op === 0x42) skipLeb();
      else if (op === 0x43) p += 4;
      else if (op === 0x44) p += 8;
      else if (op === 0x1c) {
        for (let n = u(); n > 0; n--) p++;
      } // select t*
      else if (op === 0xfc) {
        const sub = u();
        if (sub === 8) {
          skipLeb();
          p++;
        } else if (sub === 10) p += 2;
        else if (sub === 11) p++;
        else if (sub === 12 || sub === 14) {
          skipLeb();
          skipLeb();
        } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) skipLeb();
        else if (sub > 17) throw new Error(`relaxed-opcodes: unknown 0xfc ${sub} at ${here}`);
      } else if (op === 0xfd) {
        const sub = u();
        if (sub <= 11 || sub === 92 || sub === 93) memarg();
        else if (sub === 12 || sub === 13) p += 16;
        else if (sub >= 21 && sub <= 34) p++;
        else if (sub >= 84 && sub <= 91) {
          memarg();
          p++;
        } else if (sub === 0xaf && bytes[here + 1] === 0xaf && bytes[here + 2] === 0x01) at.push(here);
      } else if (op === 0xfe) {
        const sub = u();
        if (sub === 3) p++;
        else memarg();
      } else if (op > 0xd2 && op !== 0xfc)
        throw new Error(`relaxed-opcodes: unknown opcode 0x${op.toString(16)} at ${here}`);
    }
    if (p !== bodyEnd) throw new Error(`relaxed-opcodes: function ${f} decoded past its end`);
  }
  if (p !== end) throw new Error('relaxed-opcodes: the code section decoded to a different length');
  return at;
}

export function rewrite(bytes, disassembled) {
  const section = codeSection(bytes);
  const at = instructionOffsets(bytes, section);
  const instructions = (disassembled.match(/\bf32x4\.relaxed_fma\b/g) ?? []).length;
  const others =
    disassembled.match(
      /\b(?:f32x4\.relaxed_fms|f64x2\.relaxed_fm[as]|relaxed_(?:swizzle|trunc|min|max|laneselect))\b/g
    ) ?? [];
  if (!instructions)
    throw new Error(
      'no f32x4.relaxed_fma in the module: was it compiled with -mrelaxed-simd and ATTNLAB_RELAXED_SIMD?'
    );
  if (at.length !== instructions)
    throw new Error(
      `the walk over the code found ${at.length} f32x4.relaxed_fma opcodes but wasm-dis finds ${instructions}: refusing to rewrite`
    );
  if (others.length)
    throw new Error(
      `other prototype relaxed-SIMD instructions present (${[...new Set(others)].join(', ')}): not rewritten`
    );
  const out = Uint8Array.from(bytes);
  for (const i of at) out.set(FINAL, i);
  return { bytes: out, count: at.length };
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) {
    const bytes = readFileSync(file);
    if (findPattern(bytes, FINAL, codeSection(bytes)).length && !instructionOffsets(bytes, codeSection(bytes)).length) {
      console.log(`relaxed-opcodes: ${file}: already rewritten`);
      continue;
    }
    const text = execFileSync('wasm-dis', ['--enable-simd', '--enable-relaxed-simd', '--all-features', file], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    const { bytes: out, count } = rewrite(bytes, text);
    writeFileSync(file, out);
    console.log(`relaxed-opcodes: ${file}: ${count} f32x4.relaxed_fma (0xaf) -> f32x4.relaxed_madd (0x105)`);
  }
}
