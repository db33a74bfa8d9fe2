// Slicing the engine's attention maps ([B,H,T,S] weights of one named sublayer) for display.
export function findMap(data, name) {
  return (data?.maps ?? []).find((m) => m.name === name) ?? null;
}

// The model's JSON config from a session's info (nested under "model" when the session was
// built from a full config, flat when loaded from a checkpoint).
export function modelConfig(info) {
  const c = info?.config ?? {};
  return typeof c.model === 'object' && c.model ? c.model : c;
}

// Token strings for target ids, learned from the task's own examples (ids and text pairs).
export function vocabFrom(ex) {
  const v = new Map();
  ex.tgt.forEach((ids, k) => {
    const words = String(ex.tgtText[k]).trim().split(/\s+/);
    const chars = [...String(ex.tgtText[k]).replace(/\s+/g, '')];
    const toks = words.length === ids.length ? words : chars.length === ids.length ? chars : null;
    if (toks) ids.forEach((id, i) => v.set(id, toks[i]));
  });
  return (id) => (id === 2 ? '</s>' : (v.get(id) ?? `#${id}`));
}

// Head h of example 0 as [T, S]; h = -1 gives the mean over heads.
export function headMatrix(m, h) {
  const TS = m.T * m.S;
  if (h >= 0) return m.weights.slice(h * TS, (h + 1) * TS);
  const out = new Float32Array(TS);
  for (let k = 0; k < m.H; k++) for (let i = 0; i < TS; i++) out[i] += m.weights[k * TS + i] / m.H;
  return out;
}

// The k longest examples of a pool (more tokens make richer maps), as a pool of the same shape.
export function longest(ex, k) {
  const idx = ex.src
    .map((s, i) => [s.length, i])
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, k)
    .map((p) => p[1]);
  return {
    src: idx.map((i) => ex.src[i]),
    tgt: idx.map((i) => ex.tgt[i]),
    srcText: idx.map((i) => ex.srcText[i]),
    tgtText: idx.map((i) => ex.tgtText[i]),
  };
}
