// The guide's prose fragments (web/i18n/content/{ko,en}/<key>.html, one per section of
// web/sections.js): each exists in both languages, is well-formed HTML of the allowed kind,
// carries no section number of its own (the page numbers sections from their order) and refers
// to other sections only by key, renders its formulas with KaTeX, carries the same demo
// placeholders, cross-references, formulas and quoted figures in ko and en as the README and
// web/sections.js list, and repeats no sentence of the source documents (fingerprints in
// tests/fixtures/content/seed-sentences.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import katex from 'katex';
import { findFingerprints, fingerprint, flatten, readFixture, seedSentences } from './content-seeds.mjs';
import { SECTIONS } from '../../web/sections.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = path.join(root, 'web', 'i18n', 'content');
const LANGS = ['ko', 'en'];
const FRAGMENTS = SECTIONS.map((s) => s.id);
const DEMOS = [
  'lm',
  'bottleneck',
  'reverse',
  'bahdanau',
  'sdpa',
  'mixing',
  'self-attention',
  'decoder',
  'translate',
  'multihead',
  'positional',
  'pointer',
  'ntm',
  'order',
  'cost',
  'code',
  'playground',
];
const TAGS = new Set([
  'h2',
  'h3',
  'p',
  'span',
  'div',
  'ul',
  'ol',
  'li',
  'strong',
  'em',
  'code',
  'a',
  'table',
  'caption',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'figure',
  'figcaption',
  'aside',
  'br',
  'sub',
  'sup',
]);
const VOID = new Set(['br']);
const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: '\u00a0' };

const read = (lang, name) => readFileSync(path.join(dir, lang, `${name}.html`), 'utf8');
const decode = (s) => s.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e) => ENTITIES[e]);

