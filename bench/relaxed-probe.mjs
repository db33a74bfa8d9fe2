// Relaxed-SIMD probe: can this machine's toolchain build a module that uses f32x4.relaxed_madd,
// and which engines accept it? Re-run with `node bench/relaxed-probe.mjs` (add --json
// for one JSON object). Not a bench module (no rows() export): bench/bench.mjs skips it.
//
// What it does:
//   1. compiles a tiny C function with Emscripten's clang (emcc -msimd128 -mrelaxed-simd), using
//      whichever relaxed multiply-add builtin that clang knows (__builtin_wasm_relaxed_madd_f32x4
//      in LLVM >= 16, __builtin_wasm_fma_f32x4 before), and prints the opcode bytes it emitted;
//   2. does the same with any newer Debian clang found (/usr/bin/clang-{22,19,16,15}), compiling
//      to a wasm32 object and linking it with Emscripten's wasm-ld;
//      and tries the whole Emscripten link with it: the object compiled by the newer clang
//      through em++ (EM_LLVM_ROOT pointing at a folder whose clang-14 names lead to it), linked
//      by em++ with a main compiled by Emscripten's own clang;
//   3. builds two reference modules by hand, one function each: (a*b+c) with the FINAL opcode
//      of the standard (0xfd 0x105, LEB 85 02) and with the PROTOTYPE opcode (0xfd 0xaf, LEB af 01)
//      that early LLVM emitted as f32x4.relaxed_fma / qfma;
//   4. asks WebAssembly.validate about every module in node (with and without
//      --experimental-wasm-relaxed-simd, run as child processes) and in headless Chromium
//      (/usr/bin/chromium via playwright-core), and for the node flag run also executes them.
// The final-opcode reference module is the one web/core/engine.js would use for feature detection.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const asJson = process.argv.includes('--json');
let tmp = null;
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };

// (func (export "f") (param v128 v128 v128) (result v128) local.get 0 local.get 1 local.get 2 <op>)
export function referenceModule(opcodeLeb) {
  const body = [0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, ...opcodeLeb, 0x0b];
  const code = [0x01, body.length, ...body];
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    0x01,
    0x08,
    0x01,
    0x60,
    0x03,
    0x7b,
    0x7b,
    0x7b,
    0x01,
    0x7b, // type: (v128 v128 v128) -> v128
    0x03,
    0x02,
    0x01,
    0x00, // function 0 has type 0
    0x07,
    0x05,
    0x01,
    0x01,
    0x66,
    0x00,
    0x00, // export "f" = function 0
    0x0a,
    code.length,
    ...code,
  ]);
}
const FINAL_MADD = [0x85, 0x02]; // 0x105 f32x4.relaxed_madd (standard)
const PROTOTYPE_FMA = [0xaf, 0x01]; // 0xaf  f32x4.relaxed_fma / qfma (LLVM 13-15 prototype)

const hex = (bytes) => Buffer.from(bytes).toString('hex').replace(/(..)/g, '$1 ').trim();

