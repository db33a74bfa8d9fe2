// Fingerprints of the source documents' sentences, so the content test can tell whether a guide
// fragment repeats one of them word for word without the repository holding their text.
// A "sentence" is what the before-stop hook uses: split on newlines and . ! ? 。, whitespace
// collapsed, at least 30 characters. Each is stored as its UTF-16 length and two rolling hashes.
// Regenerate after the sources change: node tests/node/content-seeds.mjs /path/to/seeds
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const fixturePath = path.join(here, '..', 'fixtures', 'content', 'seed-sentences.json');

// Two polynomial hashes modulo 2^32 (Math.imul keeps them exact), with different odd bases.
const B1 = 0x01000193,
  B2 = 0x5bd1e995;

export function flatten(text) {
  return text.replace(/\s+/g, ' ');
}

export function sentences(text) {
  return text
    .split(/[\n.!?。]+/)
    .map((part) => flatten(part).trim())
    .filter((s) => [...s].length >= 30);
}

export function fingerprint(s) {
  let h1 = 0,
    h2 = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = (Math.imul(h1, B1) + c) | 0;
    h2 = (Math.imul(h2, B2) + c) | 0;
  }
  return `${s.length}:${h1 >>> 0}:${h2 >>> 0}`;
}

function power(base, n) {
  let r = 1;
  for (let i = 0; i < n; i++) r = Math.imul(r, base);
  return r;
}

// Every window of `text` whose fingerprint is in `known` (a Set from fingerprint()), as
// [start, length] pairs. One rolling pass per distinct sentence length.
export function findFingerprints(text, known) {
  const lengths = new Set([...known].map((f) => Number(f.split(':')[0])));
  const hits = [];
  for (const L of lengths) {
    if (L > text.length) continue;
    const t1 = power(B1, L - 1),
      t2 = power(B2, L - 1);
    const want = new Set([...known].filter((f) => f.startsWith(`${L}:`)).map((f) => f.split(':')[1] >>> 0));
    let h1 = 0,
      h2 = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (i >= L) {
        const old = text.charCodeAt(i - L);
        h1 = (h1 - Math.imul(old, t1)) | 0;
        h2 = (h2 - Math.imul(old, t2)) | 0;
      }
      h1 = (Math.imul(h1, B1) + c) | 0;
      h2 = (Math.imul(h2, B2) + c) | 0;
      if (i >= L - 1 && want.has(h1 >>> 0) && known.has(`${L}:${h1 >>> 0}:${h2 >>> 0}`)) hits.push([i - L + 1, L]);
    }
  }
  return hits;
}

export function seedSentences(dir) {
  const all = new Set();
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.txt'))
    .sort())
    for (const s of sentences(readFileSync(path.join(dir, name), 'utf8'))) all.add(s);
  return all;
}

export function readFixture() {
  return new Set(JSON.parse(readFileSync(fixturePath, 'utf8')).fingerprints);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node tests/node/content-seeds.mjs <seeds-dir>');
  const fingerprints = [...new Set([...seedSentences(dir)].map(fingerprint))].sort();
  mkdirSync(path.dirname(fixturePath), { recursive: true });
  writeFileSync(fixturePath, JSON.stringify({ fingerprints }, null, 0) + '\n');
  console.log(`${fingerprints.length} sentence fingerprints written to ${path.relative(process.cwd(), fixturePath)}`);
}
