// Shared by the bench modules: how a peer process is started, and the model FLOPs of a
// training step. Lives in peers/ so that bench/bench.mjs does not take it for a bench module.

// The environment of one peer command (PyTorch on OpenBLAS), so that the peer runs at its best
// on `threads` threads, whatever the calling shell set:
//   - OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed: a machine-wide OPENBLAS_CORETYPE=Haswell
//     (this workplace sets it) makes OpenBLAS skip its own CPU detection and run the Haswell
//     kernels (measured: 1 thread 512^3 ~100 GFLOP/s with it, ~190 without on an AVX-512 CPU);
//   - OpenMP waits bounded as attnlab's pool bounds its own (wait 'spin', the default):
//     GOMP_SPINCOUNT=30000 (about 300 us of spinning, as our pool spins about 300 us before it
//     sleeps) and no OMP_WAIT_POLICY; or wait 'passive': OMP_WAIT_POLICY=PASSIVE (workers sleep
//     at once: unbounded spinning made a 2-thread PyTorch 3-5x slower on a busy machine). The
//     rows show the bounded-spin figure and the passive one beside it;
//   - OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS = threads (the peer's own code
//     also calls torch.set_num_threads(threads));
//   - OPENBLAS_VERBOSE=2: OpenBLAS prints the kernel it picked ("Core: Zen", "Core: SkylakeX")
//     on stderr; blasCore() reads it back for the row.
// Only the child's environment changes; this process's (and the tests') stays as it was.
export const STRIPPED = ['OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE'];

export const GOMP_SPINCOUNT = '30000';

export function peerEnv(threads, base = process.env, { wait = 'spin' } = {}) {
  if (wait !== 'spin' && wait !== 'passive') throw new Error(`peerEnv: wait must be 'spin' or 'passive', not ${wait}`);
  const env = { ...base };
  for (const k of [...STRIPPED, 'OMP_WAIT_POLICY', 'GOMP_SPINCOUNT']) delete env[k];
  const t = String(threads);
  const waits = wait === 'spin' ? { GOMP_SPINCOUNT } : { OMP_WAIT_POLICY: 'PASSIVE' };
  return { ...env, ...waits, OMP_NUM_THREADS: t, OPENBLAS_NUM_THREADS: t, MKL_NUM_THREADS: t, OPENBLAS_VERBOSE: '2' };
}

// The OpenBLAS kernel named in a peer's output (OPENBLAS_VERBOSE=2 prints "Core: <name>").
export function blasCore(output) {
  return /\bCore:\s*([A-Za-z0-9_]+)/.exec(output)?.[1] ?? null;
}

// Model FLOPs of one training step (forward + backward) of the encoder-decoder Transformer:
//   matmul FLOPs  = 6 * sum over weight matrices of (rows x cols) x (tokens through it)
//                   (2 per multiply-add forward, 4 backward: the gradients of input and weight)
//     encoder layer: Wq, Wk, Wv, Wo (4 C^2) + FFN (2 C F), over B*S source tokens
//     decoder layer: self + cross attention (8 C^2) + FFN (2 C F), over B*T target tokens
//     generator: C V over B*T target tokens (embedding lookups are not matmuls: not counted)
//   attention FLOPs = 12 * B * C * (Nenc * S^2 + Ndec * (T^2 + T*S))
//     per layer and sequence, Q K^T and A V are 2 * T * S * C FLOPs each forward, x3 with the
//     backward (the "12 L T^2 C" term of the usual 6 N D + 12 L T^2 C estimate); causal masks
//     are counted in full, as is the convention.
// Biases, layer norms, softmax and Adam are left out (O(tokens x C), small beside these).
export function trainStepFlops({ B, S, T, C, F, V, enc, dec }) {
  const matmul = 6 * B * (S * enc * (4 * C * C + 2 * C * F) + T * (dec * (8 * C * C + 2 * C * F) + C * V));
  const attention = 12 * B * C * (enc * S * S + dec * (T * T + T * S));
  return matmul + attention;
}

// The benchmark configs of `attn bench` / transformer_torch.py (lengths S = T = L).
export const BENCH_CONFIGS = {
  S: { B: 32, S: 16, T: 16, C: 64, F: 256, V: 32, enc: 2, dec: 2 },
  M: { B: 32, S: 32, T: 32, C: 128, F: 512, V: 32, enc: 2, dec: 2 },
  base: { B: 16, S: 32, T: 32, C: 512, F: 2048, V: 8000, enc: 6, dec: 6 },
};
