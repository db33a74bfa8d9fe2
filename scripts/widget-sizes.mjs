// Writes the size column of docs/widgets.md's "Files a teacher copies" table, and its gzip
// ratio of the .wasm files, from the files `npm run build` put in dist/ (or --dist DIR).
// tests/package/widgets-doc.test.mjs checks the table against dist/ on every run.
//   node scripts/widget-sizes.mjs [--dist dist]      (npm run docs:sizes)
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const i = process.argv.indexOf('--dist');
const dist = path.resolve(i > 0 ? process.argv[i + 1] : path.join(root, 'dist'));
const docFile = path.join(root, 'docs', 'widgets.md');

try {
  if (!existsSync(path.join(dist, 'embed.js'))) throw new Error(`${dist}/embed.js is missing: run npm run build`);
  const size = (bytes) =>
    bytes >= 4 * 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
  let raw = 0,
    packed = 0;
  let rows = 0;
  const lines = readFileSync(docFile, 'utf8').split('\n');
  const start = lines.findIndex((l) => /^## Files a teacher copies/.test(l));
  if (start < 0) throw new Error('docs/widgets.md has no "Files a teacher copies" section');
  for (let k = start + 1; k < lines.length && !/^## /.test(lines[k]); ++k) {
    const m = lines[k].match(/^\| `([^`]+)` \| ([^|]+) \|(.*)$/);
    if (!m) continue;
    const file = path.join(dist, m[1]);
    if (!existsSync(file) || !/^\d+(\.\d+)? (KB|MB)$/.test(m[2].trim())) continue;
    const bytes = statSync(file).size;
    if (m[1].endsWith('.wasm')) {
      raw += bytes;
      packed += gzipSync(readFileSync(file), { level: 6 }).length;
    }
    lines[k] = `| \`${m[1]}\` | ${size(bytes)} |${m[3]}`;
    ++rows;
  }
  if (!raw) throw new Error(`no .wasm file of the table is in ${dist}`);
  const pct = Math.round((100 * packed) / raw);
  let text = lines.join('\n');
  const before = text;
  text = text.replace(
    /\(gzip shrinks the `\.wasm` files to about \d+ %\)/,
    `(gzip shrinks the \`.wasm\` files to about ${pct} %)`
  );
  if (text === before && !before.includes(`about ${pct} %`))
    throw new Error('docs/widgets.md: the gzip sentence is gone');
  writeFileSync(docFile, text);
  console.log(`docs/widgets.md: ${rows} sizes from ${path.relative(root, dist) || dist}; gzip ${pct} % of the .wasm`);
} catch (e) {
  console.error(`widget-sizes: ${e.message}`);
  process.exit(1);
}
