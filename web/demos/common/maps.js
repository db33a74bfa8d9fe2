// Reading the engine's inspection data: the alignment map of a one-example pass and token
// labels for the heatmap axes (the task's text split at spaces when it matches the ids).
export function alignmentMap(data, prefer = ['bahdanau', 'alignment', 'attention', 'pointer']) {
  const maps = data?.maps ?? [];
  const m = prefer.map((p) => maps.find((x) => x.name.includes(p))).find(Boolean) ?? maps[0];
  if (!m) return null;
  // first example, first head: [T, S]
  return { name: m.name, T: m.T, S: m.S, weights: m.weights.slice(0, m.T * m.S) };
}

export function tokenLabels(text, n, ids = []) {
  const words = String(text ?? '')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const chars = [...String(text ?? '').replace(/\s+/g, '')];
  const base = words.length === ids.length ? words : chars.length === ids.length ? chars : ids.map(String);
  return Array.from({ length: n }, (_, i) => base[i] ?? (i === base.length ? '</s>' : ''));
}
