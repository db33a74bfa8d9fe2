// The C++ style check: every C++ source in the repository (cpp/, bench/, tests/cpp/, examples/)
// formatted as .clang-format says (Google style, 100 columns). `npm run format` rewrites the
// files in place; `node scripts/format.mjs --check` (run by `npm test`) lists each file that
// differs, with its first differing line, and exits 1.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const FOLDERS = ['cpp', 'bench', 'tests/cpp', 'examples'];
const EXTENSIONS = /\.(cpp|hpp|cu|cuh)$/;

function clangFormat() {
  for (const name of ['clang-format', 'clang-format-14', 'clang-format-15', 'clang-format-16']) {
    if (spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0) return name;
  }
  console.error('attnlab: clang-format is missing: run `npm test` (it installs what is missing) or apt-get install clang-format');
  process.exit(1);
}

const tool = clangFormat();
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...FOLDERS], { cwd: root, encoding: 'utf8' })
  .split('\n').filter((f) => EXTENSIONS.test(f));
if (!check) {
  execFileSync(tool, ['-i', '--style=file', ...files], { cwd: root, stdio: 'inherit' });
  console.log(`attnlab: formatted ${files.length} C++ files`);
  process.exit(0);
}
const bad = [];
for (const f of files) {
  const want = execFileSync(tool, ['--style=file', f], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const have = readFileSync(path.join(root, f), 'utf8');
  if (want === have) continue;
  const a = have.split('\n'), b = want.split('\n');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  bad.push(`${f}:${i + 1}: not formatted (clang-format would write: ${JSON.stringify((b[i] ?? '').trim())})`);
}
for (const line of bad) console.error(line);
console.log(`attnlab: ${files.length - bad.length} of ${files.length} C++ files formatted${bad.length ? '; run `npm run format`' : ''}`);
process.exit(bad.length ? 1 : 0);
