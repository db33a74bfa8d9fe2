// Float64 reference loops of the kernel table for the WebGPU kernel test: a port of
// cpp/kernels/reference.cpp (same contracts, same argument order; arrays instead of pointers,
// offsets in elements) and of kernels/counter_hash.hpp (BigInt).

export function gemm(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, oA = 0, oB = 0, oC = 0) {
  for (let i = 0; i < M; ++i) {
    for (let j = 0; j < N; ++j) {
      let s = 0;
      for (let k = 0; k < K; ++k) {
        const a = tA ? A[oA + k * lda + i] : A[oA + i * lda + k];
        const b = tB ? B[oB + j * ldb + k] : B[oB + k * ldb + j];
        s += a * b;
      }
      const c = oC + i * ldc + j;
      C[c] = alpha * s + (beta === 0 ? 0 : beta * C[c]);
    }
  }
}

export function softmaxForward(y, x, scale, pad, causal, B, H, T, S) {
  for (let b = 0; b < B; ++b) {
    for (let h = 0; h < H; ++h) {
      for (let i = 0; i < T; ++i) {
        const r = (b * H + h) * T + i;
        const masked = (j) => (pad && pad[b * S + j]) || (causal && j > i + (S - T));
        let mx = -Infinity;
        for (let j = 0; j < S; ++j) if (!masked(j)) mx = Math.max(mx, x[r * S + j] * scale);
        const e = new Float64Array(S);
        let sum = 0;
        for (let j = 0; j < S; ++j) if (!masked(j)) sum += e[j] = Math.exp(x[r * S + j] * scale - mx);
        for (let j = 0; j < S; ++j) y[r * S + j] = sum > 0 ? e[j] / sum : 0;
      }
    }
  }
}

export function softmaxBackward(dx, y, dy, scale, R, S) {
  for (let r = 0; r < R; ++r) {
    let dot = 0;
    for (let j = 0; j < S; ++j) dot += dy[r * S + j] * y[r * S + j];
    for (let j = 0; j < S; ++j) dx[r * S + j] = scale * y[r * S + j] * (dy[r * S + j] - dot);
  }
}

export function layernormForward(y, mean, rstd, x, gamma, beta, eps, R, C) {
  for (let r = 0; r < R; ++r) {
    let m = 0,
      v = 0;
    for (let c = 0; c < C; ++c) m += x[r * C + c];
    m /= C;
    for (let c = 0; c < C; ++c) v += (x[r * C + c] - m) ** 2;
    v /= C;
    const rs = 1 / Math.sqrt(v + eps);
    for (let c = 0; c < C; ++c) y[r * C + c] = (x[r * C + c] - m) * rs * gamma[c] + beta[c];
    mean[r] = m;
    rstd[r] = rs;
  }
}

export function layernormBackward(dx, dgamma, dbeta, dy, x, mean, rstd, gamma, R, C) {
  for (let r = 0; r < R; ++r) {
    let s1 = 0,
      s2 = 0;
    for (let c = 0; c < C; ++c) {
      const xhat = (x[r * C + c] - mean[r]) * rstd[r];
      const g = dy[r * C + c] * gamma[c];
      s1 += g;
      s2 += g * xhat;
      dgamma[c] += dy[r * C + c] * xhat;
      dbeta[c] += dy[r * C + c];
    }
    s1 /= C;
    s2 /= C;
    for (let c = 0; c < C; ++c) {
      const xhat = (x[r * C + c] - mean[r]) * rstd[r];
      dx[r * C + c] = rstd[r] * (dy[r * C + c] * gamma[c] - s1 - xhat * s2);
    }
  }
}

const K = Math.sqrt(2 / Math.PI);
export const gelu = (z) => 0.5 * z * (1 + Math.tanh(K * (z + 0.044715 * z ** 3)));
export function geluGrad(x) {
  const t = Math.tanh(K * (x + 0.044715 * x ** 3));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * K * (1 + 3 * 0.044715 * x * x);
}
const ACTS = [(z) => z, (z) => (z > 0 ? z : 0), gelu];
const GRADS = [() => 1, (z) => (z > 0 ? 1 : 0), geluGrad];

