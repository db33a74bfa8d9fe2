// `npm test`: installs what is missing, builds everything, runs every suite, and ends with one
// line "N passed, M failed, K skipped" summed over every stage (exit 1 on any failure), after a
// table of each stage's counts and seconds; a run longer than BUDGET_S prints a warning. Suites:
//   the style check: C++ and JS                        (scripts/format.mjs --check: .clang-format,
//                                                      Prettier's .prettierrc.json)
//   native Catch2 via CTest, ASan/UBSan Debug build   (all but [model])
//   native Catch2 via CTest, Release build             (everything, incl. [model] training)
//   the CUDA build, compiled wherever nvcc is present  ([cuda] tests, registered only there;
//                                                      skipped, not passed, without a GPU;
//                                                      without nvcc each [cuda] case of the
//                                                      sources counts as skipped)
//   the GPU check's dry run                            (scripts/gpu-check.sh --dry: the CUDA
//                                                      build from third_party alone, the CPU
//                                                      stages, the script's bookkeeping)
//   the same Catch2 sources as WebAssembly under node  (all but [model]; single-thread and pthreads;
//                                                      a few processes, each case counted)
//   the C++ package: cmake --install + examples/cpp    (tests/package/cpp.test.mjs)
//   node tests of the JS package and the wasm module   (tests/node, node --test)
//   browser tests in headless Chromium                 (tests/browser, playwright-core: two files
//                                                      at a time (ATTNLAB_BROWSER_JOBS), then
//                                                      SERIAL_BROWSER one by one)
//   the guide in Firefox ESR and WebKitGTK             (tests/engines: puppeteer-core over WebDriver
//                                                      BiDi; WebKitWebDriver + MiniBrowser under
//                                                      xvfb-run)
//   the npm package, the examples and the widget docs  (tests/package: npm pack into an empty
//                                                      project, node + Vite + Chromium)
// Skips are counted from CTest's "(Skipped)" lines and node's "# skipped" / "# todo" lines.
import path from 'node:path';
import { readdirSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { run, must } from './lib/run.mjs';
import { ctestCounts, skippedCounts, tapCounts, taggedCases } from './lib/counts.mjs';
import { catchShards } from './lib/catch-shards.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jobs = String(process.env.ATTNLAB_JOBS || 2);
const totals = { passed: 0, failed: 0, skipped: 0 };
const rows = [];
const t0 = Date.now();
// The time a fresh run (cold caches) on two cores should fit in.
const BUDGET_S = 25 * 60;
// Browser test files whose assertions depend on the page getting the machine to itself (the
// cost demo's n² growth, the page's longest task while it parses 2 MB): they run one at a time
// after the others, which run two files at a time (each lane with its own Chromium).
// The WebGPU suites run there too: SwiftShader is Vulkan on the CPU and takes both cores, which
// starved the lane beside it (a 150-s wait in named-controls ran out once).
// ATTNLAB_BROWSER_JOBS=1 runs every file one at a time.
const SERIAL_BROWSER = [
  'demos.test.mjs',
  'owndata.test.mjs',
  'webgpu-kernels.test.mjs',
  'webgpu-recurrent.test.mjs',
  'webgpu-session.test.mjs',
  'webgpu-page.test.mjs',
];
const browserJobs = Math.max(1, Number(process.env.ATTNLAB_BROWSER_JOBS) || 2);
// The files that take longest start first (the order of this list; a clean run on two cores took
// a minute or more for each), so that the lanes finish together instead of one long file running
// alone at the end; the others follow by name.
const LONG_BROWSER = [
  'reader-layout.test.mjs',
  'guide-fixes.test.mjs',
  'a11y.test.mjs',
  'keys-share.test.mjs',
  'named-controls.test.mjs',
  'models.test.mjs',
  'guide-fourth.test.mjs',
  'page.test.mjs',
  'persist.test.mjs',
  'heads.test.mjs',
  'controls.test.mjs',
  'share.test.mjs',
  'playground-pointer.test.mjs',
];
// `node scripts/test.mjs --only browser` runs that stage alone (Chromium, then Firefox/WebKit)
// on the dist/ already built (`node scripts/build.mjs --page`): no set-up, builds or other suites.
const only = (() => {
  const i = process.argv.indexOf('--only');
  if (i < 0) return null;
  const what = process.argv[i + 1];
  if (what !== 'browser') throw new Error(`--only takes "browser", got ${JSON.stringify(what)}`);
  return what;
})();

// counts: { passed, failed, skipped }
function record(name, { passed, failed, skipped = 0 }, seconds) {
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  rows.push({ name, passed, failed, skipped, seconds });
  console.log(`\n== ${name}: ${passed} passed, ${failed} failed, ${skipped} skipped (${seconds.toFixed(1)} s)\n`);
}

const none = { passed: 0, failed: 0, skipped: 0 };
function add(a, b) {
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped };
}

