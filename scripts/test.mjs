// `npm test`: installs what is missing, builds everything, runs every suite, and ends with one
// line "N passed, M failed" (exit 1 on any failure). Suites:
//   the C++ style check                                (scripts/format.mjs --check, .clang-format)
//   native Catch2 via CTest, ASan/UBSan Debug build   (all but [model])
//   native Catch2 via CTest, Release build             (everything, incl. [model] training)
//   the CUDA build, compiled wherever nvcc is present  ([cuda] tests; they skip without a GPU)
//   the same Catch2 sources as WebAssembly under node  (all but [model]; single-thread and pthreads)
//   the C++ package: cmake --install + examples/cpp    (tests/package/cpp.test.mjs)
//   node tests of the JS package and the wasm module   (tests/node, node --test)
//   browser tests in headless Chromium                 (tests/browser, playwright-core)
//   the npm package, the examples and the widget docs  (tests/package: npm pack into an empty
//                                                      project, node + Vite + Chromium)
import path from 'node:path';
import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { run, must } from './lib/run.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jobs = String(process.env.ATTNLAB_JOBS || 2);
const totals = { passed: 0, failed: 0 };
const rows = [];
const t0 = Date.now();

function record(name, passed, failed, seconds) {
  totals.passed += passed;
  totals.failed += failed;
  rows.push({ name, passed, failed, seconds });
  console.log(`\n== ${name}: ${passed} passed, ${failed} failed (${seconds.toFixed(1)} s)\n`);
}

async function stage(name, fn) {
  const t = Date.now();
  try {
    const [p, f] = await fn();
    record(name, p, f, (Date.now() - t) / 1000);
    return f === 0;
  } catch (e) {
    console.error(`attnlab: ${name}: ${e.message}`);
    record(name, 0, 1, (Date.now() - t) / 1000);
    return false;
  }
}

async function ctest(dir, extra = []) {
  const r = await run('ctest', ['--test-dir', path.join(root, 'build', dir), '-j', jobs, '--output-on-failure', '--timeout', '900', ...extra],
    { capture: true, echo: true, env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  const m = r.out.match(/(\d+)% tests passed, (\d+) tests? failed out of (\d+)/);
  if (!m) throw new Error(`ctest in build/${dir} printed no summary (exit ${r.code})`);
  const failed = Number(m[2]), total = Number(m[3]);
  return [total - failed, failed + (r.code !== 0 && failed === 0 ? 1 : 0)];
}

// Each test has 10 minutes, each file's process is made to exit when its tests end (a handle
// left open by a failing test must not keep it alive), and the whole suite has 30 minutes.
// dir: every *.test.mjs in it, or a list of test files.
async function nodeTests(dir) {
  const files = Array.isArray(dir) ? dir : readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join(dir, f));
  if (!files.length) return [0, 0];
  const r = await run(process.execPath,
    ['--test', '--test-reporter=tap', '--test-concurrency=1', '--test-timeout=600000', '--test-force-exit', ...files],
    { capture: true, echo: true, cwd: root, timeoutMs: 30 * 60 * 1000 });
  if (r.timedOut) throw new Error(`node --test ${dir} did not finish within 30 minutes`);
  const pass = Number(r.out.match(/^# pass (\d+)/m)?.[1] ?? NaN), fail = Number(r.out.match(/^# fail (\d+)/m)?.[1] ?? NaN);
  if (Number.isNaN(pass) || Number.isNaN(fail)) throw new Error(`node --test ${dir} printed no summary (exit ${r.code})`);
  return [pass, fail + (r.code !== 0 && fail === 0 ? 1 : 0)];
}

const build = await import('./build.mjs');
const setupOk = await stage('set-up', async () => { await must('bash', [path.join(root, 'scripts', 'setup.sh')]); return [0, 0]; });
if (setupOk) {
  await stage('C++ style (clang-format)', async () => {
    const r = await run(process.execPath, [path.join(root, 'scripts', 'format.mjs'), '--check'], { echo: true, cwd: root });
    return r.code === 0 ? [1, 0] : [0, 1];
  });
  const debugBuilt = await stage('build: native Debug + sanitizers', async () => { await build.buildDebug(); return [0, 0]; });
  if (debugBuilt) await stage('native tests (ASan/UBSan)', () => ctest('debug'));
  const nativeBuilt = await stage('build: native Release', async () => { await build.buildNative(); return [0, 0]; });
  if (nativeBuilt) {
    await stage('native tests (Release)', () => ctest('native'));
    await stage('packages: C++ install + examples/cpp', () => nodeTests(['tests/package/cpp.test.mjs']));
  }
  const cudaBuilt = await stage('build: CUDA (compile only without a GPU)', async () => {
    if (!(await build.buildCuda())) console.log(`attnlab: ${build.NVCC} not found, CUDA build skipped`);
    return [0, 0];
  });
  if (cudaBuilt && existsSync(path.join(root, 'build', 'cuda', 'CTestTestfile.cmake')))
    await stage('CUDA tests (skip themselves without a GPU)', () => ctest('cuda', ['-R', '^cuda:']));
  const wasmBuilt = await stage('build: WebAssembly', async () => { await build.buildWasm(); return [0, 0]; });
  if (wasmBuilt) {
    await stage('wasm tests (Catch2 under node)', () => ctest('wasm'));
    const mtBuilt = await stage('build: WebAssembly threads', async () => { await build.buildWasmMt(); return [0, 0]; });
    if (mtBuilt) await stage('wasm-mt tests (Catch2 under node)', () => ctest('wasm-mt'));
    // Its two modules only; tests/node/wasm-relaxed.test.mjs compares them with the plain build.
    await stage('build: WebAssembly relaxed SIMD', async () => { await build.buildWasmRelaxed(); return [0, 0]; });
    await stage('node tests', () => nodeTests('tests/node'));
    const pageBuilt = await stage('build: page', async () => { await build.buildPage(); return [0, 0]; });
    if (pageBuilt) {
      await stage('browser tests (headless Chromium)', () => nodeTests('tests/browser'));
      await stage('packages: npm pack + examples + widget docs', () => nodeTests(
        readdirSync(path.join(root, 'tests', 'package')).filter((f) => f.endsWith('.test.mjs') && f !== 'cpp.test.mjs').map((f) => `tests/package/${f}`)));
    }
  }
}

console.log('\nstage                                   passed  failed  seconds');
for (const r of rows) console.log(`${r.name.padEnd(40)}${String(r.passed).padStart(6)}${String(r.failed).padStart(8)}${r.seconds.toFixed(1).padStart(9)}`);
console.log(`total time ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed ? 1 : 0);
