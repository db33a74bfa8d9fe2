// Build-time (Node) half of the `code` demo (web/demos/code/index.js): a Vite plugin serving
// `virtual:attnlab-code`, the engine's own C++ for attention, the causal mask, the multi-head
// split and the positional encoding, cut out of cpp/ when the page is built (doc comment above +
// the balanced body).
// Each snippet lists candidate locations; the first one present in the tree is used.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

export const SNIPPETS = [
  { id: 'attention', candidates: [['cpp/kernels/attention.cpp', /^void attention_forward\(/]] },
  {
    id: 'mask',
    candidates: [
      ['cpp/kernels/softmax.cpp', /^void softmax_forward\(/],
      ['cpp/kernels/attention.cpp', /^inline bool masked\(/],
    ],
  },
  { id: 'multihead', candidates: [['cpp/layers/attention.cpp', /^void MultiHeadAttention::forward\(/]] },
  {
    id: 'positional',
    candidates: [
      ['cpp/layers/embedding.cpp', /^std::vector<float> sinusoidal_table\(/],
      ['cpp/api/functions.cpp', /^std::vector<float> positional_encoding\(/],
    ],
  },
];

// Lines [from, to) of the definition starting at `start`: leading // comments, then up to the
// brace that closes the first one opened (braces inside comments and literals are skipped).
export function cutDefinition(lines, start) {
  let from = start;
  while (from > 0 && /^\s*\/\//.test(lines[from - 1])) from--;
  let depth = 0,
    opened = false;
  for (let i = start; i < lines.length; i++) {
    const code = lines[i].replace(/\/\/.*$/, '').replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '');
    for (const ch of code) {
      if (ch === '{') {
        depth++;
        opened = true;
      } else if (ch === '}') depth--;
    }
    if (opened && depth === 0) return [from, i + 1];
  }
  return [from, lines.length];
}

export function extractSnippets(root) {
  return SNIPPETS.map(({ id, candidates }) => {
    for (const [file, re] of candidates) {
      const full = path.join(root, file);
      if (!existsSync(full)) continue;
      const lines = readFileSync(full, 'utf8').split('\n');
      const start = lines.findIndex((l) => re.test(l));
      if (start < 0) continue;
      const [from, to] = cutDefinition(lines, start);
      return { id, file, line: from + 1, code: lines.slice(from, to).join('\n') };
    }
    return { id, file: candidates[0][0], line: 0, code: '' };
  });
}

export function codePlugin(root) {
  const id = 'virtual:attnlab-code';
  return {
    name: 'attnlab-code',
    resolveId: (src) => (src === id ? `\0${id}` : null),
    load(resolved) {
      if (resolved !== `\0${id}`) return null;
      const snippets = extractSnippets(root);
      for (const s of snippets) if (s.line) this.addWatchFile(path.join(root, s.file));
      return `export default ${JSON.stringify(snippets)};`;
    },
  };
}