async function stage(name, fn) {
  const t = Date.now();
  try {
    const counts = await fn();
    record(name, counts, (Date.now() - t) / 1000);
    return counts.failed === 0;
  } catch (e) {
    console.error(`attnlab: ${name}: ${e.message}`);
    record(name, { passed: 0, failed: 1 }, (Date.now() - t) / 1000);
    return false;
  }
}

// A build step: no tests of its own, a failure is one failed stage.
async function buildStage(name, fn) {
  return stage(name, async () => {
    await fn();
    return none;
  });
}

async function ctest(dir, extra = []) {
  const r = await run(
    'ctest',
    ['--test-dir', path.join(root, 'build', dir), '-j', jobs, '--output-on-failure', '--timeout', '900', ...extra],
    { capture: true, echo: true, env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } }
  );
  return ctestCounts(r.out, r.code, `ctest in build/${dir}`);
}

// The [cuda] Catch2 cases, read from their sources (tests/cpp/test_cuda*.cpp).
function cudaCases() {
  const dir = path.join(root, 'tests', 'cpp');
  return readdirSync(dir)
    .filter((f) => /^test_cuda.*\.cpp$/.test(f))
    .sort()
    .flatMap((f) => taggedCases(readFileSync(path.join(dir, f), 'utf8'), 'cuda'));
}

// The wasm builds' Catch2 cases: a few node processes each, every case counted on its own
// (scripts/lib/catch-shards.mjs); CTest's one process per case spent most of the time starting.
function wasmTests(dir) {
  return catchShards(path.join(root, 'build', dir), {
    jobs: Number(jobs),
    env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
  });
}

// The GPU check rehearsed without a GPU (scripts/gpu-check.sh --dry, docs/gpu.md), in build/cuda
// as built just before: each of its checks counts, and each stage that passed; a stage that
// cannot run without a GPU (the [cuda] cases, skipped for "no CUDA device") is a skip.
async function gpuCheckDry() {
  const out = path.join(root, 'build', 'gpu-check-dry');
  rmSync(out, { recursive: true, force: true });
  const r = await run('bash', [path.join(root, 'scripts', 'gpu-check.sh'), '--dry', out], {
    cwd: root,
    env: { ...process.env, ATTNLAB_JOBS: jobs },
    timeoutMs: 15 * 60 * 1000,
  });
  const file = path.join(out, 'summary.json');
  if (!existsSync(file)) throw new Error(`gpu-check.sh --dry wrote no ${file} (exit ${r.code})`);
  const sum = JSON.parse(readFileSync(file, 'utf8'));
  const stages = sum.stages.filter((s) => s.status !== 'not-run');
  const passed = sum.checks.passed + stages.filter((s) => s.status === 'passed').length;
  const skipped = stages.filter((s) => s.status === 'skipped').length;
  const failed = sum.failed.length || (r.code === 0 ? 0 : 1);
  return { passed, failed, skipped };
}

// Each test has 10 minutes, each file's process is made to exit when its tests end (a handle
// left open by a failing test must not keep it alive), and the whole suite has 30 minutes.
// dir: every *.test.mjs in it, or a list of test files.
// concurrency: how many test files run at once.
async function nodeTests(dir, { concurrency = 1 } = {}) {
  const files = testFiles(dir);
  if (!files.length) return none;
  const r = await run(
    process.execPath,
    [
      '--test',
      '--test-reporter=tap',
      `--test-concurrency=${concurrency}`,
      '--test-timeout=600000',
      '--test-force-exit',
      ...files,
    ],
    { capture: true, echo: true, cwd: root, timeoutMs: 30 * 60 * 1000 }
  );
  if (r.timedOut) throw new Error(`node --test ${dir} did not finish within 30 minutes`);
  return tapCounts(r.out, r.code, `node --test ${dir}`);
}