export function biasActForward(y, pre, x, bias, act, R, C) {
  for (let i = 0; i < R * C; ++i) {
    const z = x[i] + (bias ? bias[i % C] : 0);
    if (pre) pre[i] = z;
    y[i] = ACTS[act](z);
  }
}

export function biasActBackward(dx, dbias, dy, pre, act, R, C) {
  for (let i = 0; i < R * C; ++i) {
    dx[i] = dy[i] * GRADS[act](pre[i]);
    if (dbias) dbias[i % C] += dx[i];
  }
}

export function crossEntropy(loss, dlogits, logits, targets, smoothing, ignore, gradScale, R, V) {
  for (let r = 0; r < R; ++r) {
    const o = r * V;
    if (targets[r] === ignore) {
      loss[r] = 0;
      for (let v = 0; v < V; ++v) dlogits[o + v] = 0;
      continue;
    }
    let mx = -Infinity;
    for (let v = 0; v < V; ++v) mx = Math.max(mx, logits[o + v]);
    let sum = 0;
    for (let v = 0; v < V; ++v) sum += Math.exp(logits[o + v] - mx);
    const lse = mx + Math.log(sum);
    const off = smoothing / V,
      on = 1 - smoothing + off;
    let l = 0;
    for (let v = 0; v < V; ++v) {
      const q = v === targets[r] ? on : off;
      const logp = logits[o + v] - lse;
      l -= q * logp;
      dlogits[o + v] = gradScale * (Math.exp(logp) - q);
    }
    loss[r] = l;
  }
}

export function adam(p, m, v, g, n, lr, b1, b2, eps, wd, t) {
  const bc1 = 1 - b1 ** t,
    bc2 = 1 - b2 ** t;
  for (let i = 0; i < n; ++i) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= lr * (m[i] / bc1 / (Math.sqrt(v[i] / bc2) + eps) + wd * p[i]);
  }
}

// kernels/counter_hash.hpp
const MASK = (1n << 64n) - 1n;
const mix64 = (z) => {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
};
export const bits32 = (seed, i) => Number(mix64((mix64(seed) + (i + 1n) * 0x9e3779b97f4a7c15n) & MASK) >> 32n);
export function dropoutMask(n, p, seed, offset) {
  const threshold = Math.floor(Math.fround(p) * 4294967296);
  const keep = Math.fround(1 / Math.fround(1 - Math.fround(p)));
  return Float32Array.from({ length: n }, (_, i) => (bits32(seed, offset + BigInt(i)) < threshold ? 0 : keep));
}

// kernels/recurrent.cpp (GRU gates z | r | candidate, LSTM i | f | g | o)
const sigm = (x) => 1 / (1 + Math.exp(-x));

export function tanhBiasForward(y, x, bias, R, C) {
  for (let i = 0; i < R * C; ++i) y[i] = Math.tanh(x[i] + (bias ? bias[i % C] : 0));
}

export function tanhBiasBackward(dx, dbias, dy, y, R, C) {
  for (let i = 0; i < R * C; ++i) {
    dx[i] = dy[i] * (1 - y[i] * y[i]);
    if (dbias) dbias[i % C] += dx[i];
  }
}

export function gruGatesForward(zr, rh, xg, hg, hPrev, B, C) {
  for (let b = 0; b < B; ++b) {
    for (let j = 0; j < 2 * C; ++j) {
      const g = sigm(xg[b * 3 * C + j] + hg[b * 2 * C + j]);
      zr[b * 2 * C + j] = g;
      if (j >= C) rh[b * C + j - C] = g * hPrev[b * C + j - C];
    }
  }
}

export function gruGatesBackward(dxg, dhPrev, drh, zr, hPrev, B, C) {
  for (let b = 0; b < B; ++b) {
    for (let j = 0; j < C; ++j) {
      const r = zr[b * 2 * C + C + j],
        g = drh[b * C + j];
      dxg[b * 3 * C + C + j] = g * hPrev[b * C + j] * r * (1 - r);
      dhPrev[b * C + j] += g * r;
    }
  }
}

