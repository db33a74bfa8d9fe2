// The corpus builder of `npm run data` (scripts/data/corpora.py, run with the system python3) on
// a small dictionary of our own in Ding's format: the example sentences split by the hash of
// their source as always; every other item of an entry becomes a lexical item, tagged "<lex>",
// with its first ";" alternative and no annotations or glosses; an item that contains a held-out
// sentence is left out; the ablation file drops every item of an entry whose sentence is held
// out; counts.json counts what was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './engine.mjs';

const split = (s) => {
  const bucket = parseInt(createHash('sha1').update(s, 'utf8').digest('hex').slice(0, 8), 16) % 100;
  return bucket < 5 ? 'test' : bucket < 8 ? 'valid' : 'train';
};

// Sentences "Der Hund Nummer N schläft." until one lands in test and one in train.
function sentences() {
  const found = {};
  for (let n = 1; !(found.test && found.train); n++) {
    const s = `Der Hund Nummer ${n} schläft.`;
    found[split(s)] ??= { de: s, en: `Dog number ${n} sleeps.` };
  }
  return found;
}

test('npm run data: sentences as before, lexical items tagged, held-out knowledge kept apart', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-corpora-'));
  const { test: held, train } = sentences();
  const ding =
    [
      '# a comment line',
      `Hund {m}; Köter {m} [ugs.] | Hunde {pl} | ${held.de} :: dog; hound | dogs | ${held.en}`,
      `Katze {f} (Haustier) | Katzen {pl} | ${train.de} :: cat (pet) | cats | ${train.en}`,
      'Garten {m} | im Garten :: garden | in the garden',
      'Garten {m} :: garden', // the same item again: written once
      `das Zitat „${held.de}“ :: the quote "${held.en}"`, // contains a held-out sentence
      'A / B :: A or B', // not plain text
      'eins | zwei :: one', // items that do not pair up: the line is skipped
    ].join('\n') + '\n';
  writeFileSync(path.join(dir, 'de-en.txt'), ding);
  writeFileSync(path.join(dir, 'es.imp'), '$$$Genesis 1:1\nEn el principio\n');
  writeFileSync(path.join(dir, 'en.imp'), '$$$Genesis 1:1\nIn the beginning\n');
  execFileSync('/usr/bin/python3', [
    path.join(root, 'scripts', 'data', 'corpora.py'),
    '--out',
    path.join(dir, 'out'),
    '--ding',
    path.join(dir, 'de-en.txt'),
    '--bible-src',
    path.join(dir, 'es.imp'),
    '--bible-tgt',
    path.join(dir, 'en.imp'),
  ]);
  const read = (f) => readFileSync(path.join(dir, 'out', 'de-en', f), 'utf8');
  assert.equal(read('test.tsv'), `${held.de}\t${held.en}\n`);
  assert.equal(read('train.tsv'), `${train.de}\t${train.en}\n`);
  assert.equal(read('valid.tsv'), '');
  assert.deepEqual(read('lexicon.tsv').trim().split('\n'), [
    '<lex> Hund\tdog',
    '<lex> Hunde\tdogs',
    '<lex> Katze\tcat',
    '<lex> Katzen\tcats',
    '<lex> Garten\tgarden',
    '<lex> im Garten\tin the garden',
  ]);
  // the entry of the held-out sentence gives the ablation nothing
  assert.deepEqual(read('lexicon-ablation.tsv').trim().split('\n'), [
    '<lex> Katze\tcat',
    '<lex> Katzen\tcats',
    '<lex> Garten\tgarden',
    '<lex> im Garten\tin the garden',
  ]);
  const counts = JSON.parse(read('counts.json'));
  assert.deepEqual(
    { ...counts },
    {
      train: 1,
      valid: 0,
      test: 1,
      items: 9,
      unusable: 1,
      held_out_overlap: 1,
      duplicates: 1,
      entries_with_held_out_sentence: 1,
      ablation_removed: 2,
      lexicon: 6,
      lexicon_ablation: 4,
      dictionary_lines: 6,
      lexicon_tag: '<lex>',
    }
  );
  assert.match(read('ATTRIBUTION.txt'), /lexicon\.tsv/);
});
