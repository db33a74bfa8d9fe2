// One copy each of what the benchmarks and the browser tests share: the Transformer bench configs
// and their session config (bench/rows/configs.mjs), and Chromium's flags, WebGPU's included
// (scripts/lib/chromium-flags.mjs). A second definition elsewhere in bench/ or tests/browser/
// fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIGS, flopsOf, sessionConfig } from '../../bench/rows/configs.mjs';
import { CHROMIUM_ARGS, CHROMIUM_BASE, WEBGPU_FLAGS, webgpuArgs } from '../../scripts/lib/chromium-flags.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function sources(dir) {
  return readdirSync(path.join(root, dir), { recursive: true })
    .filter((f) => /\.m?js$/.test(f))
    .map((f) => path.join(dir, f));
}

test('sessionConfig and the bench configs are defined once, in bench/rows/configs.mjs', () => {
  const defs = [...sources('bench'), ...sources('tests/browser')].filter((f) =>
    /(?:function|const)\s+(?:sessionConfig|CONFIGS)\b|flopsOf\s*=/.test(readFileSync(path.join(root, f), 'utf8'))
  );
  assert.deepEqual(defs, [path.join('bench', 'rows', 'configs.mjs')]);
  const s = sessionConfig(CONFIGS.M);
  assert.equal(s.model.d_model, 128);
  assert.equal(s.model.dropout, 0);
  assert.equal(s.task, 'copy');
  assert.deepEqual(s.task_options, { min_len: 32, max_len: 32, symbols: 29 });
  assert.ok(flopsOf(CONFIGS.M) > flopsOf(CONFIGS.S));
});

test("Chromium's WebGPU flags are written once, in scripts/lib/chromium-flags.mjs", () => {
  const flags = new Set(Object.values(WEBGPU_FLAGS).flat());
  const files = [...sources('bench'), ...sources('tests/browser'), ...sources('scripts')].filter((f) => {
    const text = readFileSync(path.join(root, f), 'utf8');
    return [...flags].some((x) => text.includes(`'${x}'`)) || text.includes("'--no-sandbox'");
  });
  assert.deepEqual(files, [path.join('scripts', 'lib', 'chromium-flags.mjs')]);
  assert.deepEqual(webgpuArgs('swiftshader'), [
    ...CHROMIUM_BASE,
    '--enable-unsafe-webgpu',
    '--use-webgpu-adapter=swiftshader',
    '--enable-features=Vulkan',
  ]);
  assert.ok(webgpuArgs('hardware').includes('--ignore-gpu-blocklist'));
  assert.ok(CHROMIUM_ARGS.includes('--disable-gpu') && !webgpuArgs().includes('--disable-gpu'));
  assert.throws(() => webgpuArgs('toString'), /swiftshader or hardware/);
});
