// Builds the engine and, on request, the page. Incremental: configures a build folder once,
// then lets CMake rebuild only what changed.
//   node scripts/build.mjs            native Release (build/native) + wasm (build/wasm)
//                                     + the pthread wasm build (build/wasm-mt)
//                                     + the relaxed-SIMD wasm build (build/wasm-relaxed)
//   node scripts/build.mjs --debug    also the ASan/UBSan test build (build/debug)
//   node scripts/build.mjs --page     also the static page and the widget script into dist/ (Vite)
// The wasm module is copied to web/public/engine/ where the page loads it from.
import { existsSync, mkdirSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { must } from './lib/run.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jobs = String(process.env.ATTNLAB_JOBS || 2);
// ccache, where installed (scripts/setup.sh installs it), compiles every folder, em++ included.
// The CUDA build's C++ objects are the Release build's (cpp/cuda/cuda.cmake), and the relaxed-SIMD
// build's are the plain wasm build's but for the files that include kernels/simd.hpp
// (wasm-build/flags.cmake), so they come from the cache even when it starts empty;
// CCACHE_BASEDIR makes paths inside the repository relative, so that one file compiled in two
// build folders hashes alike.
const ccache = ['/usr/bin/ccache', '/usr/local/bin/ccache'].find((p) => existsSync(p));
// The sanitizer build's tests use a precompiled header, which ccache caches only with this sloppiness.
const env = {
  ...process.env,
  NODE_PATH: '/usr/share/nodejs',
  CCACHE_BASEDIR: root,
  CCACHE_SLOPPINESS: 'pch_defines,time_macros',
};

// Ninja where installed (scripts/setup.sh installs it): it schedules single files rather than
// whole targets, so both cores stay busy to the end of a build. A folder configured by the
// other generator is configured afresh.
const ninja = ['/usr/bin/ninja', '/usr/local/bin/ninja'].find((p) => existsSync(p));
const generator = ninja ? 'Ninja' : 'Unix Makefiles';

// target: one CMake target (or a list) instead of all (npm start needs only the page's module).
async function cmakeBuild(dir, configureArgs, { emscripten = false, target = null } = {}) {
  const bdir = path.join(root, 'build', dir);
  const cache = path.join(bdir, 'CMakeCache.txt');
  if (existsSync(cache) && !readFileSync(cache, 'utf8').includes(`CMAKE_GENERATOR:INTERNAL=${generator}\n`)) {
    rmSync(cache);
    rmSync(path.join(bdir, 'CMakeFiles'), { recursive: true, force: true });
  }
  if (!existsSync(cache)) {
    const args = ['-G', generator, '-S', root, '-B', bdir, ...configureArgs];
    if (ccache) args.push(`-DCMAKE_CXX_COMPILER_LAUNCHER=${ccache}`);
    if (emscripten) await must('emcmake', ['cmake', ...args], { cwd: root, env });
    else await must('cmake', args, { cwd: root, env });
  }
  const targets = target ? [target].flat() : [];
  await must('cmake', ['--build', bdir, '-j', jobs, ...(targets.length ? ['--target', ...targets] : [])], {
    cwd: root,
    env,
  });
}

export async function buildNative() {
  await cmakeBuild('native', ['-DCMAKE_BUILD_TYPE=Release']);
}

export async function buildDebug() {
  await cmakeBuild('debug', ['-DCMAKE_BUILD_TYPE=Debug', '-DATTNLAB_SANITIZE=ON', '-DATTNLAB_TEST_SPEC=~[model]']);
}

export async function buildWasm({ pageOnly = false } = {}) {
  await cmakeBuild(
    'wasm',
    [
      '-DCMAKE_BUILD_TYPE=Release',
      '-DATTNLAB_TEST_SPEC=~[model]',
      '-DCMAKE_CROSSCOMPILING_EMULATOR=node;--no-experimental-fetch',
    ],
    { emscripten: true, target: pageOnly ? 'attnlab_web' : null }
  );
  const dest = path.join(root, 'web', 'public', 'engine');
  mkdirSync(dest, { recursive: true });
  for (const f of ['attnlab.mjs', 'attnlab.wasm'])
    copyFileSync(path.join(root, 'build', 'wasm', f), path.join(dest, f));
}

// The pthread build, loaded instead of the single-thread one when the page is cross-origin
// isolated (web/core/engine.js picks); copied beside it with its pthread worker script.
export async function buildWasmMt({ pageOnly = false } = {}) {
  await cmakeBuild(
    'wasm-mt',
    [
      '-DCMAKE_BUILD_TYPE=Release',
      '-DATTNLAB_WASM_THREADS=ON',
      '-DATTNLAB_TEST_SPEC=~[model]',
      '-DCMAKE_CROSSCOMPILING_EMULATOR=node;--no-experimental-fetch',
    ],
    { emscripten: true, target: pageOnly ? 'attnlab_web' : null }
  );
  const dest = path.join(root, 'web', 'public', 'engine');
  mkdirSync(dest, { recursive: true });
  for (const f of ['attnlab-mt.mjs', 'attnlab-mt.wasm', 'attnlab-mt.worker.js'])
    copyFileSync(path.join(root, 'build', 'wasm-mt', f), path.join(dest, f));
}

// The relaxed-SIMD build: the GEMM micro-kernel and the fused row kernels use
// f32x4.relaxed_madd (wasm-build/flags.cmake). The page loads it where the browser validates
// relaxed SIMD and threads are not in use (web/core/engine.js). Only its two modules are built
// (its kernels are the plain build's but for simd::madd; node tests compare the two); built after
// build/wasm, all but the simd.hpp files come from ccache.
export async function buildWasmRelaxed({ pageOnly = false } = {}) {
  await cmakeBuild(
    'wasm-relaxed',
    [
      '-DCMAKE_BUILD_TYPE=Release',
      '-DATTNLAB_WASM_RELAXED=ON',
      '-DATTNLAB_TEST_SPEC=~[model]',
      '-DCMAKE_CROSSCOMPILING_EMULATOR=node;--no-experimental-fetch',
    ],
    { emscripten: true, target: pageOnly ? 'attnlab_web' : ['attnlab_web', 'attnlab_node'] }
  );
  const dest = path.join(root, 'web', 'public', 'engine');
  mkdirSync(dest, { recursive: true });
  for (const f of ['attnlab-relaxed.mjs', 'attnlab-relaxed.wasm'])
    copyFileSync(path.join(root, 'build', 'wasm-relaxed', f), path.join(dest, f));
}

// The CUDA build (nvcc 13, sm_90 + PTX). It compiles on any machine with the CUDA toolkit; its
// [cuda] tests (registered only there) are reported as skipped without a GPU. Returns false when
// there is no toolkit.
export const NVCC = '/usr/local/cuda/bin/nvcc';
// Its headers come from third_party/include (scripts/third-party.sh), the copy that travels to a
// GPU machine without the -dev packages, so this build is the one scripts/gpu-check.sh makes there.
export async function buildCuda() {
  if (!existsSync(NVCC)) return false;
  await must('bash', [path.join(root, 'scripts', 'third-party.sh')], { cwd: root });
  await cmakeBuild('cuda', [
    '-DCMAKE_BUILD_TYPE=Release',
    '-DATTNLAB_CUDA=ON',
    `-DCMAKE_CUDA_COMPILER=${NVCC}`,
    '-DATTNLAB_TEST_SPEC=[cuda]',
    `-DATTNLAB_THIRD_PARTY_DIR=${path.join(root, 'third_party', 'include')}`,
  ]);
  return true;
}

// native + wasm + the pthread wasm build + the relaxed-SIMD one (the dev server is cross-origin isolated, so its
// Workers load the threaded engine). Once all three are configured, an incremental rebuild
// runs them side by side: after one .cpp changes, each folder mostly waits on one compile and
// its links, which two cores can share. pageOnly (npm start): the wasm folders build only the
// page's module, not their test and node executables.
export async function buildEngine({ pageOnly = false } = {}) {
  const configured = ['native', 'wasm', 'wasm-mt', 'wasm-relaxed'].every((d) =>
    existsSync(path.join(root, 'build', d, 'CMakeCache.txt'))
  );
  if (configured) {
    await Promise.all([
      buildNative(),
      buildWasm({ pageOnly }),
      buildWasmMt({ pageOnly }),
      buildWasmRelaxed({ pageOnly }),
    ]);
  } else {
    await buildNative();
    await buildWasm({ pageOnly });
    await buildWasmMt({ pageOnly });
    await buildWasmRelaxed({ pageOnly });
  }
}

// The page into dist/, then the widget script beside it (dist/embed.js, scripts/web/embed-build.mjs).
export async function buildPage() {
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'vite.config.js'), logLevel: 'warn' });
  await buildEmbed();
}

export async function buildEmbed() {
  const { build } = await import('vite');
  const { embedConfig, writeEmbedManifest } = await import('./web/embed-build.mjs');
  await build(embedConfig(root));
  writeEmbedManifest(root);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flags = new Set(process.argv.slice(2));
  try {
    await must('bash', [path.join(root, 'scripts', 'setup.sh')]);
    await buildEngine();
    if (flags.has('--debug')) await buildDebug();
    if (flags.has('--page')) {
      await buildPage();
      console.log(`attnlab: static page written to ${path.join(root, 'dist')}`);
    }
  } catch (e) {
    console.error(`attnlab: build failed: ${e.message}`);
    process.exit(1);
  }
}
