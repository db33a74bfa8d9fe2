// The guide's sections in order, the one list that orders them. Each has a stable name, its key:
// the page anchor (#bahdanau), the content fragment (web/i18n/content/{ko,en}/<key>.html), the
// UI strings (section.<key>.nav/title/summary) and the target of cross-references in the prose
// (<a class="ref" href="#key"></a>, filled in with the section's number). `demos` are the demos
// its placeholders name; the fallback fragment (used while a section's prose is missing) is
// built from them and the section's title/summary strings. Numbers (§1, §2, …) come from the
// position in this list; an `unnumbered` section (the playground) carries none. Inserting a
// section is one row here plus its fragments and strings: nothing else is renumbered.
export const SECTIONS = [
  { id: 'language-model', demos: ['lm'] },
  { id: 'bottleneck', demos: ['bottleneck'] },
  { id: 'reversal', demos: ['reverse'] },
  { id: 'bahdanau', demos: ['bahdanau'] },
  { id: 'dot-product', demos: ['sdpa', 'mixing'] },
  { id: 'self-attention', demos: ['self-attention'] },
  { id: 'decoder', demos: ['decoder', 'translate'] },
  { id: 'multihead', demos: ['multihead'] },
  { id: 'positional', demos: ['positional'] },
  { id: 'relatives', demos: ['pointer', 'ntm', 'order'] },
  { id: 'results', demos: ['cost'] },
  { id: 'code', demos: ['code'] },
  { id: 'playground', demos: ['playground'], unnumbered: true },
];

export const DEMOS = SECTIONS.flatMap((s) => s.demos);

// The positional anchors the sections had before they were named (#s01 … #s12). Frozen: links
// and bookmarks made then keep landing on the same section whatever is inserted later.
export const LEGACY_IDS = Object.freeze({
  s01: 'language-model',
  s02: 'bottleneck',
  s03: 'reversal',
  s04: 'bahdanau',
  s05: 'dot-product',
  s06: 'self-attention',
  s07: 'decoder',
  s08: 'multihead',
  s09: 'positional',
  s10: 'relatives',
  s11: 'results',
  s12: 'code',
});

const numbers = new Map(SECTIONS.filter((s) => !s.unnumbered).map((s, i) => [s.id, i + 1]));

// The section's key for a current or legacy anchor, or null.
export function sectionKey(anchor) {
  if (SECTIONS.some((s) => s.id === anchor)) return anchor;
  return Object.hasOwn(LEGACY_IDS, anchor) ? LEGACY_IDS[anchor] : null;
}

// "§N" for a numbered section, '' for an unnumbered one; throws for an unknown key, so a
// cross-reference to a section that is not in the list cannot go unnoticed.
export function sectionLabel(key) {
  if (!SECTIONS.some((s) => s.id === key)) throw new Error(`unknown section '${key}'`);
  return numbers.has(key) ? `§${numbers.get(key)}` : '';
}
