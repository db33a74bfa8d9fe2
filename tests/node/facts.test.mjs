// Figures about a model in the prose come from the model (web/demos/common/facts.js): every
// <span data-fact> names a fact that exists (a shipped checkpoint's index.json entry or config,
// read from the .safetensors header alone; a demo's FACTS), ko and en quote the same facts in
// each fragment, and no caption, nor any paragraph that quotes a model, types a shape number of
// its own (layers, heads, d_model, h, parameters, steps, BLEU, accuracy).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECTIONS } from '../../web/sections.js';
import { readHeader, modelFacts, resolveFacts, demoFacts, formatFact } from '../../web/demos/common/facts.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = path.join(root, 'web', 'i18n', 'content');
const models = path.join(root, 'web', 'public');
const index = JSON.parse(readFileSync(path.join(models, 'models', 'index.json'), 'utf8'));
const read = (lang, name) => readFileSync(path.join(dir, lang, `${name}.html`), 'utf8');
const factsOf = (html) => [...html.matchAll(/<span data-fact="([^"]+)"><\/span>/g)].map((m) => m[1]);

const loaders = {
  async model(name) {
    const entry = index[name];
    if (!entry) throw new Error(`no shipped model ${name}`);
    return modelFacts(entry, await readHeader(Readable.toWeb(createReadStream(path.join(models, entry.file)))));
  },
  demo: demoFacts,
};

// A typed shape number: digits next to a word that describes a model's shape or result.
const TYPED = [
  /\d[\d,.]*\s*(?:layers?|heads?|parameters|steps|BLEU)\b/i,
  /\b(?:BLEU|accuracy)\s*(?:of\s*)?\d/i,
  /d_\{\\text\{model\}\}\s*(?:=|of)\s*\d/,
  /d_model\s*(?:=|of)\s*\d/,
  /\bh\s*=\s*\d/,
  /\b(?:one|two|three|four|five|six|eight) (?:layers|heads)\b/i,
  /\d+\s*(?:층|스텝|개의? 헤드)/,
  /헤드\s*\d+\s*개/,
  /BLEU\s*\d/,
  /파라미터\s*\d/,
].map((re) => new RegExp(re.source, `${re.flags}g`));
// The text a reader sees with the facts left out (tags removed).
const typedIn = (html) => {
  const plain = html.replace(/<span data-fact="[^"]+"><\/span>/g, '□').replace(/<[^>]+>/g, '');
  return TYPED.flatMap((re) => [...plain.matchAll(re)].map((m) => m[0]));
};

test('every fact in the prose names a fact the model or demo has', async () => {
  const keys = new Set(SECTIONS.flatMap((s) => ['ko', 'en'].flatMap((l) => factsOf(read(l, s.id)))));
  assert.ok(keys.size >= 10, `facts are used (${keys.size})`);
  const values = await resolveFacts([...keys], loaders);
  for (const k of keys) assert.notEqual(values[k], undefined, `${k} has no value`);
  // spot checks against the sources themselves
  assert.equal(values['model.translate-de-en.d_model'], 256);
  assert.equal(values['model.lm-moby-dick.steps'], index['lm-moby-dick'].steps);
  assert.equal(formatFact(values['demo.multihead.heads']), '1, 4, 16, 32');
});

test('ko and en quote the same facts in each fragment', () => {
  for (const s of SECTIONS) assert.deepEqual(factsOf(read('ko', s.id)).sort(), factsOf(read('en', s.id)).sort(), s.id);
});

test('no caption, and no paragraph that quotes a model, types a shape number', () => {
  const found = [];
  for (const s of SECTIONS)
    for (const lang of ['ko', 'en']) {
      const html = read(lang, s.id);
      const parts = [...html.matchAll(/<figcaption>([\s\S]*?)<\/figcaption>/g), ...html.matchAll(/<p>([\s\S]*?)<\/p>/g)]
        .map((m) => m[1])
        .filter((x, i, all) => x.includes('data-fact') || html.includes(`<figcaption>${x}</figcaption>`));
      for (const p of parts) for (const hit of typedIn(p)) found.push(`${lang}/${s.id}: "${hit}"`);
    }
  assert.deepEqual(found, []);
});

test('the typed-number check catches typed shapes and lets facts through', () => {
  assert.deepEqual(
    typedIn('a Transformer (3 layers a side, 4 heads, <span class="tex">d_{\\text{model}} = 256</span>)').length,
    3
  );
  assert.deepEqual(typedIn('<span class="tex">h = 1, 2, 4, 8</span>'), ['h = 1']);
  assert.deepEqual(typedIn('양쪽 3층, 헤드 4개'), ['3층', '헤드 4개']);
  assert.deepEqual(typedIn('헤드 1의 계산'), [], 'a head named by its number is not a shape');
  assert.deepEqual(
    typedIn('(<span data-fact="model.x.layers"></span> layers, <span data-fact="model.x.heads"></span> heads)'),
    []
  );
});

test('readHeader stops at the header of a large checkpoint and refuses garbage', async () => {
  const f = path.join(models, index['translate-de-en'].file);
  let bytes = 0;
  const counted = Readable.toWeb(
    createReadStream(f, { highWaterMark: 16384 }).on('data', (c) => {
      bytes += c.length;
    })
  );
  const h = await readHeader(counted);
  assert.equal(JSON.parse(h.__metadata__.attnlab).d_model, 256);
  assert.ok(bytes < 1 << 20, `read ${bytes} bytes of ${readFileSync(f).length}`);
  const junk = new ReadableStream({
    start(c) {
      c.enqueue(new Uint8Array(16).fill(255));
      c.close();
    },
  });
  await assert.rejects(readHeader(junk), /not a \.safetensors header/);
});

test("index.json carries each shipped model's config exactly as its file's header, so captions fetch no model", async () => {
  for (const [name, entry] of Object.entries(index)) {
    const header = await readHeader(Readable.toWeb(createReadStream(path.join(models, entry.file))));
    assert.deepEqual(
      entry.config,
      JSON.parse(header.__metadata__?.attnlab ?? '{}'),
      `${name}: config differs from ${entry.file}'s header`
    );
    assert.deepEqual(
      modelFacts(entry),
      modelFacts({ ...entry, config: undefined }, header),
      `${name}: facts from index.json alone`
    );
  }
});
