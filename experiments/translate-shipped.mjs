// The shipped translator measured again, as a reader of docs/translator.md can check it:
//   node experiments/translate-shipped.mjs        (needs build/native/attn and `npm run data`)
// Scores the float16 file the page loads (web/public/models/translate-de-en.safetensors) on the
// 836 test pairs with `attn eval` (beam 4, α 0.6, sacreBLEU 13a), scores the copy baseline
// (`attn eval --copy-source`: the German source as the English hypothesis), reads the training
// record the file carries in its metadata (attnlab_train: Adam steps, the recipe's options) and
// writes docs/translate/shipped.json with the command, the commit, the CPU and the date; the
// translate block of docs/translator.md is written from it (scripts/lib/readme-tables.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, openSync, readSync, closeSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuName } from './lib/run-store.mjs';
import { writeDocs } from '../scripts/lib/readme-tables.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const attn = path.join(root, 'build', 'native', 'attn');
const model = path.join(root, 'web', 'public', 'models', 'translate-de-en.safetensors');
const test = path.join(root, 'build', 'data', 'de-en', 'test.tsv');
const out = path.join(root, 'docs', 'translate', 'shipped.json');

function fail(message) {
  console.error(`translate-shipped: ${message}`);
  process.exit(1);
}
if (!existsSync(attn)) fail('build/native/attn is missing: run npm run build:engine first');
if (!existsSync(test)) fail('build/data/de-en/test.tsv is missing: run npm run data first');
if (!existsSync(model)) fail(`${path.relative(root, model)} is missing`);

// attn eval's JSON line (its last line of stdout)
function evaluate(args) {
  const r = spawnSync(attn, ['eval', '--test', test, ...args], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) fail(`attn eval ${args.join(' ')} exited with ${r.status}: ${r.stderr.trim().split('\n').pop()}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// The safetensors header's __metadata__ (the engine writes its config and training record there).
function metadata(file) {
  const fd = openSync(file, 'r');
  try {
    const len = Buffer.alloc(8);
    readSync(fd, len, 0, 8, 0);
    const n = Number(len.readBigUInt64LE());
    const header = Buffer.alloc(n);
    readSync(fd, header, 0, n, 8);
    return JSON.parse(header.toString('utf8')).__metadata__ ?? {};
  } finally {
    closeSync(fd);
  }
}

const started = new Date();
const copy = evaluate(['--copy-source']);
const shipped = evaluate(['--checkpoint', model, '--beam', '4', '--alpha', '0.6']);
const meta = metadata(model);
const training = meta.attnlab_train ? JSON.parse(meta.attnlab_train) : null;
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
} catch {
  /* not a git checkout */
}
const result = {
  source: {
    command: 'node experiments/translate-shipped.mjs',
    commit,
    machine: cpuName(),
    date: started.toISOString(),
    written: 'attn eval of the shipped file and of the copy baseline; the training record from the file',
  },
  file: path.relative(path.join(root, 'web', 'public'), model),
  testPairs: shipped.sentences,
  copy: { bleu: copy.bleu, detail: copy.detail },
  shipped: { bleu: shipped.bleu, detail: shipped.detail, beam: shipped.beam, alpha: shipped.alpha },
  training: training
    ? {
        adamSteps: training.adam_steps,
        epoch: training.batcher?.epoch ?? null,
        examples: training.batcher?.examples ?? null,
        maxTokens: training.options?.max_tokens ?? null,
        labelSmoothing: training.options?.label_smoothing ?? null,
        dropout: training.options?.dropout ?? null,
        seed: training.options?.seed ?? null,
      }
    : null,
};
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
console.log(`shipped: ${shipped.detail}`);
console.log(`copy baseline: ${copy.detail}`);
console.log(`wrote ${path.relative(root, out)}`);
for (const f of writeDocs(root).files) console.log(`wrote ${f}`);