// Tokenises a fragment into a tree; throws on anything that is not balanced, allowed HTML.
function parse(html) {
  const top = { tag: '#root', attrs: {}, children: [] };
  const stack = [top];
  const re =
    /<!--[\s\S]*?-->|<\/([a-z][a-z0-9]*)\s*>|<([a-z][a-z0-9]*)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*\/?>|([^<]+)|(<)/g;
  let m;
  while ((m = re.exec(html))) {
    const [, close, open, attrText, text, stray] = m;
    const parent = stack[stack.length - 1];
    if (stray)
      throw new Error(`unescaped '<' or malformed tag at offset ${m.index}: ${html.slice(m.index, m.index + 40)}`);
    if (text !== undefined) {
      if (/&(?![a-z]+;|#\d+;)/.test(text)) throw new Error(`bare '&' in text: ${text.trim().slice(0, 60)}`);
      parent.children.push(decode(text));
    } else if (open) {
      if (!TAGS.has(open)) throw new Error(`element <${open}> is not allowed`);
      const attrs = {};
      for (const a of attrText.matchAll(/([a-z-]+)(?:="([^"]*)")?/g)) attrs[a[1]] = a[2] ?? '';
      const node = { tag: open, attrs, children: [] };
      parent.children.push(node);
      if (!VOID.has(open)) stack.push(node);
    } else if (close) {
      if (parent.tag !== close) throw new Error(`</${close}> closes <${parent.tag}>`);
      stack.pop();
    }
  }
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1].tag}> is never closed`);
  return top;
}

function* walk(node) {
  for (const c of node.children) {
    if (typeof c === 'string') continue;
    yield c;
    yield* walk(c);
  }
}
const text = (node) => node.children.map((c) => (typeof c === 'string' ? c : text(c))).join('');
const hasClass = (node, cls) => (node.attrs.class ?? '').split(/\s+/).includes(cls);

for (const lang of LANGS) {
  for (const name of FRAGMENTS) {
    test(`${lang}/${name}.html exists and is balanced, allowed HTML`, () => {
      assert.ok(existsSync(path.join(dir, lang, `${name}.html`)), `missing ${lang}/${name}.html`);
      const tree = parse(read(lang, name));
      const first = tree.children.find((c) => typeof c !== 'string' || c.trim());
      assert.equal(first?.tag, 'h2', 'a fragment begins with its <h2> title');
      assert.equal([...walk(tree)].filter((n) => n.tag === 'h2').length, 1, 'exactly one <h2>');
      for (const n of walk(tree)) {
        for (const a of Object.keys(n.attrs)) {
          assert.ok(
            ['class', 'href', 'data-demo', 'data-fact'].includes(a),
            `attribute ${a} on <${n.tag}> is not allowed`
          );
        }
        if ('data-fact' in n.attrs) {
          // a figure filled from a model (web/demos/common/facts.js)
          assert.equal(n.tag, 'span');
          assert.equal(n.children.length, 0, 'a fact is empty (the page fills it from the model)');
        }
        if (n.tag === 'a' && hasClass(n, 'ref')) {
          assert.ok(
            FRAGMENTS.includes((n.attrs.href ?? '').replace(/^#/, '')) && n.attrs.href.startsWith('#'),
            `a cross-reference names a section of web/sections.js: ${n.attrs.href}`
          );
          assert.equal(n.children.length, 0, 'a cross-reference is empty (the page writes the number)');
        } else if (n.tag === 'a') {
          assert.match(
            n.attrs.href ?? '',
            /^https:\/\/arxiv\.org\/abs\/\d{4}\.\d{4,5}$/,
            'links go to arXiv papers only'
          );
        }
        if ('data-demo' in n.attrs) {
          assert.ok(DEMOS.includes(n.attrs['data-demo']), `unknown demo ${n.attrs['data-demo']}`);
          assert.equal(n.tag, 'div');
          assert.equal(n.children.length, 0, 'a placeholder is empty');
        }
        if (n.tag === 'figure' && hasClass(n, 'demo')) {
          const parts = n.children.filter((c) => typeof c !== 'string');
          assert.deepEqual(
            parts.map((c) => c.tag),
            ['div', 'figcaption'],
            'a demo figure is placeholder + caption'
          );
          assert.ok(text(parts[1]).trim().length > 40, 'the caption says what the engine computes');
        }
        if (n.tag === 'table' && hasClass(n, 'paper')) {
          const cap = n.children.find((c) => c.tag === 'caption');
          assert.ok(cap, 'a quoted table has a caption');
          assert.match(text(cap), /(19|20)\d\d/, 'the caption names the paper and its year');
        }
      }
      const all = text(tree);
      assert.doesNotMatch(all, /§\s*\d/, 'no section number in the prose: refer to a section by key');
      assert.ok(![...walk(tree)].some((n) => hasClass(n, 'num')), 'the page numbers the heading');
      const hangul = /[\uac00-\ud7a3]/.test(all);
      assert.equal(
        hangul,
        lang === 'ko',
        lang === 'ko' ? 'Korean text expected' : 'untranslated Korean left in English'
      );
    });
  }
}

function texOf(tree) {
  const inline = [],
    block = [];
  for (const n of walk(tree)) {
    if (n.tag === 'span' && hasClass(n, 'tex')) inline.push(text(n));
    if (n.tag === 'div' && hasClass(n, 'tex-block')) block.push(text(n));
  }
  return { inline, block };
}

test('every formula renders with KaTeX', () => {
  for (const lang of LANGS)
    for (const name of FRAGMENTS) {
      const { inline, block } = texOf(parse(read(lang, name)));
      for (const [src, displayMode] of [...inline.map((s) => [s, false]), ...block.map((s) => [s, true])]) {
        assert.doesNotThrow(
          () => katex.renderToString(src, { displayMode, throwOnError: true, strict: 'error' }),
          `${lang}/${name}: ${src}`
        );
      }
    }
});

function placeholders(tree) {
  return [...walk(tree)].filter((n) => 'data-demo' in n.attrs).map((n) => n.attrs['data-demo']);
}

function references(tree) {
  return [...walk(tree)].filter((n) => n.tag === 'a' && hasClass(n, 'ref')).map((n) => n.attrs.href.slice(1));
}

test('ko and en carry the same placeholders, display formulas and quoted figures', () => {
  for (const name of FRAGMENTS) {
    const [ko, en] = LANGS.map((l) => parse(read(l, name)));
    assert.deepEqual(placeholders(en), placeholders(ko), `${name}: placeholders`);
    assert.deepEqual(references(en).sort(), references(ko).sort(), `${name}: cross-references`);
    assert.deepEqual(texOf(en).block, texOf(ko).block, `${name}: display formulas`);
    assert.deepEqual(new Set(texOf(en).inline), new Set(texOf(ko).inline), `${name}: inline formulas`);
    const figures = (tree) =>
      [...walk(tree)]
        .filter((n) => n.tag === 'table' && hasClass(n, 'paper'))
        .map((t) =>
          [...walk(t)]
            .filter((c) => c.tag === 'td')
            .map(text)
            .filter((s) => /^[\d.,%\s—–-]+$/.test(s))
        );
    assert.deepEqual(figures(en), figures(ko), `${name}: figures in the quoted tables`);
  }
});

test("the README lists each fragment's placeholders, and every demo has one", () => {
  const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
  const listed = {};
  const table = readme
    .split(/^## Placeholders per section$/m)[1]
    .split(/^## /m)[0]
    .split(/^\| --- \| --- \|$/m)[1];
  for (const m of table.matchAll(/^\| ([a-z][a-z-]*) \| ([a-z, -]+) \|$/gm)) listed[m[1]] = m[2].split(/,\s*/);
  assert.deepEqual(Object.keys(listed), FRAGMENTS, 'the README lists the sections of web/sections.js, in order');
  for (const name of FRAGMENTS) assert.deepEqual(placeholders(parse(read('ko', name))), listed[name], name);
  for (const s of SECTIONS) assert.deepEqual(s.demos, listed[s.id], `web/sections.js: demos of ${s.id}`);
  assert.deepEqual(Object.values(listed).flat().sort(), [...DEMOS].sort());
});

test('no sentence of the source documents is repeated', () => {
  const known = readFixture();
  assert.ok(known.size > 100, 'seed fingerprints are present');
  const files = [
    path.join(dir, 'README.md'),
    ...LANGS.flatMap((l) => readdirSync(path.join(dir, l)).map((f) => path.join(dir, l, f))),
  ];
  const found = [];
  for (const file of files) {
    const raw = readFileSync(file, 'utf8');
    // As the hook reads the file, and as the reader reads it (tags removed, entities decoded).
    for (const variant of [flatten(raw), flatten(decode(raw.replace(/<[^>]*>/g, '')))]) {
      for (const [at, len] of findFingerprints(variant, known))
        found.push(`${path.relative(root, file)}: "${variant.slice(at, at + len)}"`);
    }
  }
  assert.deepEqual(found, []);
});

test('the fingerprints find a copied sentence, and match the sources when they are at hand', () => {
  const known = readFixture();
  const seeds = process.env.ATTNLAB_SEEDS ?? path.join(root, '..', 'shared', 'seeds');
  // One line of a source document, kept in two pieces so that this file does not repeat it.
  const probe = ['Self-Attention의 ', '시간 및 공간 복잡도는', ' 시퀀스 길이 n에 대해 O(n^2) 입니다'].join('');
  assert.equal(findFingerprints(`<p>앞 문장. ${probe}. 뒤</p>`, known).length, 1, 'a known seed sentence is caught');
  assert.equal(findFingerprints(`<p>${probe.replace('공간', '메모리')}</p>`, known).length, 0, 'a reworded one is not');
  if (existsSync(seeds)) {
    const fresh = new Set([...seedSentences(seeds)].map(fingerprint));
    assert.deepEqual([...fresh].sort(), [...known].sort(), 'fixture is stale: rerun tests/node/content-seeds.mjs');
  }
});

// The Korean glossary (README, "## Korean terms"): one term per concept in the Korean fragments and
// in web/i18n/ko.js. What is not prose is left out: formulas, <code>, {placeholders}, English
// paper titles in “…”, the title Attention Is All You Need, and an English gloss in parentheses
// right after a Korean word, as in 덧셈형 어텐션(additive attention).
const HANGUL = /[\uac00-\ud7a3]/;
function glossary() {
  const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
  const part = readme.split(/^## Korean terms$/m)[1];
  assert.ok(part, 'the README has a "## Korean terms" table');
  const rows = [...part.split(/^## /m)[0].matchAll(/^\| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm)]
    .map((m) => m.slice(1).map((c) => c.trim()))
    .filter(([c]) => c !== 'concept' && c !== '---');
  const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A Korean variant at the start of a word; an English one as a whole word, any case, with its
  // plural, and with a hyphen, a space or nothing between its parts (self-attention, self attention).
  const pattern = (v) => {
    if (HANGUL.test(v)) return new RegExp(`(?<![\uac00-\ud7a3])${esc(v)}`);
    const word = esc(v).replace(/[- ]/g, '[- ]?').replace(/y$/, '(?:y|ie)');
    return new RegExp(`(?<![A-Za-z])${word}(?:s|es)?(?![A-Za-z])`, 'i');
  };
  return rows.map(([concept, korean, not]) => ({
    concept,
    korean: korean.split(/,\s*/),
    not: not.split(/,\s*/).map((v) => [v, pattern(v)]),
  }));
}
function proseOf(node) {
  return node.children
    .map((c) => {
      if (typeof c === 'string') return c;
      if (c.tag === 'code' || hasClass(c, 'tex') || hasClass(c, 'tex-block')) return ' ';
      return proseOf(c);
    })
    .join('');
}
const notProse = (s) =>
  s
    .replace(/\{§?[\w-]+\}/g, ' ')
    .replace(/“[^”]*”/g, (q) => (HANGUL.test(q) ? q : ' '))
    .replace(/Attention Is All You Need/g, ' ')
    .replace(/(?<=[\uac00-\ud7a3])\([A-Za-z][A-Za-z -]*\)/g, ' ');
function offTerms(text, terms) {
  const prose = notProse(text);
  const found = [];
  for (const row of terms) {
    for (const [v, re] of row.not) if (re.test(prose)) found.push(`${v} (write ${row.korean.join(', ')})`);
  }
  return found;
}

test('the Korean text writes one term per concept of the README glossary, and 여러분, never 당신', async () => {
  const terms = glossary();
  assert.ok(terms.length >= 10, 'the glossary has its rows');
  assert.ok(
    terms.some((r) => r.not.some(([v]) => v === '당신')),
    'the glossary rules out 당신'
  );
  const found = [];
  let all = '';
  for (const name of FRAGMENTS) {
    const prose = proseOf(parse(read('ko', name)));
    all += prose;
    for (const f of offTerms(prose, terms)) found.push(`ko/${name}.html: ${f}`);
  }
  const { default: ko } = await import('../../web/i18n/ko.js');
  for (const [key, s] of Object.entries(ko)) {
    all += s;
    for (const f of offTerms(s, terms)) found.push(`ko.js ${key}: ${f}`);
  }
  assert.deepEqual(found, []);
  for (const row of terms) {
    for (const k of row.korean) assert.ok(all.includes(k), `the term ${k} (${row.concept}) is in use`);
  }
});

test('the glossary check finds a variant and lets a gloss, a formula and a paper title pass', () => {
  const terms = glossary();
  const check = (html) => offTerms(proseOf(parse(html)), terms);
  assert.deepEqual(check('<p>디코더의 self-attention과 원문</p>').length, 3, 'self-attention, attention, 원문');
  assert.deepEqual(check('<p>당신의 브라우저</p>').length, 1);
  assert.deepEqual(check('<p>껍질의 넓이</p>'), [], 'a variant is matched at the start of a word only');
  const title = '“Neural Machine Translation by Jointly Learning to Align and Translate”';
  assert.deepEqual(
    check(
      `<p>덧셈형 어텐션(additive attention), ${title}, <span class="tex">\\mathrm{head}_i</span>, ` +
        '<code>attention_forward</code></p>'
    ),
    []
  );
});
