// Runs the shipped translator in the single-thread wasm engine (node) over the sentences of a
// file (one a line), beam 4: prints {ms_per_sentence, tokens: [[ids]...]} as one JSON line.
// The model loads before the clock starts, as it does in the page before the first translation.
// Used by bench/rows/translate.mjs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNodeApi, releaseEngine } from '../../tests/node/engine.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const sentences = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
const engine = await loadNodeApi('wasm');
const session = engine.loadSession(
  readFileSync(path.join(root, 'web', 'public', 'models', 'translate-de-en.safetensors'))
);
session.decode([session.encodeText(sentences[0])], { beam: 4 }); // warm-up
const tokens = [];
const t0 = performance.now();
for (const s of sentences) {
  const src = session.encodeText(s); // beam search alone, capped as natively: 2n + 10 pieces
  tokens.push(Array.from(session.decode([src], { beam: 4, alpha: 0.6, maxLen: 2 * src.length + 10 })[0]));
}
const ms = performance.now() - t0;
session.dispose();
releaseEngine(engine);
console.log(JSON.stringify({ ms_per_sentence: ms / sentences.length, sentences: sentences.length, tokens }));
