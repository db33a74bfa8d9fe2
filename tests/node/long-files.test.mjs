// Rooms of a readable size: a source file over 400 lines (C++, the page, the scripts, the
// experiments and the bench; tests aside) says why at its top, in a comment line starting
// "Long because:" within its first 40 lines, or is split.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LIMIT = 400;

test('every source file over 400 lines gives its reason at the top', () => {
  const files = execFileSync('git', ['ls-files', 'cpp', 'web', 'scripts', 'experiments', 'bench', 'wasm-build'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => /\.(cpp|hpp|cu|cuh|js|mjs|cmake)$/.test(f) && !f.startsWith('web/public/'));
  assert.ok(files.length > 100, `${files.length} source files`);
  const silent = [];
  for (const f of files) {
    const lines = readFileSync(path.join(root, f), 'utf8').split('\n');
    if (lines.length <= LIMIT) continue;
    if (!lines.slice(0, 40).some((l) => /^\s*(\/\/|#)\s*Long because: \S/.test(l)))
      silent.push(`${f} (${lines.length})`);
  }
  assert.deepEqual(silent, [], 'split these, or say at the top why each is long');
});
