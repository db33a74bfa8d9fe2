// Stages the npm package into pkg/ from build outputs (npm's `prepack` runs it, so `npm pack`
// at the repository root gives attnlab-<version>.tgz):
//   pkg/index.js, index.d.ts     the browser/bundler entry (web/package/index.js) and the types
//                                (web/core/engine.d.ts + web/package/extra.d.ts)
//   pkg/node.js, node-worker.js  the Node.js entry (web/package/)
//   pkg/lib/                     the engine client, loader, Worker runtime and persistence
//                                (web/core/ modules, plain ES modules)
//   pkg/gpu/                     the WebGPU backend the runtime imports (web/gpu/)
//   pkg/embed.js                 the widget script (dist/embed.js)
//   pkg/engine/                  the browser engines (dist/engine/: attnlab, -relaxed, -mt) and
//                                the node one (build/wasm/attnlab-node.{cjs,wasm})
//   pkg/models/                  the shipped checkpoints and models/index.json (dist/models/)
//   pkg/coi-sw.js                the cross-origin isolation service worker (dist/coi-sw.js)
// Nothing is built here: `npm run build` (engine + page + widget script) must have run.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const pkgDir = path.join(root, 'pkg');

// The web/core modules the entries need, and every module they import (relative imports only).
function coreClosure(entries) {
  const core = path.join(root, 'web', 'core');
  const seen = new Set();
  const todo = [...entries];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    const code = readFileSync(path.join(core, f), 'utf8');
    for (const m of code.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]\.\/([\w.-]+\.js)['"]/g))
      todo.push(m[1]);
    for (const m of code.matchAll(/import\(\s*['"]\.\/([\w.-]+\.js)['"]\s*\)/g)) todo.push(m[1]);
    for (const m of code.matchAll(/new URL\(\s*['"]\.\/([\w.-]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/g))
      todo.push(m[1]);
  }
  return [...seen].sort();
}

export function stage({ quiet = false } = {}) {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const need = [
    ['dist/embed.js', 'npm run build'],
    ['dist/engine/attnlab.mjs', 'npm run build'],
    ['dist/engine/attnlab.wasm', 'npm run build'],
    ['dist/models/index.json', 'npm run build'],
    ['build/wasm/attnlab-node.cjs', 'npm run build:engine'],
    ['build/wasm/attnlab-node.wasm', 'npm run build:engine'],
  ];
  const missing = need.filter(([f]) => !existsSync(path.join(root, f)));
  if (missing.length)
    throw new Error(
      `cannot stage the package: ${missing.map(([f]) => f).join(', ')} missing (run ${[...new Set(missing.map(([, c]) => c))].join(' and ')})`
    );

  rmSync(pkgDir, { recursive: true, force: true });
  mkdirSync(path.join(pkgDir, 'lib'), { recursive: true });
  const withVersion = (text) => text.replaceAll('__ATTNLAB_VERSION__', version);

  for (const f of coreClosure(['client.js', 'engine.js', 'worker.js', 'runtime.js', 'coi.js', 'persist.js', 'api.js']))
    cpSync(path.join(root, 'web', 'core', f), path.join(pkgDir, 'lib', f));
  // the WebGPU backend the Worker runtime imports (lib/runtime.js -> ../gpu/)
  mkdirSync(path.join(pkgDir, 'gpu'), { recursive: true });
  for (const f of readdirSync(path.join(root, 'web', 'gpu')).filter((f) => f.endsWith('.js')))
    cpSync(path.join(root, 'web', 'gpu', f), path.join(pkgDir, 'gpu', f));
  for (const f of ['index.js', 'node.js', 'node-worker.js'])
    writeFileSync(path.join(pkgDir, f), withVersion(readFileSync(path.join(root, 'web', 'package', f), 'utf8')));
  writeFileSync(
    path.join(pkgDir, 'index.d.ts'),
    `// attnlab ${version}: types of the package's JS API (browser, bundlers and Node.js).\n` +
      readFileSync(path.join(root, 'web', 'core', 'engine.d.ts'), 'utf8') +
      readFileSync(path.join(root, 'web', 'package', 'extra.d.ts'), 'utf8')
  );

  cpSync(path.join(root, 'dist', 'embed.js'), path.join(pkgDir, 'embed.js'));
  if (existsSync(path.join(root, 'dist', 'embed-manifest.json')))
    cpSync(path.join(root, 'dist', 'embed-manifest.json'), path.join(pkgDir, 'embed-manifest.json'));
  if (existsSync(path.join(root, 'dist', 'coi-sw.js')))
    cpSync(path.join(root, 'dist', 'coi-sw.js'), path.join(pkgDir, 'coi-sw.js'));
  mkdirSync(path.join(pkgDir, 'engine'));
  for (const f of readdirSync(path.join(root, 'dist', 'engine')))
    cpSync(path.join(root, 'dist', 'engine', f), path.join(pkgDir, 'engine', f));
  for (const f of ['attnlab-node.cjs', 'attnlab-node.wasm'])
    cpSync(path.join(root, 'build', 'wasm', f), path.join(pkgDir, 'engine', f));
  cpSync(path.join(root, 'dist', 'models'), path.join(pkgDir, 'models'), { recursive: true });

  const files = [];
  const walk = (d) => {
    for (const f of readdirSync(d).sort()) {
      const p = path.join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else files.push([path.relative(pkgDir, p), statSync(p).size]);
    }
  };
  walk(pkgDir);
  if (!quiet) {
    const total = files.reduce((a, [, n]) => a + n, 0);
    // stderr: `npm pack --json` owns stdout
    console.error(
      `attnlab: staged ${files.length} files (${(total / 1048576).toFixed(1)} MiB) in pkg/ for attnlab@${version}`
    );
  }
  return { version, files };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    stage();
  } catch (e) {
    console.error(`attnlab: ${e.message}`);
    process.exit(1);
  }
}
