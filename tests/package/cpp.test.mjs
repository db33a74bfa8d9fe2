// The C++ package, as another project uses it: `cmake --install build/native --prefix P`, then
// examples/cpp (copied out of the repository, so no path leads back into it) configured with
// find_package(attnlab) against P alone, built, and run: train_reverse must learn the reverse
// task (held-out accuracy above what the tiny model reliably reaches), translate must print a
// translation with its cross-attention for the checkpoint it saved and for the test fixture.
// Also: the install tree holds the public headers, the library, the CMake package (version
// from package.json), attn; every installed header compiles on its own terms; nothing of the
// tests, benchmarks or bindings is installed; the package refuses an incompatible version.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const build = path.join(root, 'build', 'native');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const jobs = String(process.env.ATTNLAB_JOBS || 2);
let tmp, prefix, exBuild;

const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });

function files(dir, base = dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p, base) : [path.relative(base, p)];
  });
}

before(() => {
  assert.ok(existsSync(path.join(build, 'CMakeCache.txt')), 'build/native is missing: run npm run build:engine');
  tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-cpp-'));
  prefix = path.join(tmp, 'prefix');
  run('cmake', ['--install', build, '--prefix', prefix]);
});
after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('the install tree: headers, library, CMake package, attn, and nothing else', () => {
  const all = files(prefix).sort();
  for (const f of [
    'include/attnlab/attnlab.hpp',
    'include/attnlab/session.hpp',
    'include/attnlab/error.hpp',
    'include/attnlab/version.hpp',
    'include/attnlab/core/check.hpp',
    'include/attnlab/models/model.hpp',
    'lib/libattnlab.a',
    'lib/cmake/attnlab/attnlabConfig.cmake',
    'lib/cmake/attnlab/attnlabConfigVersion.cmake',
    'lib/cmake/attnlab/attnlabTargets.cmake',
    'bin/attn',
  ])
    assert.ok(all.includes(f), `${f} is not installed`);
  const stray = all.filter((f) => /test|bench|catch|fuzz|bindings|cuda|embind|\.cpp$|\.in$/i.test(f));
  assert.deepEqual(stray, [], 'no test, benchmark, binding, CUDA or source files');
  const header = readFileSync(path.join(prefix, 'include/attnlab/version.hpp'), 'utf8');
  assert.match(
    header,
    new RegExp(`#define ATTNLAB_VERSION_STRING "${version.replace(/\./g, '\\.')}"`),
    "version.hpp carries package.json's version"
  );
  assert.match(
    readFileSync(path.join(prefix, 'lib/cmake/attnlab/attnlabConfigVersion.cmake'), 'utf8'),
    new RegExp(`PACKAGE_VERSION "${version}"`)
  );
  for (const f of all.filter((x) => x.startsWith('lib/cmake/')))
    assert.ok(!readFileSync(path.join(prefix, f), 'utf8').includes(root), `${f} names a path in the repository`);
  const help = spawnSync(path.join(prefix, 'bin/attn'), ['--help'], { encoding: 'utf8' });
  assert.match(help.stdout + help.stderr, /attn train/, 'the installed attn runs');
});

test("every installed header compiles with only the package's include folders", () => {
  const headers = files(path.join(prefix, 'include'))
    .filter((f) => f.endsWith('.hpp'))
    .sort();
  const tu = path.join(tmp, 'all_headers.cpp');
  writeFileSync(
    tu,
    headers.map((h) => `#include <${h}>`).join('\n') + '\nint main() { return attnlab::version().empty(); }\n'
  );
  run('g++', [
    '-std=c++17',
    '-march=native',
    '-fsyntax-only',
    `-I${path.join(prefix, 'include')}`,
    `-I${path.join(prefix, 'include', 'attnlab')}`,
    tu,
  ]);
});

test('find_package(attnlab) refuses an incompatible version', () => {
  const dir = path.join(tmp, 'version-check');
  const [major, minor] = version.split('.').map(Number);
  const wrong = major === 0 ? `0.${minor + 1}` : `${major + 1}.0`;
  cpSync(path.join(root, 'examples', 'cpp'), dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'CMakeLists.txt'),
    `cmake_minimum_required(VERSION 3.20)
project(version_check LANGUAGES CXX)
find_package(attnlab ${version} CONFIG REQUIRED)
find_package(attnlab ${wrong} CONFIG QUIET)
message(STATUS "wrong version found: \${attnlab_FOUND}")\n`
  );
  const out = run('cmake', ['-S', dir, '-B', path.join(dir, 'b'), `-DCMAKE_PREFIX_PATH=${prefix}`]);
  assert.match(out, /wrong version found: (0|FALSE)/);
});

test('examples/cpp builds against the installed package and trains, translates and reads attention', () => {
  const src = path.join(tmp, 'examples-cpp');
  cpSync(path.join(root, 'examples', 'cpp'), src, { recursive: true });
  exBuild = path.join(tmp, 'examples-cpp-build');
  const cfg = run('cmake', ['-S', src, '-B', exBuild, '-DCMAKE_BUILD_TYPE=Release', `-DCMAKE_PREFIX_PATH=${prefix}`]);
  assert.match(
    cfg,
    new RegExp(`attnlab ${version.replace(/\./g, '\\.')} from ${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)
  );
  run('cmake', ['--build', exBuild, '-j', jobs]);

  const ckpt = path.join(tmp, 'reverse.safetensors');
  const out = run(path.join(exBuild, 'train_reverse'), ['400', ckpt]);
  const m = out.match(
    /held-out: loss ([\d.]+), token accuracy ([\d.]+), sequence accuracy ([\d.]+) \((\d+) sequences\)/
  );
  assert.ok(m, out);
  assert.ok(Number(m[2]) >= 0.95, `token accuracy ${m[2]} after 400 steps:\n${out}`);
  assert.ok(Number(m[3]) >= 0.85, `sequence accuracy ${m[3]} after 400 steps:\n${out}`);
  assert.match(out, /step  400\/400  loss [\d.]+/);
  assert.ok(existsSync(ckpt));

  // The saved checkpoint: its own held-out example, reversed, with the attention on the
  // source's other end.
  const tr = run(path.join(exBuild, 'translate'), [ckpt]);
  const src1 = tr.match(/^source: (.*)$/m)[1].split(' ');
  const out1 = tr.match(/^output: (.*)$/m)[1].split(' ');
  assert.deepEqual(out1, [...src1].reverse(), tr);
  assert.match(tr, new RegExp(`cross-attention \\[${out1.length + 1} x ${src1.length}\\]`));
  const firstRow = tr.split('\n').find((l) => l.trim().startsWith(out1[0]) && l.includes('<-'));
  assert.match(firstRow, new RegExp(`<- ${src1.at(-1)}$`), 'the first output looks at the last source symbol');

  // Any Transformer checkpoint: the test fixture (from PyTorch's layout), ids in, beam 3.
  const fx = run(path.join(exBuild, 'translate'), [
    path.join(root, 'tests', 'fixtures', 'transformer_small.safetensors'),
    '3 4 5 6',
    '3',
  ]);
  assert.match(fx, /transformer, 11744 parameters/);
  assert.match(fx, /cross-attention \[\d+ x 4\]/);
  // and a clear line for a bad input
  assert.throws(
    () => run(path.join(exBuild, 'translate'), [path.join(tmp, 'nope.safetensors')]),
    /translate: .*nope\.safetensors/
  );
});
