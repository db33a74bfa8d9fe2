// Next-token sampling on the language model's logits z (one row, V entries), the arithmetic the
// §1 generator shows: q = softmax(z / T) over the k tokens with the largest logits (k = 0: all),
// then the nucleus: the fewest of those, likeliest first, whose q adds up to at least p (top-p;
// p = 1 keeps them all); the kept tokens' q renormalised, zero elsewhere. T = 0 is the argmax
// (greedy). A token is drawn by inverse CDF with one uniform number u from a seeded generator,
// so a seed, a prompt and the three settings reproduce the same text.

// The word list stored in an LM checkpoint's training metadata (attnlab_train.vocab), or null.
export function checkpointVocab(bytes) {
  try {
    const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const n = Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0, true));
    if (n <= 0 || 8 + n > b.length) return null;
    const meta = JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + n))).__metadata__ ?? {};
    const vocab = JSON.parse(meta.attnlab_train ?? 'null')?.vocab;
    return Array.isArray(vocab) ? vocab : null;
  } catch {
    return null;
  }
}

// Text from token names: BPE pieces ("▁" starts a word, "<0xNN>" a byte) joined into words;
// word-level tokens joined with spaces. Specials (<pad> <s> </s>) are left out.
export function decodePieces(vocab, ids) {
  const names = ids.map((id) => vocab[id]).filter((n) => n !== undefined && !['<pad>', '<s>', '</s>'].includes(n));
  if (!isSubword(vocab)) return names.join(' ');
  const bytes = [];
  const enc = new TextEncoder();
  for (const n of names) {
    const b = /^<0x([0-9A-F]{2})>$/.exec(n);
    if (b) bytes.push(parseInt(b[1], 16));
    else bytes.push(...enc.encode(n.replaceAll('\u2581', ' ')));
  }
  return new TextDecoder().decode(new Uint8Array(bytes)).trim();
}

// Whether a vocabulary is BPE pieces (some token starts with "▁").
export const isSubword = (vocab) => vocab.some((n) => typeof n === 'string' && n.startsWith('\u2581'));

// Token ids by decreasing logit (ties: lower id first).
export function ranked(logits) {
  return Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b);
}

// softmax(z / T) over all V tokens (T > 0), in double precision.
export function softmax(logits, T = 1) {
  let mx = -Infinity;
  for (const z of logits) mx = Math.max(mx, z);
  const out = new Float64Array(logits.length);
  let s = 0;
  for (let i = 0; i < logits.length; ++i) s += out[i] = Math.exp((logits[i] - mx) / T);
  for (let i = 0; i < out.length; ++i) out[i] /= s;
  return out;
}

// The sampling distribution: {p: Float64Array(V), keep: ids with p > 0 by decreasing logit}.
export function reshape(logits, { T, k, p: top = 1 }) {
  if (!(T >= 0) || !Number.isFinite(T)) throw new RangeError(`temperature must be a number >= 0, got ${T}`);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`top-k must be an integer >= 0, got ${k}`);
  if (!(top > 0 && top <= 1)) throw new RangeError(`top-p must be in (0, 1], got ${top}`);
  const order = ranked(logits);
  const p = new Float64Array(logits.length);
  if (T === 0) {
    p[order[0]] = 1;
    return { p, keep: [order[0]] };
  }
  let keep = k === 0 ? order : order.slice(0, k);
  let q = softmax(
    keep.map((i) => logits[i]),
    T
  );
  if (top < 1) {
    let n = 0,
      c = 0;
    while (n < keep.length && c < top) c += q[n++];
    keep = keep.slice(0, n);
    q = q.subarray(0, n).map((x) => x / c);
  }
  keep.forEach((id, j) => {
    p[id] = q[j];
  });
  return { p, keep };
}

// The token drawn with uniform number u in [0, 1): the first kept token whose cumulative
// probability (in order of decreasing logit) passes u.
export function pick({ p, keep }, u) {
  let c = 0;
  for (const id of keep) {
    c += p[id];
    if (u < c) return id;
  }
  return keep[keep.length - 1];
}
