// The test split's coverage by the translator's training data (experiments/translate-sweep.mjs
// writes it into sweep.json; scripts/lib/readme-tables.mjs makes the docs table from it).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

// How much of the test split the training pairs have seen: the share of test words (lower-cased
// runs of letters and digits) that never occur on the same side of train.tsv, and the share of
// test sentences holding at least one such word. A word never seen in training cannot be
// translated from the pairs alone (its BPE pieces may still be copied or guessed). The same
// shares with corpus v2's dictionary items added (lexicon.tsv), and with its ablation's
// (lexicon-ablation.tsv), say how much of that gap the dictionary closes.
export function coverage(DATA) {
  const pairs = (f) =>
    existsSync(path.join(DATA, f))
      ? readFileSync(path.join(DATA, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t'))
      : null;
  const words = (s) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const train = pairs('train.tsv'),
    testPairs = pairs('test.tsv'),
    lexicon = pairs('lexicon.tsv'),
    ablation = pairs('lexicon-ablation.tsv');
  return ['de', 'en'].map((lang, side) => {
    const seen = new Map();
    for (const p of train) for (const w of words(p[side])) seen.set(w, (seen.get(w) ?? 0) + 1);
    const all = testPairs.flatMap((p) => words(p[side]));
    const unseenBy = (known) => {
      const gap = (w) => !seen.has(w) && !known.has(w);
      return {
        unseenWords: all.filter(gap).length / all.length,
        sentencesWithUnseen: testPairs.filter((p) => words(p[side]).some(gap)).length / testPairs.length,
      };
    };
    const vocab = (items) => new Set(items.flatMap((p) => words(p[side])));
    const once = [...seen.values()].filter((n) => n === 1).length;
    return {
      lang,
      testWords: all.length,
      ...unseenBy(new Set()),
      trainTypes: seen.size,
      trainSingletons: once / seen.size,
      ...(lexicon && ablation
        ? { withLexicon: unseenBy(vocab(lexicon)), withAblation: unseenBy(vocab(ablation)) }
        : {}),
    };
  });
}
