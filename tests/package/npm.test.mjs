// The npm package, as a stranger gets it: `npm pack` at the repository root (prepack stages
// pkg/ from dist/ and build/wasm), the tarball installed offline into an empty project, then
//   - node imports it: loadEngine() trains a step, createEngine() trains in a worker thread;
//     examples/node/attention.mjs and examples/node/train.mjs run unchanged from that project
//     (the checkpoint train.mjs saves is read back by the native attn when it is built);
//   - Vite bundles an app that imports it, and the built app computes attention and trains in
//     headless Chromium;
//   - the unbundled package imported from another origin (as from a CDN) loads its engine and
//     starts its Worker;
//   - the packaged embed.js, served from the project's node_modules, mounts widgets that train.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, serveDir, shots } from '../browser/harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const attn = path.join(root, 'build', 'native', 'attn');
let tmp, app, tarball, packed, browser;

const sh = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
const node = (args, cwd = app) => sh(process.execPath, args, { cwd });

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-npm-'));
  const json = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: root }));
  packed = json[0];
  tarball = path.join(tmp, packed.filename);
  app = path.join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'course-app', private: true, type: 'module' }));
  sh('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
});
after(async () => {
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('the tarball: built files only, a manifest for strangers', () => {
  assert.equal(packed.filename, `attnlab-${version}.tgz`);
  const files = packed.files.map((f) => f.path).sort();
  for (const f of [
    'package.json',
    'README.md',
    'pkg/index.js',
    'pkg/index.d.ts',
    'pkg/node.js',
    'pkg/node-worker.js',
    'pkg/lib/client.js',
    'pkg/lib/worker.js',
    'pkg/embed.js',
    'pkg/embed-manifest.json',
    'pkg/engine/attnlab.mjs',
    'pkg/engine/attnlab.wasm',
    'pkg/engine/attnlab-node.cjs',
    'pkg/engine/attnlab-node.wasm',
    'pkg/models/index.json',
  ])
    assert.ok(files.includes(f), `${f} is not in the tarball`);
  const stray = files.filter((f) => !(f.startsWith('pkg/') || ['package.json', 'README.md'].includes(f)));
  assert.deepEqual(stray, [], 'nothing but the staged package');
  assert.deepEqual(
    files.filter((f) => /\.test\.|\/tests?\/|\.cpp$|\.hpp$|\.map$/.test(f)),
    []
  );
  const manifest = JSON.parse(readFileSync(path.join(app, 'node_modules', 'attnlab', 'package.json'), 'utf8'));
  assert.equal(manifest.private, undefined);
  assert.equal(manifest.dependencies, undefined, 'katex, uplot and the rest are bundled, not runtime dependencies');
  assert.deepEqual(Object.keys(manifest.exports), [
    '.',
    './embed.js',
    './engine/*',
    './models/*',
    './coi-sw.js',
    './package.json',
  ]);
  assert.ok(
    !readFileSync(path.join(app, 'node_modules', 'attnlab', 'pkg', 'index.js'), 'utf8').includes('__ATTNLAB_VERSION__')
  );
});

test('the types declare every export of both entries, and the browser entry has every declared one', () => {
  const dts = readFileSync(path.join(app, 'node_modules', 'attnlab', 'pkg', 'index.d.ts'), 'utf8');
  const declared = new Set(
    [...dts.matchAll(/export (?:declare )?(?:function|const|class|interface|type) (\w+)/g)].map((m) => m[1])
  );
  const values = [...dts.matchAll(/export declare (?:function|const|class) (\w+)/g)].map((m) => m[1]);
  for (const entry of ['index.js', 'node.js']) {
    const code = readFileSync(path.join(app, 'node_modules', 'attnlab', 'pkg', entry), 'utf8');
    const names = [...code.matchAll(/export (?:async )?(?:function|const|class) (\w+)/g)].map((m) => m[1]);
    for (const m of code.matchAll(/export \{([^}]+)\} from/g))
      names.push(
        ...m[1].split(',').map((s) =>
          s
            .trim()
            .split(/\s+as\s+/)
            .pop()
        )
      );
    const missing = names.filter((n) => !declared.has(n));
    assert.deepEqual(missing, [], `${entry}: exports without a declaration in index.d.ts`);
    if (entry === 'index.js')
      assert.deepEqual(
        values.filter((n) => !names.includes(n)),
        [],
        'declared but not exported by the browser entry'
      );
  }
});

test('node: import from attnlab, one training step here and a run in a worker thread', () => {
  writeFileSync(
    path.join(app, 'step.mjs'),
    `
import { loadEngine, createEngine, version } from 'attnlab';
const config = { model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1 }, task: 'reverse', seed: 3 };
const engine = await loadEngine();
const s = engine.createSession(config);
const r = s.train(1);
const worker = await createEngine();
const w = await worker.createSession(config);
let events = 0;
w.on('progress', () => { events++; });
const sum = await w.train(5);
const again = await worker.loadSession(s.save());
console.log(JSON.stringify({ version, build: engine.info().build, loss: r.losses[0], step: r.step, workerStep: sum.step, events, loaded: again.info.step }));
`
  );
  const out = JSON.parse(node(['step.mjs'])); // and the process ends by itself
  assert.equal(out.version, version);
  assert.equal(out.build, 'wasm');
  assert.ok(Number.isFinite(out.loss) && out.loss > 0);
  assert.equal(out.step, 1);
  assert.equal(out.workerStep, 5);
  assert.ok(out.events >= 1);
  assert.equal(out.loaded, 1);
});

test('examples/node run from the empty project', () => {
  for (const f of ['attention.mjs', 'train.mjs']) cpSync(path.join(root, 'examples', 'node', f), path.join(app, f));
  const att = node(['attention.mjs']);
  assert.match(att, /^query 2: weights 0\.768 {2}0\.187 {2}0\.045 {2}-> {2}out 0\.813, 0\.232$/m);

  const ckpt = path.join(app, 'reverse.safetensors');
  const out = node(['train.mjs', '300', ckpt]);
  const m = out.match(/held-out: loss [\d.]+, token accuracy ([\d.]+), sequence accuracy ([\d.]+) \(500 sequences\)/);
  assert.ok(m, out);
  assert.ok(Number(m[1]) >= 0.95 && Number(m[2]) >= 0.85, `accuracy after 300 steps:\n${out}`);
  assert.match(out, /^step {2}300\/300 {2}loss/m);
  assert.ok(existsSync(ckpt));
  if (existsSync(attn)) {
    // the same file, read by the native tool
    const r = spawnSync(
      attn,
      [
        'eval',
        '--checkpoint',
        ckpt,
        '--task',
        'reverse',
        '--task-options',
        '{"min_len":2,"max_len":6,"symbols":8}',
        '--samples',
        '500',
      ],
      { encoding: 'utf8' }
    );
    assert.equal(r.status, 0, r.stderr);
    assert.ok(JSON.parse(r.stdout).sequence_accuracy >= 0.85, r.stdout);
  }
});

test('a Vite app bundles the package and runs it in the browser', async () => {
  writeFileSync(
    path.join(app, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head>
<body><pre id="out">waiting</pre><script type="module" src="./main.js"></script></body></html>`
  );
  writeFileSync(
    path.join(app, 'main.js'),
    `
import { loadEngine, createEngine, version } from 'attnlab';
const out = document.getElementById('out');
try {
  const engine = await loadEngine();
  const q = new Float32Array([1, 0, 0, 1]);
  const { weights } = engine.attention(q, q, q, { T: 2, Dk: 2 });
  const worker = await createEngine();
  const s = await worker.createSession({ model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1 }, task: 'reverse', seed: 1 });
  const r = await s.train(5);
  out.textContent = JSON.stringify({ version, build: engine.info().build, worker: worker.info.build, weights: [...weights], step: r.step });
} catch (e) { out.textContent = 'error: ' + e.message; }
`
  );
  sh(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'error'], {
    cwd: app,
  });
  const server = await serveDir(path.join(app, 'dist'));
  browser ??= await launch();
  const page = await browser.newPage();
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => document.getElementById('out').textContent !== 'waiting', null, {
      timeout: 60000,
    });
    const text = await page.textContent('#out');
    assert.doesNotMatch(text, /^error/, text);
    const r = JSON.parse(text);
    assert.equal(r.version, version);
    assert.match(r.build, /^wasm/);
    assert.equal(r.step, 5);
    assert.ok(Math.abs(r.weights[0] - 0.6698) < 1e-3, text);
    assert.ok(
      server.requests.some((p) => /^\/assets\/attnlab.*\.wasm$/.test(p)),
      "the engine is one of the app's own assets"
    );
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    await server.close();
  }
});

test('the package imported unbundled from another origin, as from a CDN', async () => {
  const cdn = await serveDir(app, { headers: { 'Access-Control-Allow-Origin': '*' } });
  const host = await serveDir(mkdtempSync(path.join(tmp, 'host-')));
  browser ??= await launch();
  const page = await browser.newPage();
  try {
    await page.goto(`${host.url}missing.html`).catch(() => {}); // an empty page of the host's origin
    const r = await page.evaluate(async (url) => {
      const { loadEngine, createEngine } = await import(url);
      const engine = await loadEngine();
      const worker = await createEngine();
      const s = await worker.createSession({
        model: { model: 'transformer', d_model: 16, heads: 2, d_ff: 32, enc_layers: 1, dec_layers: 1 },
        task: 'reverse',
        seed: 1,
      });
      const t = await s.train(3);
      return { build: engine.info().build, worker: worker.info.build, step: t.step, origin: location.origin };
    }, `${cdn.url}node_modules/attnlab/pkg/index.js`);
    assert.notEqual(r.origin, new URL(cdn.url).origin);
    assert.match(r.build, /^wasm/);
    assert.equal(r.step, 3);
    assert.ok(
      cdn.requests.includes('/node_modules/attnlab/pkg/lib/worker.js'),
      "the Worker imported the package's worker module"
    );
  } finally {
    await page.close();
    await host.close();
    await cdn.close();
  }
});

test('the packaged embed.js, served from node_modules, mounts widgets that train', async () => {
  writeFileSync(
    path.join(app, 'course.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="/node_modules/attnlab/pkg/embed.js"></script></head><body>
<attnlab-demo id="rev" name="bahdanau" steps="150"></attnlab-demo>
<attnlab-demo id="pos" name="positional" lang="ko" L="40"></attnlab-demo>
</body></html>`
  );
  const server = await serveDir(app);
  browser ??= await launch();
  const page = await browser.newPage({ width: 900, height: 1000 });
  try {
    await page.goto(`${server.url}course.html`);
    await page.waitForFunction(
      () => [...document.querySelectorAll('attnlab-demo')].every((w) => w.dataset.ready === '1'),
      null,
      { timeout: 30000 }
    );
    assert.equal(await page.evaluate(() => customElements.get('attnlab-demo').version), version);
    assert.match(await page.textContent('#pos'), /[가-힣]/);
    const progress = page.evaluate(
      () =>
        new Promise((resolve) => {
          document.getElementById('rev').addEventListener('progress', (e) => {
            if (e.detail.step >= 3) resolve(e.detail);
          });
        })
    );
    await page.evaluate(() => document.getElementById('rev').start());
    const p = await progress;
    assert.ok(Number.isFinite(p.loss) && p.total === 150, JSON.stringify(p));
    assert.ok(
      server.requests.some((r) => r.startsWith('/node_modules/attnlab/pkg/engine/')),
      'the engine from the package'
    );
    await page.evaluate(() => document.getElementById('rev').pause());
    await page.screenshot({ path: path.join(shots, 'package-embed.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    await server.close();
  }
});