function testFiles(dir) {
  return Array.isArray(dir)
    ? dir
    : readdirSync(path.join(root, dir))
        .filter((f) => f.endsWith('.test.mjs'))
        .map((f) => path.join(dir, f));
}

// Browser tests: the files that measure the page's speed alone, the rest two at a time, longest
// first. node --test sorts the files it is given by name, so the lanes are run here: each takes
// the next file as it finishes one, and a file's output is printed whole when it ends.
async function browserTests() {
  const all = testFiles('tests/browser');
  const serial = all.filter((f) => SERIAL_BROWSER.includes(path.basename(f)));
  const rank = (f) => {
    const i = LONG_BROWSER.indexOf(path.basename(f));
    return i < 0 ? LONG_BROWSER.length : i;
  };
  const parallel = all.filter((f) => !serial.includes(f)).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  // One preview server of dist/ for every file of the lanes, instead of one per file (the
  // serial files, which time the page, start their own, as a file run alone does).
  const { startServer, SHARED_SERVER_ENV } = await import('../tests/browser/harness.mjs');
  const server = await startServer();
  try {
    return add(await testLanes(parallel, browserJobs, { [SHARED_SERVER_ENV]: server.url }), await nodeTests(serial));
  } finally {
    await server.close();
  }
}

// Each file in its own `node --test` (as node --test itself runs them), `lanes` at a time, in the
// order given; the counts summed. The files share the whole suite's 30 minutes: a file still
// running then is killed and counts one failure beside the tests it finished, and a file not
// started by then one failure. `env` goes to every file; each lane also starts one Chromium
// (tests/browser/harness.mjs launchSharedChromium) that its files connect to, each in a fresh
// browser context: starting a browser took seconds of each file's set-up. A Chromium that
// exited is started again before the lane's next file.
async function testLanes(files, lanes, env = {}) {
  const { launchSharedChromium, SHARED_CHROMIUM_ENV } = await import('../tests/browser/harness.mjs');
  const down = (c) => !c || c.process().exitCode !== null || c.process().signalCode !== null;
  const queue = [...files];
  let counts = none;
  const started = Date.now();
  const lane = async () => {
    let chromium = null;
    for (let f = queue.shift(); f; f = queue.shift()) {
      const left = 30 * 60 * 1000 - (Date.now() - started);
      if (left <= 0) {
        console.error(`attnlab: node --test ${f} not started: the browser files ran past 30 minutes`);
        counts = add(counts, { ...none, failed: 1 });
        continue;
      }
      const t = Date.now();
      if (down(chromium))
        chromium = await launchSharedChromium().catch((e) => {
          console.error(`attnlab: the lane's Chromium did not start (${e.message}): ${f} starts its own`);
          return null;
        });
      const r = await run(
        process.execPath,
        ['--test', '--test-reporter=tap', '--test-timeout=600000', '--test-force-exit', f],
        {
          capture: true,
          cwd: root,
          timeoutMs: left,
          env: { ...process.env, ...env, ...(chromium ? { [SHARED_CHROMIUM_ENV]: chromium.wsEndpoint() } : {}) },
        }
      );
      process.stdout.write(`${r.out}\n# ${f}: ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
      if (r.timedOut) {
        const done = r.out.match(/^ok \d+ /gm)?.length ?? 0;
        counts = add(counts, { passed: done, failed: 1, skipped: 0 });
      } else counts = add(counts, tapCounts(r.out, r.code, `node --test ${f}`));
    }
    await chromium?.close();
  };
  await Promise.all(Array.from({ length: Math.min(lanes, files.length) }, lane));
  return counts;
}

const build = await import('./build.mjs');
if (only === 'browser') {
  if (!existsSync(path.join(root, 'dist', 'index.html')))
    throw new Error('dist/index.html is missing: run node scripts/build.mjs --page first');
  await stage('browser tests (headless Chromium)', browserTests);
  await stage('browser tests (Firefox ESR, WebKitGTK)', () => nodeTests('tests/engines'));
}
const setupOk = !only && (await buildStage('set-up', () => must('bash', [path.join(root, 'scripts', 'setup.sh')])));
if (setupOk) {
  await stage('style (clang-format, Prettier)', async () => {
    const r = await run(process.execPath, [path.join(root, 'scripts', 'format.mjs'), '--check'], {
      echo: true,
      cwd: root,
    });
    return r.code === 0 ? { ...none, passed: 1 } : { ...none, failed: 1 };
  });
  if (await buildStage('build: native Debug + sanitizers', build.buildDebug))
    await stage('native tests (ASan/UBSan)', () => ctest('debug'));
  if (await buildStage('build: native Release', build.buildNative)) {
    await stage('native tests (Release)', () => ctest('native'));
    await stage('packages: C++ install + examples/cpp', () => nodeTests(['tests/package/cpp.test.mjs']));
  }
  let nvcc = true;
  const cudaBuilt = await buildStage('build: CUDA (compile only without a GPU)', async () => {
    nvcc = await build.buildCuda();
    if (!nvcc) console.log(`attnlab: ${build.NVCC} not found, CUDA build skipped`);
  });
  if (!nvcc) {
    // Without a compiler the [cuda] cases are not built, so CTest cannot list them: they are read
    // from their sources and counted as skipped, as a build without a GPU reports them.
    await stage('CUDA tests (skipped: no nvcc)', () => {
      const names = cudaCases();
      console.log(`attnlab: ${names.length} [cuda] test case(s) skipped: ${build.NVCC} not found`);
      return skippedCounts(names);
    });
    await stage('GPU check, dry run (skipped: no nvcc)', () => {
      console.log(`attnlab: scripts/gpu-check.sh --dry skipped: it builds with ${build.NVCC}`);
      return { ...none, skipped: 1 };
    });
  } else if (cudaBuilt && existsSync(path.join(root, 'build', 'cuda', 'CTestTestfile.cmake'))) {
    await stage('CUDA tests (skipped without a GPU)', () => ctest('cuda', ['-R', '^cuda:']));
    await stage('GPU check, dry run (no GPU)', gpuCheckDry);
  }
  if (await buildStage('build: WebAssembly', build.buildWasm)) {
    await stage('wasm tests (Catch2 under node)', () => wasmTests('wasm'));
    if (await buildStage('build: WebAssembly threads', build.buildWasmMt))
      await stage('wasm-mt tests (Catch2 under node)', () => wasmTests('wasm-mt'));
    // Its two modules only; tests/node/wasm-relaxed.test.mjs compares them with the plain build.
    await buildStage('build: WebAssembly relaxed SIMD', build.buildWasmRelaxed);
    await stage('node tests', () => nodeTests('tests/node'));
    if (await buildStage('build: page', build.buildPage)) {
      await stage('browser tests (headless Chromium)', browserTests);
      await stage('browser tests (Firefox ESR, WebKitGTK)', () => nodeTests('tests/engines'));
      await stage('packages: npm pack + examples + widget docs', () =>
        nodeTests(
          readdirSync(path.join(root, 'tests', 'package'))
            .filter((f) => f.endsWith('.test.mjs') && f !== 'cpp.test.mjs')
            .map((f) => `tests/package/${f}`)
        )
      );
    }
  }
}

const total = (Date.now() - t0) / 1000;
console.log('\nstage                                   passed  failed skipped  seconds');
for (const r of rows) {
  console.log(
    `${r.name.padEnd(40)}${String(r.passed).padStart(6)}${String(r.failed).padStart(8)}${String(r.skipped).padStart(8)}${r.seconds.toFixed(1).padStart(9)}`
  );
}
console.log(`total time ${total.toFixed(0)} s`);
if (total > BUDGET_S) {
  console.log(
    `attnlab: warning: this run took ${(total / 60).toFixed(1)} min, over the ${BUDGET_S / 60}-minute budget of a fresh run on two cores`
  );
}
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed ? 1 : 0);