// Every SIMD (0xfd-prefixed) opcode in a module's code section, decoded from its LEB128.
function simdOpcodes(bytes) {
  const ops = [];
  let p = 8;
  while (p < bytes.length) {
    const id = bytes[p++];
    let size = 0,
      shift = 0,
      b;
    do {
      b = bytes[p++];
      size |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (id === 10) {
      for (let i = p; i < p + size - 1; i++) {
        if (bytes[i] !== 0xfd) continue;
        let op = 0,
          s = 0,
          j = i + 1,
          c;
        do {
          c = bytes[j++];
          op |= (c & 0x7f) << s;
          s += 7;
        } while (c & 0x80 && j < p + size);
        if (op >= 0xa0 && op !== 0xfd) ops.push({ opcode: `0x${op.toString(16)}`, bytes: hex(bytes.subarray(i, j)) });
      }
    }
    p += size;
  }
  return ops;
}

const C_SOURCE = (builtin) => `#include <wasm_simd128.h>
typedef float f32x4 __attribute__((vector_size(16)));
__attribute__((export_name("madd"))) void madd(float* o, const float* a, const float* b, const float* c) {
  f32x4 r = ${builtin}((f32x4)wasm_v128_load(a), (f32x4)wasm_v128_load(b), (f32x4)wasm_v128_load(c));
  wasm_v128_store(o, (v128_t)r);
}
`;

function compileEmcc() {
  const out = { compiler: null, builtin: null, ok: false };
  try {
    out.compiler = execFileSync('emcc', ['--version'], { env, encoding: 'utf8' }).split('\n')[0];
  } catch {
    out.error = 'emcc not found';
    return out;
  }
  for (const builtin of ['__builtin_wasm_relaxed_madd_f32x4', '__builtin_wasm_fma_f32x4']) {
    const src = path.join(tmp, `emcc-${builtin}.c`),
      wasm = src.replace(/\.c$/, '.wasm');
    writeFileSync(src, C_SOURCE(builtin));
    const r = spawnSync(
      'emcc',
      ['-O2', '-msimd128', '-mrelaxed-simd', src, '-o', wasm, '--no-entry', '-sSTANDALONE_WASM'],
      { env, encoding: 'utf8' }
    );
    if (r.status === 0) {
      Object.assign(out, { builtin, ok: true, file: wasm, opcodes: simdOpcodes(readFileSync(wasm)) });
      return out;
    }
    out[`error ${builtin}`] = r.stderr
      .split('\n')
      .find((l) => /error/.test(l))
      ?.trim();
  }
  return out;
}

// A newer Debian clang (not the one Emscripten 3.1.6 was built for): object file, then
// Emscripten's wasm-ld (the same one its links use).
function compileNewerClang() {
  const tries = [];
  for (const v of [22, 19, 16, 15]) {
    const clang = `/usr/bin/clang-${v}`;
    if (!existsSync(clang)) continue;
    const t = { compiler: clang };
    const src = path.join(tmp, `clang${v}.c`),
      obj = src.replace(/\.c$/, '.o'),
      wasm = src.replace(/\.c$/, '.wasm');
    writeFileSync(
      src,
      C_SOURCE('__builtin_wasm_relaxed_madd_f32x4').replace(
        '#include <wasm_simd128.h>',
        'typedef int v128_t __attribute__((vector_size(16)));\n#define wasm_v128_load(p) (*(const v128_t*)(p))\n#define wasm_v128_store(p, v) (*(v128_t*)(p) = (v))'
      )
    );
    const c = spawnSync(clang, ['--target=wasm32', '-O2', '-msimd128', '-mrelaxed-simd', '-c', src, '-o', obj], {
      encoding: 'utf8',
    });
    if (c.status !== 0) {
      t.error = c.stderr.trim().split('\n')[0];
      tries.push(t);
      continue;
    }
    const l = spawnSync('/usr/bin/wasm-ld', ['--no-entry', '--export=madd', obj, '-o', wasm], { encoding: 'utf8' });
    if (l.status !== 0) {
      t.error = `wasm-ld (Emscripten's, LLVM 14): ${l.stderr.trim().split('\n')[0]}`;
      const l2 =
        existsSync(`/usr/bin/wasm-ld-${v}`) &&
        spawnSync(`/usr/bin/wasm-ld-${v}`, ['--no-entry', '--export=madd', obj, '-o', wasm], { encoding: 'utf8' });
      if (l2 && l2.status === 0) t.linked_with = `/usr/bin/wasm-ld-${v}`;
      else {
        tries.push(t);
        continue;
      }
    } else t.linked_with = '/usr/bin/wasm-ld';
    Object.assign(t, { ok: true, file: wasm, opcodes: simdOpcodes(readFileSync(wasm)) });
    tries.push(t);
  }
  return tries;
}

// Emscripten 3.1.6 with a newer clang for one translation unit: compile (em++ runs
// "<EM_LLVM_ROOT>/clang++-14", so a folder of links gives it the newer one), then link with
// Emscripten's own tools; the run needs node's relaxed-SIMD flag.
function emccMixed(version) {
  const clang = `/usr/lib/llvm-${version}/bin/clang`;
  if (!existsSync(clang)) return null;
  const dir = path.join(tmp, `llvm${version}`);
  const links = path.join(dir, 'bin');
  execFileSync('mkdir', ['-p', links]);
  for (const n of ['clang', 'clang++', 'clang-14', 'clang++-14'])
    execFileSync('ln', ['-sf', clang, path.join(links, n)]);
  writeFileSync(
    path.join(dir, 'k.cpp'),
    `#include <stdexcept>
#include <vector>
#include <wasm_simd128.h>
typedef float f32x4 __attribute__((vector_size(16)));
float saxpy(float a, const std::vector<float>& x, std::vector<float>& y) {  // y = a x + y, sum(y)
  if (x.size() != y.size() || x.size() % 4) throw std::invalid_argument("sizes");
  const f32x4 av = {a, a, a, a};
  for (size_t i = 0; i < x.size(); i += 4)
    wasm_v128_store(&y[i], (v128_t)__builtin_wasm_relaxed_madd_f32x4(av, (f32x4)wasm_v128_load(&x[i]), (f32x4)wasm_v128_load(&y[i])));
  float s = 0;
  for (float v : y) s += v;
  return s;
}
`
  );
  writeFileSync(
    path.join(dir, 'm.cpp'),
    `#include <cstdio>
#include <vector>
float saxpy(float a, const std::vector<float>& x, std::vector<float>& y);
int main() {
  std::vector<float> x(8), y(8, 1.f);
  for (int i = 0; i < 8; ++i) x[i] = float(i);
  std::printf("sum %g (expected 64)\\n", saxpy(2.f, x, y));
}
`
  );
  const step = (what, args, extraEnv = {}) => {
    const r = spawnSync('em++', args, { cwd: dir, env: { ...env, ...extraEnv }, encoding: 'utf8' });
    return r.status === 0
      ? null
      : `${what}: ${(r.stderr || '')
          .trim()
          .split('\n')
          .filter((l) => /error|Fatal|exception/i.test(l))
          .slice(0, 2)
          .join(' | ')}`;
  };
  const res = { compiler: clang };
  res.compile =
    step('compile', ['-std=c++17', '-O2', '-msimd128', '-mrelaxed-simd', '-fexceptions', '-c', 'k.cpp', '-o', 'k.o'], {
      EM_LLVM_ROOT: links,
    }) ?? 'ok';
  if (res.compile !== 'ok') return res;
  res.link = step('link', ['-std=c++17', '-O2', '-fexceptions', 'm.cpp', 'k.o', '-o', 'm.js']) ?? 'ok';
  if (res.link === 'ok') {
    const r = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', 'm.js'], { cwd: dir, encoding: 'utf8' });
    res.run = (r.stdout || r.stderr).trim().split('\n').pop();
  }
  return res;
}

function validateInNode(modules, flags) {
  const script = `
    const fs = require('fs');
    const out = {};
    for (const [name, file] of Object.entries(${JSON.stringify(modules)})) {
      const bytes = fs.readFileSync(file);
      let error = null;
      try { new WebAssembly.Module(bytes); } catch (e) { error = e.message; }
      out[name] = { valid: WebAssembly.validate(bytes), error };
      if (out[name].valid && name.startsWith('ref-')) {
        const f = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f;
        out[name].callable = typeof f === 'function';
      }
    }
    process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) return { error: r.stderr.trim().split('\n').slice(-1)[0] };
  return JSON.parse(r.stdout);
}

async function validateInChromium(modules) {
  if (!existsSync('/usr/bin/chromium')) return { error: '/usr/bin/chromium missing' };
  const { launch } = await import('../tests/browser/harness.mjs');
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto('about:blank');
    const version = browser.context.browser()?.version() ?? null;
    const res = await page.evaluate(
      (mods) => {
        const out = {};
        for (const [name, b64] of Object.entries(mods)) {
          const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          let error = null;
          try {
            new WebAssembly.Module(bytes);
          } catch (e) {
            error = e.message;
          }
          out[name] = { valid: WebAssembly.validate(bytes), error };
        }
        return out;
      },
      Object.fromEntries(Object.entries(modules).map(([k, f]) => [k, readFileSync(f).toString('base64')]))
    );
    return {
      version: version ?? execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim(),
      ...res,
    };
  } finally {
    await browser.close();
  }
}

export async function probe() {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-relaxed-'));
  const modules = {};
  writeFileSync((modules['ref-final-0x105'] = path.join(tmp, 'final.wasm')), referenceModule(FINAL_MADD));
  writeFileSync((modules['ref-prototype-0xaf'] = path.join(tmp, 'prototype.wasm')), referenceModule(PROTOTYPE_FMA));
  const emcc = compileEmcc();
  if (emcc.ok) modules['emcc'] = emcc.file;
  const newer = compileNewerClang();
  for (const t of newer) if (t.ok) modules[path.basename(t.compiler)] = t.file;
  const report = {
    reference_modules: { final: hex(referenceModule(FINAL_MADD)), prototype: hex(referenceModule(PROTOTYPE_FMA)) },
    emcc,
    newer_clang: newer.length ? newer : 'none installed (apt-cache search clang: clang-15/16/19 exist in Debian 12)',
    emcc_with_newer_clang: [22, 19, 16].map(emccMixed).filter(Boolean),
    node: {
      version: process.version,
      plain: validateInNode(modules, []),
      '--experimental-wasm-relaxed-simd': validateInNode(modules, ['--experimental-wasm-relaxed-simd']),
    },
    chromium: await validateInChromium(modules),
  };
  const chromiumFinal = report.chromium['ref-final-0x105']?.valid;
  const emccFinal = emcc.ok && emcc.opcodes.some((o) => o.opcode === '0x105');
  report.verdict = !emcc.ok
    ? `emcc cannot compile a relaxed multiply-add (${Object.values(emcc)
        .filter((v) => typeof v === 'string')
        .pop()})`
    : emccFinal && report.chromium.emcc?.valid
      ? 'emcc emits the final relaxed_madd opcode and Chromium accepts it: a relaxed build is possible'
      : `emcc (${emcc.compiler}) emits ${emcc.opcodes.map((o) => `${o.opcode} [${o.bytes}]`).join(', ')} for ${emcc.builtin}; ` +
        `Chromium ${chromiumFinal ? 'accepts the final opcode 0x105 but ' : ''}` +
        `${report.chromium.emcc?.valid ? 'accepts' : `rejects the emcc module (${report.chromium.emcc?.error})`}`;
  rmSync(tmp, { recursive: true, force: true });
  for (const t of [emcc, ...newer]) delete t.file;
  return report;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = await probe();
  console.log(asJson ? JSON.stringify(report) : JSON.stringify(report, null, 2));
}