export function gruCellForward(h, cand, xg, hc, zr, hPrev, B, C) {
  for (let b = 0; b < B; ++b) {
    for (let j = 0; j < C; ++j) {
      const i = b * C + j,
        z = zr[b * 2 * C + j];
      const u = Math.tanh(xg[b * 3 * C + 2 * C + j] + hc[i]);
      cand[i] = u;
      h[i] = (1 - z) * hPrev[i] + z * u;
    }
  }
}

export function gruCellBackward(dxg, dhPrev, dh, zr, cand, hPrev, B, C) {
  for (let b = 0; b < B; ++b) {
    for (let j = 0; j < C; ++j) {
      const i = b * C + j,
        z = zr[b * 2 * C + j],
        u = cand[i],
        g = dh[i];
      dxg[b * 3 * C + j] = g * (u - hPrev[i]) * z * (1 - z);
      dxg[b * 3 * C + 2 * C + j] = g * z * (1 - u * u);
      dhPrev[i] = g * (1 - z);
    }
  }
}

export function lstmCellForward(h, c, act, tc, pre, cPrev, B, C) {
  for (let b = 0; b < B; ++b) {
    for (let j = 0; j < C; ++j) {
      const p = b * 4 * C,
        i = b * C + j;
      const ig = sigm(pre[p + j]),
        fg = sigm(pre[p + C + j]),
        gg = Math.tanh(pre[p + 2 * C + j]),
        og = sigm(pre[p + 3 * C + j]);
      act[p + j] = ig;
      act[p + C + j] = fg;
      act[p + 2 * C + j] = gg;
      act[p + 3 * C + j] = og;
      c[i] = fg * cPrev[i] + ig * gg;
      tc[i] = Math.tanh(c[i]);
      h[i] = og * tc[i];
    }
  }
}

export function lstmCellBackward(dpre, dcPrev, dh, dc, act, cPrev, tc, B, C) {
  for (let b = 0; b < B; ++b) {
    for (let j = 0; j < C; ++j) {
      const a = b * 4 * C,
        i = b * C + j;
      const ig = act[a + j],
        fg = act[a + C + j],
        gg = act[a + 2 * C + j],
        og = act[a + 3 * C + j];
      const dct = (dc ? dc[i] : 0) + dh[i] * og * (1 - tc[i] * tc[i]);
      dpre[a + j] = dct * gg * ig * (1 - ig);
      dpre[a + C + j] = dct * cPrev[i] * fg * (1 - fg);
      dpre[a + 2 * C + j] = dct * ig * (1 - gg * gg);
      dpre[a + 3 * C + j] = dh[i] * tc[i] * og * (1 - og);
      dcPrev[i] = dct * fg;
    }
  }
}

export function additiveScoreForward(e, t, k, q, v, S, B, A) {
  for (let s = 0; s < S; ++s) {
    for (let b = 0; b < B; ++b) {
      const o = (s * B + b) * A;
      let sum = 0;
      for (let a = 0; a < A; ++a) {
        t[o + a] = Math.tanh(k[o + a] + q[b * A + a]);
        sum += v[a] * t[o + a];
      }
      e[b * S + s] = sum;
    }
  }
}

export function additiveScoreBackward(dk, dq, dv, de, t, v, S, B, A) {
  for (let s = 0; s < S; ++s) {
    for (let b = 0; b < B; ++b) {
      const o = (s * B + b) * A,
        g = de[b * S + s];
      for (let a = 0; a < A; ++a) {
        const u = t[o + a];
        dv[a] += g * u;
        dk[o + a] = g * v[a] * (1 - u * u);
        dq[b * A + a] += dk[o + a];
      }
    }
  }
}

export function probsXent(loss, d, p, targets, scale, R, S) {
  for (let r = 0; r < R; ++r) {
    const t = targets[r];
    if (t < 0) {
      loss[r] = 0;
      for (let j = 0; j < S; ++j) d[r * S + j] = 0;
      continue;
    }
    loss[r] = -Math.log(Math.max(p[r * S + t], 1e-12));
    for (let j = 0; j < S; ++j) d[r * S + j] = scale * (p[r * S + j] - (j === t ? 1 : 0));
  }
}
