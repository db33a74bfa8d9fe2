// The relaxed-SIMD flavour (build/wasm-relaxed, wasm-build/flags.cmake): its modules carry the
// standard f32x4.relaxed_madd opcode (0xfd 0x105) and no prototype one; node 20 accepts them
// only with --experimental-wasm-relaxed-simd; web/core/engine.js picks the flavour exactly
// where a relaxed module validates; and, run under the flag, the relaxed engine computes what
// the plain SIMD128 engine computes (attention through the GEMM/dot kernels, and the losses of
// a training run), up to the rounding difference of a fused multiply-add.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { root, wasmDir } from './engine.mjs';
import { codeSection, findPattern, instructionOffsets } from '../../wasm-build/relaxed-opcodes.mjs';

const dir = path.join(root, 'build', 'wasm-relaxed');
const files = ['attnlab-relaxed.wasm', 'attnlab-relaxed-node.wasm'].map((f) => path.join(dir, f));
if (!files.every(existsSync))
  throw new Error(`${dir} is incomplete: run node scripts/build.mjs (builds build/wasm-relaxed)`);

// Runs `code` (an ES module body) in a child node; returns its stdout parsed as JSON.
function child(code, flags = []) {
  const r = spawnSync(process.execPath, [...flags, '--no-experimental-fetch', '--input-type=module', '-e', code], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

test('relaxed modules use f32x4.relaxed_madd (0xfd 0x105), never the prototype 0xfd 0xaf', () => {
  for (const f of files) {
    const bytes = readFileSync(f);
    const code = codeSection(bytes);
    assert.ok(findPattern(bytes, [0xfd, 0x85, 0x02], code).length > 0, `${path.basename(f)}: no relaxed_madd`);
    assert.equal(instructionOffsets(bytes, code).length, 0, `${path.basename(f)}: prototype opcode left`);
  }
  const plain = readFileSync(path.join(wasmDir, 'attnlab-node.wasm'));
  assert.equal(
    findPattern(plain, [0xfd, 0x85, 0x02], codeSection(plain)).length,
    0,
    'the plain build has no relaxed_madd'
  );
});

const VALIDATE = `
  import { readFileSync } from 'node:fs';
  import { pickBuild, relaxedSimdAvailable } from './web/core/engine.js';
  console.log(JSON.stringify({ valid: WebAssembly.validate(readFileSync(${JSON.stringify(files[1])})),
    relaxed: relaxedSimdAvailable(), pick: pickBuild(false), never: pickBuild(false, false) }));`;

test('node 20 validates the relaxed module only with its flag, and engine.js picks the flavour by the same test', () => {
  assert.deepEqual(child(VALIDATE), { valid: false, relaxed: false, pick: 'wasm', never: 'wasm' });
  assert.deepEqual(child(VALIDATE, ['--experimental-wasm-relaxed-simd']), {
    valid: true,
    relaxed: true,
    pick: 'wasm-relaxed',
    never: 'wasm',
  });
});

test('relaxed and plain engines agree: attention outputs and 20 training losses', () => {
  const r = child(
    `
    import { createRequire } from 'node:module';
    import { readFileSync } from 'node:fs';
    const require = createRequire(import.meta.url);
    const load = async (dir, name) => require(\`./build/\${dir}/\${name}.cjs\`)({ wasmBinary: readFileSync(\`build/\${dir}/\${name}.wasm\`) });
    const out = {};
    for (const [key, dir, name] of [['plain', 'wasm', 'attnlab-node'], ['relaxed', 'wasm-relaxed', 'attnlab-relaxed-node']]) {
      const mod = await load(dir, name);
      const T = 24, D = 40;
      const rnd = (n, s) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + s) * 0.9);
      const att = mod.attention(rnd(T * D, 1), rnd(T * D, 2), rnd(T * D, 3), { T, Dk: D, causal: true });
      const cfg = { model: { model: 'transformer', d_model: 32, heads: 4, d_ff: 64, enc_layers: 1, dec_layers: 1, dropout: 0 },
        task: 'reverse', task_options: { min_len: 3, max_len: 8, symbols: 8 }, seed: 3, train: { batch: 16 } };
      const s = mod.Session.create(JSON.stringify(cfg));
      const losses = Array.from(s.train(20).losses);
      s.delete();
      out[key] = { out: Array.from(att.out ?? att.output ?? att), losses, build: mod.info().build, gemm: mod.benchGemm(33, 29, 31, false, true, 1, 0.001) > 0 };
    }
    console.log(JSON.stringify(out));`,
    ['--experimental-wasm-relaxed-simd']
  );
  assert.equal(r.plain.out.length, r.relaxed.out.length);
  assert.ok(r.plain.out.length > 0);
  let maxDiff = 0;
  r.plain.out.forEach((x, i) => {
    maxDiff = Math.max(maxDiff, Math.abs(x - r.relaxed.out[i]));
  });
  assert.ok(maxDiff < 1e-4, `attention differs by ${maxDiff}`);
  assert.equal(r.relaxed.losses.length, 20);
  r.plain.losses.forEach((l, i) =>
    assert.ok(Math.abs(l - r.relaxed.losses[i]) <= 1e-3 * Math.abs(l), `step ${i}: ${l} vs ${r.relaxed.losses[i]}`)
  );
  assert.ok(r.relaxed.losses[19] < r.relaxed.losses[0], 'the relaxed engine trains');
  assert.ok(r.relaxed.gemm);
});
