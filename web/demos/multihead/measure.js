// Measures for §8's "heads, measured": per-head summaries of one attention map (example 0) and
// the teacher-forced loss and token accuracy of an inspection pass, from the engine's logits.

// For each head of map m ([B,H,T,S] weights, example 0): the attention entropy in bits averaged
// over query rows, the mean distance Σⱼ wᵢⱼ|i−j| (self-attention) or the mean offset Σⱼ wᵢⱼ(j−i)
// of the source position from the target position (cross-attention), and the key position with
// the largest weight averaged over the rows (with that average weight).
export function headSummaries(m, { signed = false } = {}) {
  const { H, T, S } = m;
  return Array.from({ length: H }, (_, h) => {
    let entropy = 0,
      distance = 0;
    const col = new Float64Array(S);
    for (let i = 0; i < T; i++) {
      const base = (h * T + i) * S;
      for (let j = 0; j < S; j++) {
        const w = m.weights[base + j];
        if (w > 0) entropy -= w * Math.log2(w);
        distance += w * (signed ? j - i : Math.abs(i - j));
        col[j] += w / T;
      }
    }
    let top = 0;
    for (let j = 1; j < S; j++) if (col[j] > col[top]) top = j;
    return { head: h, entropy: entropy / T, distance: distance / T, top, topWeight: col[top] };
  });
}

// Cross-entropy per target token (nats) and token accuracy of a teacher-forced pass: logits
// [B,T,V]; row r's targets are tgt[r] followed by the end token (id 2), as the engine's batches
// build them (tgt_out); positions after that are padding and do not count.
export const END = 2;
export function scorePass(data, tgt) {
  const { T, V, logits } = data;
  let loss = 0,
    correct = 0,
    n = 0;
  tgt.forEach((row, r) => {
    for (let t = 0; t <= row.length && t < T; t++) {
      const y = t < row.length ? row[t] : END;
      const z = logits.subarray((r * T + t) * V, (r * T + t + 1) * V);
      let mx = -Infinity,
        arg = 0;
      for (let v = 0; v < V; v++)
        if (z[v] > mx) {
          mx = z[v];
          arg = v;
        }
      let sum = 0;
      for (let v = 0; v < V; v++) sum += Math.exp(z[v] - mx);
      loss += Math.log(sum) + mx - z[y];
      correct += arg === y;
      n++;
    }
  });
  return { loss: loss / n, acc: correct / n, tokens: n };
}
