// The words a translator's training data contained, and which words of a sentence it never saw.
// A word is a whitespace-separated token without its leading and trailing punctuation, in lower
// case (German capitalises nouns and the first word of a sentence alike). The same function
// writes models/<name>.words.json (experiments/translator.mjs) and reads the reader's sentence here.
export function wordKey(token) {
  return token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toLowerCase();
}

// The sorted, distinct keys of the source sides of TSV lines (source<TAB>target); a leading
// tag token such as "<lex>" is not a word.
export function trainingWords(lines) {
  const seen = new Set();
  for (const line of lines) {
    const src = line.split('\t')[0];
    for (const tok of src.split(/\s+/)) {
      if (/^<[a-z]+>$/.test(tok)) continue;
      const k = wordKey(tok);
      if (k) seen.add(k);
    }
  }
  return [...seen].sort();
}

// BPE source pieces ("▁" starts a word) grouped into words: [{ text, pieces: [i, ...], known }].
// known: whether the training data held the word (words without letters or digits count as
// known: punctuation alone is no unknown word).
export function markUnknown(pieces, known) {
  const words = [];
  pieces.forEach((p, i) => {
    if (p.startsWith('▁') || !words.length) words.push({ text: p.replace(/^▁/, ''), pieces: [i] });
    else {
      words.at(-1).text += p;
      words.at(-1).pieces.push(i);
    }
  });
  for (const w of words) {
    const k = wordKey(w.text);
    w.known = !k || known.has(k);
  }
  return words;
}
