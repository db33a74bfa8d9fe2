// The style check of every source in the repository: the C++ (cpp/, bench/, tests/cpp/,
// examples/) formatted as .clang-format says (Google style, 100 columns), and the JavaScript
// (every tracked .js/.mjs/.cjs file but those .prettierignore names: build output, the wasm
// modules copied into the page, fixtures) as Prettier says with .prettierrc.json (120 columns,
// single quotes). `npm run format` rewrites the files in place; `node scripts/format.mjs --check`
// (run by `npm test`) lists each file that differs, with its first differing line, and exits 1.
// `--only cpp` or `--only js` does one of the two.
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : null;
if (only !== null && only !== 'cpp' && only !== 'js') {
  console.error(`attnlab: --only takes cpp or js, not ${JSON.stringify(only)}`);
  process.exit(2);
}
const CPP = { folders: ['cpp', 'bench', 'tests/cpp', 'examples'], extensions: /\.(cpp|hpp|cu|cuh)$/ };
const JS = /\.(js|mjs|cjs)$/;

const tracked = (folders) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...folders], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

// The first line where `have` and `want` differ, as "file:line: not formatted (TOOL would write: ...)".
function firstDifference(file, have, want, tool) {
  const a = have.split('\n'),
    b = want.split('\n');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${file}:${i + 1}: not formatted (${tool} would write: ${JSON.stringify((b[i] ?? '').trim())})`;
}

function clangFormat() {
  for (const name of ['clang-format', 'clang-format-14', 'clang-format-15', 'clang-format-16']) {
    if (spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0) return name;
  }
  console.error(
    'attnlab: clang-format is missing: run `npm test` (it installs what is missing) or apt-get install clang-format'
  );
  process.exit(1);
}

// Returns the lines of the files that differ (none when writing).
function cpp() {
  const tool = clangFormat();
  const files = tracked(CPP.folders).filter((f) => CPP.extensions.test(f));
  if (!check) {
    execFileSync(tool, ['-i', '--style=file', ...files], { cwd: root, stdio: 'inherit' });
    console.log(`attnlab: formatted ${files.length} C++ files`);
    return [];
  }
  const bad = [];
  for (const f of files) {
    const want = execFileSync(tool, ['--style=file', f], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
    const have = readFileSync(path.join(root, f), 'utf8');
    if (want !== have) bad.push(firstDifference(f, have, want, 'clang-format'));
  }
  console.log(`attnlab: ${files.length - bad.length} of ${files.length} C++ files formatted`);
  return bad;
}

async function js() {
  let prettier;
  try {
    prettier = await import('prettier');
  } catch {
    console.error('attnlab: prettier is missing: run `npm ci` (package.json pins it)');
    process.exit(1);
  }
  const ignorePath = path.join(root, '.prettierignore');
  const files = [];
  for (const f of tracked(['.']).filter((x) => JS.test(x))) {
    if (!(await prettier.getFileInfo(path.join(root, f), { ignorePath })).ignored) files.push(f);
  }
  const bad = [];
  for (const f of files) {
    const file = path.join(root, f);
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    const have = readFileSync(file, 'utf8');
    // Prettier's output, formatted again until it stays the same (a few constructs, such as a
    // long call whose argument is an object, settle on the second pass)
    let want = have;
    for (let pass = 0; pass < 3; pass++) {
      const next = await prettier.format(want, options);
      if (next === want) break;
      want = next;
    }
    if (want === have) continue;
    if (check) bad.push(firstDifference(f, have, want, 'Prettier'));
    else writeFileSync(file, want);
  }
  const changed = bad.length;
  console.log(
    check
      ? `attnlab: ${files.length - changed} of ${files.length} JS files formatted`
      : `attnlab: formatted ${files.length} JS files`
  );
  return bad;
}

const bad = [...(only === 'js' ? [] : cpp()), ...(only === 'cpp' ? [] : await js())];
for (const line of bad) console.error(line);
if (bad.length) console.log('attnlab: run `npm run format`');
process.exit(bad.length ? 1 : 0);
