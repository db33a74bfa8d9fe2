// Bench rows for the kernels: measured SIMD peaks (native FMA, wasm SIMD128 mul+add), the
// attention slice (wasm vs. native, ms per call), and GEMM GFLOP/s side by side with peers:
// attnlab-wasm vs. TF.js's wasm backend (XNNPACK, 1 thread), attnlab-native vs. PyTorch CPU on
// OpenBLAS at 1 and 2 threads (when /usr/bin/python3 has torch and OpenBLAS is what it loads;
// started at full strength by peers/env.mjs, the OpenBLAS kernel it picked named in the row).
// Shapes are (M,K,N) as in issue 3; "A·Bᵀ" and "Aᵀ·B" are the transposed variants, "×4 heads"
// a strided-batched product.
const PLAIN = [[32, 64, 64], [256, 128, 128], [256, 128, 512], [512, 512, 512], [1024, 1024, 1024]];
const VARIANT_SHAPES = [[256, 128, 128], [512, 512, 512]];
const HEADS = 4;

function gemmCases(seconds) {
  const cases = [];
  const add = (s, ta, tb, batch, label) => cases.push({ M: s[0], K: s[1], N: s[2], ta, tb, batch, seconds, label });
  for (const s of PLAIN) add(s, false, false, 1, `${s.join('×')}`);
  for (const s of VARIANT_SHAPES) {
    add(s, false, true, 1, `${s.join('×')} A·Bᵀ`);
    add(s, true, false, 1, `${s.join('×')} Aᵀ·B`);
    add(s, false, false, HEADS, `${s.join('×')} ×${HEADS} heads`);
  }
  return cases;
}

const round = (x, d = 2) => (x == null || Number.isNaN(x) ? null : Number(x.toFixed(d)));
const row = (name, unit, attnlab, peer, peerValue, ratio, pct) =>
  ({ name, unit, attnlab: round(attnlab), peer, peer_value: round(peerValue), ratio: round(ratio), pct_peak: round(pct, 1) });

export async function rows(ctx) {
  const out = [];
  const seconds = ctx.quick ? 0.1 : 0.4;

  // Peaks: the best of 8..24 independent chains (cpp/bench/bench.cpp), so that latency x pipes is
  // covered; every GEMM row's % of peak must stay <= 100 (scripts/bench.mjs flags it otherwise).
  const nativePeak = await ctx.peak('native');
  const wasmPeak = { gflops: await ctx.peak('wasm') };
  out.push(row('SIMD peak, native FMA chains (1 core)', 'GFLOP/s', nativePeak, null, null, null, 100));
  out.push(row('SIMD peak, wasm SIMD128 mul+add chains (1 core)', 'GFLOP/s', wasmPeak.gflops, null, null, null, 100));

  for (const [B, H, T, D] of [[1, 4, 64, 32], [2, 8, 128, 64], [1, 8, 256, 64]]) {
    const c = { kind: 'attention', B, H, T, S: T, D, causal: 1, seconds };
    const [w] = await ctx.wasm('attnlab', [c]);
    const n = await ctx.native(['attention', B, H, T, T, D, 1, 1, seconds].map(String));
    out.push(row(`attention slice B${B} H${H} T=S=${T} hs${D} causal: wasm vs native (1 thread)`, 'ms',
      w.ms, 'attnlab-native', n.ms, n.ms / w.ms, null));
  }

  const cases = gemmCases(seconds);
  const mine = await ctx.wasm('attnlab', cases);
  let tf = null;
  try {
    tf = await ctx.wasm('tfjs', cases);
    ctx.log(`tfjs-core ${tf.version} wasm backend, SIMD ${tf.simd}, 1 thread`);
  } catch (e) {
    ctx.log(`TF.js peer skipped: ${e.message.split('\n')[0]} (npm install)`);
  }
  const tfName = tf ? `tfjs-wasm ${tf.version} (XNNPACK${tf.simd ? ' SIMD' : ''}, 1 thread)` : null;
  cases.forEach((c, i) => {
    const p = tf ? tf.results[i].gflops : null;
    out.push(row(`gemm ${c.label} wasm`, 'GFLOP/s', mine[i].gflops, tfName, p, p ? mine[i].gflops / p : null,
      (100 * mine[i].gflops) / wasmPeak.gflops));
  });

  for (const threads of [1, 2]) {
    const torch = await ctx.torch(threads, cases);
    for (const c of cases) {
      const r = await ctx.native(['gemm', c.M, c.N, c.K, +c.ta, +c.tb, c.batch, threads, seconds].map(String));
      c.native = r.gflops;
    }
    cases.forEach((c, i) => {
      const p = torch ? torch.results[i].gflops : null;
      out.push({
        ...row(`gemm ${c.label} native ${threads}T`, 'GFLOP/s', c.native,
          torch ? `pytorch ${torch.torch} + OpenBLAS (${torch.core ?? 'kernel unknown'}), ${threads}T` : null, p, p ? c.native / p : null,
          (100 * c.native) / (threads * nativePeak)),
        peer_blas_core: torch?.core ?? null, peer_threads: torch?.threads ?? null,
      });
    });
  }
  return out;
}

