// The guide's sections in order: the content fragment id (web/i18n/content/{ko,en}/<id>.html)
// and the demos its placeholders name. The fallback fragment (used while a section's prose is
// missing) is built from these demo names and the section's title/summary strings.
export const SECTIONS = [
  { id: 's01', demos: ['lm'] },
  { id: 's02', demos: ['bottleneck'] },
  { id: 's03', demos: ['reverse'] },
  { id: 's04', demos: ['bahdanau'] },
  { id: 's05', demos: ['sdpa', 'mixing'] },
  { id: 's06', demos: ['self-attention'] },
  { id: 's07', demos: ['decoder', 'translate'] },
  { id: 's08', demos: ['multihead'] },
  { id: 's09', demos: ['positional'] },
  { id: 's10', demos: ['pointer', 'ntm', 'order'] },
  { id: 's11', demos: ['cost'] },
  { id: 's12', demos: ['code'] },
  { id: 'playground', demos: ['playground'] },
];

export const DEMOS = SECTIONS.flatMap((s) => s.demos);
