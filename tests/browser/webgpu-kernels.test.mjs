// The WebGPU kernel table (web/gpu/) against the float64 reference loops (webgpu-ref.mjs, a port
// of cpp/kernels/reference.cpp) on odd shapes, in headless Chromium's WebGPU on SwiftShader (a
// CPU implementation of Vulkan: correct, not fast). Tolerances, |gpu - ref| <= tol * (1 + |ref|):
// GEMM 2e-5 (float32 sums of up to 53 products), row kernels and Adam 1e-5, GELU's gradient 1e-4
// (tanh); dropout masks and embedding gathers exactly. Operands sit at offsets inside shared
// allocations, as a model's slices do, and the aliasing the table allows (softmax in place,
// dlogits over logits) is exercised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuPage, onGpu, f32, close } from './webgpu-harness.mjs';
import * as ref from './webgpu-ref.mjs';

const page = gpuPage();

// dW += dyᵀ x with db += the row sums of dyᵀ (a linear layer's backward: gemm_fused with a
// rowsum), on the GPU against the reference, for R rows of dy [R, out] and x [R, inp].
async function linearBackwardCheck(dy, x, dW0, db0, R, out, inp, label) {
  const dW = Float64Array.from(dW0),
    db = Float64Array.from(db0);
  ref.gemm(true, false, out, inp, R, 1, dy, out, x, inp, 1, dW, inp);
  for (let r = 0; r < R; ++r) for (let o = 0; o < out; ++o) db[o] += dy[r * out + o];
  const g = await onGpu(
    {
      dy: { type: 'f32', data: dy },
      x: { type: 'f32', data: x },
      dW: { type: 'f32', data: dW0 },
      db: { type: 'f32', data: db0 },
    },
    [
      [
        'gemm_fused',
        true,
        false,
        out,
        inp,
        R,
        1,
        { buf: 'dy' },
        out,
        { buf: 'x' },
        inp,
        1,
        { buf: 'dW' },
        inp,
        { rowsum: { buf: 'db' } },
      ],
    ],
    ['dW', 'db']
  );
  close(g.dW, dW, 2e-5, `${label} dW`);
  close(g.db, db, 2e-5, `${label} db`);
}

test('gemm in its four transpose forms, with leading dimensions, offsets, alpha and beta', async () => {
  const M = 37,
    N = 29,
    K = 53;
  for (const [tA, tB] of [
    [false, false],
    [false, true],
    [true, false],
    [true, true],
  ]) {
    for (const beta of [0, 0.3]) {
      const lda = (tA ? M : K) + 3,
        ldb = (tB ? K : N) + 2,
        ldc = N + 5;
      const A = f32((tA ? K : M) * lda + 7),
        B = f32((tB ? N : K) * ldb + 5);
      const C = beta ? f32(M * ldc + 9) : new Float32Array(M * ldc + 9).fill(NaN); // beta 0 never reads C
      const want = Float64Array.from(C);
      ref.gemm(tA, tB, M, N, K, 0.7, A, lda, B, ldb, beta, want, ldc, 7, 5, 9);
      const { C: got } = await onGpu(
        { A: { type: 'f32', data: A }, B: { type: 'f32', data: B }, C: { type: 'f32', data: C } },
        [
          [
            'gemm',
            tA,
            tB,
            M,
            N,
            K,
            0.7,
            { buf: 'A', off: 7 },
            lda,
            { buf: 'B', off: 5 },
            ldb,
            beta,
            { buf: 'C', off: 9 },
            ldc,
          ],
        ],
        ['C']
      );
      for (let i = 0; i < 9; ++i) want[i] = C[i]; // before the offset: untouched
      close(
        got.map((v) => (Number.isNaN(v) ? 1e30 : v)),
        Array.from(want, (v) => (Number.isNaN(v) ? 1e30 : v)),
        2e-5,
        `gemm tA=${tA} tB=${tB} beta=${beta}`
      );
    }
  }
});

test('gemm_batched: three heads at strides with slack', async () => {
  const M = 17,
    N = 19,
    K = 23,
    batch = 3,
    sA = M * K + 4,
    sB = N * K + 3,
    sC = M * N + 2;
  const A = f32(sA * batch),
    B = f32(sB * batch),
    C = f32(sC * batch);
  const want = Float64Array.from(C);
  for (let b = 0; b < batch; ++b) ref.gemm(false, true, M, N, K, 1, A, K, B, K, 0.5, want, N, b * sA, b * sB, b * sC);
  const { C: got } = await onGpu(
    { A: { type: 'f32', data: A }, B: { type: 'f32', data: B }, C: { type: 'f32', data: C } },
    [
      [
        'gemm_batched',
        false,
        true,
        M,
        N,
        K,
        1,
        { buf: 'A' },
        K,
        sA,
        { buf: 'B' },
        K,
        sB,
        0.5,
        { buf: 'C' },
        N,
        sC,
        batch,
      ],
    ],
    ['C']
  );
  close(got, want, 2e-5, 'gemm_batched');
});

test('softmax forward with key padding and a causal mask (a fully masked row gives zeros), in place; backward', async () => {
  const B = 2,
    H = 3,
    T = 5,
    S = 71;
  const x = f32(B * H * T * S, 4);
  const pad = Uint8Array.from({ length: B * S }, (_, k) => (k >= S ? 1 : k % 5 === 3 ? 1 : 0)); // batch 1 wholly padded
  const want = new Float64Array(x.length);
  ref.softmaxForward(want, x, 0.5, pad, true, B, H, T, S);
  const { x: got } = await onGpu(
    { x: { type: 'f32', data: x }, pad: { type: 'u8', data: pad } },
    [['softmax_forward', { buf: 'x' }, { buf: 'x' }, 0.5, { buf: 'pad' }, true, B, H, T, S]],
    ['x']
  );
  close(got, want, 1e-5, 'softmax_forward');
  assert.ok(want.slice(H * T * S).every((v) => v === 0) && got.slice(H * T * S).every((v) => v === 0));
  const noMask = new Float64Array(x.length);
  ref.softmaxForward(noMask, x, 1.25, null, false, B, H, T, S);
  const { y } = await onGpu(
    { x: { type: 'f32', data: x }, y: { type: 'f32', data: new Float32Array(x.length) } },
    [['softmax_forward', { buf: 'y' }, { buf: 'x' }, 1.25, 0, false, B, H, T, S]],
    ['y']
  );
  close(y, noMask, 1e-5, 'softmax_forward without masks');

  const R = 13,
    yb = Float32Array.from(noMask.slice(0, R * S)),
    dy = f32(R * S);
  const dx = new Float64Array(R * S);
  ref.softmaxBackward(dx, yb, dy, 0.5, R, S);
  const { dy: gotDx } = await onGpu(
    { y: { type: 'f32', data: yb }, dy: { type: 'f32', data: dy } },
    [['softmax_backward', { buf: 'dy' }, { buf: 'y' }, { buf: 'dy' }, 0.5, R, S]],
    ['dy']
  );
  close(gotDx, dx, 1e-5, 'softmax_backward (dx over dy)');
});

test('layer norm forward and backward (dgamma, dbeta accumulate)', async () => {
  const R = 9,
    C = 131;
  const x = f32(R * C, 3),
    gamma = f32(C),
    beta = f32(C),
    dy = f32(R * C),
    dg0 = f32(C),
    db0 = f32(C);
  const y = new Float64Array(R * C),
    mean = new Float64Array(R),
    rstd = new Float64Array(R);
  ref.layernormForward(y, mean, rstd, x, gamma, beta, 1e-5, R, C);
  const g = await onGpu(
    {
      x: { type: 'f32', data: x },
      gamma: { type: 'f32', data: gamma },
      beta: { type: 'f32', data: beta },
      y: { type: 'f32', data: new Float32Array(R * C) },
      stats: { type: 'f32', data: new Float32Array(2 * R) },
    },
    [
      [
        'layernorm_forward',
        { buf: 'y' },
        { buf: 'stats' },
        { buf: 'stats', off: R },
        { buf: 'x' },
        { buf: 'gamma' },
        { buf: 'beta' },
        1e-5,
        R,
        C,
      ],
    ],
    ['y', 'stats']
  );
  close(g.y, y, 1e-5, 'layernorm_forward y');
  close(g.stats, [...mean, ...rstd], 1e-5, 'layernorm_forward mean, rstd');

  const m32 = Float32Array.from(mean),
    r32 = Float32Array.from(rstd);
  const dx = new Float64Array(R * C),
    dg = Float64Array.from(dg0),
    db = Float64Array.from(db0);
  ref.layernormBackward(dx, dg, db, dy, x, m32, r32, gamma, R, C);
  const b = await onGpu(
    {
      x: { type: 'f32', data: x },
      gamma: { type: 'f32', data: gamma },
      dy: { type: 'f32', data: dy },
      m: { type: 'f32', data: m32 },
      r: { type: 'f32', data: r32 },
      dg: { type: 'f32', data: dg0 },
      db: { type: 'f32', data: db0 },
    },
    [
      [
        'layernorm_backward',
        { buf: 'dy' },
        { buf: 'dg' },
        { buf: 'db' },
        { buf: 'dy' },
        { buf: 'x' },
        { buf: 'm' },
        { buf: 'r' },
        { buf: 'gamma' },
        R,
        C,
      ],
    ],
    ['dy', 'dg', 'db']
  );
  close(b.dy, dx, 1e-5, 'layernorm_backward dx (over dy)');
  close(b.dg, dg, 1e-5, 'layernorm_backward dgamma');
  close(b.db, db, 1e-5, 'layernorm_backward dbeta');
});

test('bias + activation forward and backward: none, ReLU, GELU, with and without bias', async () => {
  const R = 7,
    C = 45;
  for (const act of [0, 1, 2]) {
    for (const withBias of [true, false]) {
      const x = f32(R * C, 3),
        bias = f32(C),
        dy = f32(R * C),
        db0 = f32(C);
      const y = new Float64Array(R * C),
        pre = new Float64Array(R * C);
      ref.biasActForward(y, pre, x, withBias ? bias : null, act, R, C);
      const pre32 = Float32Array.from(pre);
      const dx = new Float64Array(R * C),
        db = Float64Array.from(db0);
      ref.biasActBackward(dx, withBias ? db : null, dy, pre32, act, R, C);
      const g = await onGpu(
        {
          x: { type: 'f32', data: x },
          bias: { type: 'f32', data: bias },
          pre: { type: 'f32', data: new Float32Array(R * C) },
          dy: { type: 'f32', data: dy },
          db: { type: 'f32', data: db0 },
          pre2: { type: 'f32', data: pre32 },
        },
        [
          ['bias_act_forward', { buf: 'x' }, { buf: 'pre' }, { buf: 'x' }, withBias ? { buf: 'bias' } : 0, act, R, C],
          ['bias_act_backward', { buf: 'dy' }, withBias ? { buf: 'db' } : 0, { buf: 'dy' }, { buf: 'pre2' }, act, R, C],
        ],
        ['x', 'pre', 'dy', 'db']
      );
      const what = `act ${act}${withBias ? ' + bias' : ''}`;
      close(g.x, y, 1e-5, `bias_act_forward y (over x), ${what}`);
      close(g.pre, pre, 1e-5, `bias_act_forward pre, ${what}`);
      close(g.dy, dx, act === 2 ? 1e-4 : 1e-5, `bias_act_backward dx, ${what}`);
      close(g.db, db, act === 2 ? 1e-4 : 1e-5, `bias_act_backward dbias, ${what}`);
    }
  }
});

test('cross-entropy with label smoothing and ignored rows, dlogits over the logits', async () => {
  const R = 11,
    V = 103;
  const logits = f32(R * V, 5),
    targets = Int32Array.from({ length: R }, (_, r) => (r % 4 === 2 ? 0 : 1 + ((r * 37) % (V - 1))));
  const loss = new Float64Array(R),
    d = new Float64Array(R * V);
  ref.crossEntropy(loss, d, logits, targets, 0.1, 0, 1 / 7, R, V);
  const g = await onGpu(
    {
      logits: { type: 'f32', data: logits },
      t: { type: 'i32', data: targets },
      loss: { type: 'f32', data: new Float32Array(R) },
    },
    [['cross_entropy', { buf: 'loss' }, { buf: 'logits' }, { buf: 'logits' }, { buf: 't' }, 0.1, 0, 1 / 7, R, V]],
    ['loss', 'logits']
  );
  close(g.loss, loss, 1e-5, 'cross_entropy loss');
  close(g.logits, d, 1e-5, 'cross_entropy dlogits');
  assert.ok(loss.some((l) => l === 0) && loss.some((l) => l > 1));
});

test('Adam (with decoupled weight decay), axpy, scale, and the sum of squares kept on the GPU', async () => {
  const n = 1000;
  const p = f32(n),
    m = f32(n, 0.1),
    v = Float32Array.from(f32(n), (x) => x * x * 0.01),
    g = f32(n);
  const P = Float64Array.from(p),
    Mo = Float64Array.from(m),
    Vo = Float64Array.from(v);
  ref.adam(P, Mo, Vo, g, n, 1e-3, 0.9, 0.98, 1e-9, 0.01, 3);
  const r = await onGpu(
    {
      p: { type: 'f32', data: p },
      m: { type: 'f32', data: m },
      v: { type: 'f32', data: v },
      g: { type: 'f32', data: g },
    },
    [['adam', { buf: 'p' }, { buf: 'm' }, { buf: 'v' }, { buf: 'g' }, n, 1e-3, 0.9, 0.98, 1e-9, 0.01, 3]],
    ['p', 'm', 'v']
  );
  close(r.p, P, 1e-5, 'adam p');
  close(r.m, Mo, 1e-5, 'adam m');
  close(r.v, Vo, 1e-5, 'adam v');

  const N = 10007,
    x = f32(N),
    y = f32(N);
  const a = await onGpu(
    {
      x: { type: 'f32', data: x },
      y: { type: 'f32', data: y },
      z: { type: 'f32', data: y },
      s: { type: 'f32', data: [0] },
    },
    [
      ['axpy', { buf: 'y' }, -0.25, { buf: 'x' }, N],
      ['scale', { buf: 'z' }, 3, { buf: 'z' }, N],
      ['sumsq', { buf: 's' }, { buf: 'x' }, N],
    ],
    ['y', 'z', 's']
  );
  close(
    a.y,
    Array.from(y, (v, i) => v - 0.25 * x[i]),
    1e-6,
    'axpy'
  );
  close(
    a.z,
    Array.from(y, (v) => 3 * v),
    1e-6,
    'scale (in place)'
  );
  close(a.s, [x.reduce((s, v) => s + v * v, 0)], 1e-5, 'sumsq');
});

test("embedding gather and scatter-add (repeated ids accumulate, in the CPU's order)", async () => {
  const R = 13,
    C = 67,
    V = 11;
  const W = f32(V * C),
    ids = Int32Array.from({ length: R }, (_, r) => (r * 7) % V),
    dout = f32(R * C),
    dW0 = f32(V * C);
  const want = Float64Array.from({ length: R * C }, (_, i) => 0.5 * W[ids[Math.floor(i / C)] * C + (i % C)]);
  const dW = Float32Array.from(dW0);
  for (let r = 0; r < R; ++r)
    for (let c = 0; c < C; ++c)
      dW[ids[r] * C + c] = Math.fround(dW[ids[r] * C + c] + Math.fround(0.5 * dout[r * C + c]));
  const g = await onGpu(
    {
      W: { type: 'f32', data: W },
      ids: { type: 'i32', data: ids },
      out: { type: 'f32', data: new Float32Array(R * C) },
      dout: { type: 'f32', data: dout },
      dW: { type: 'f32', data: dW0 },
    },
    [
      ['embedding_forward', { buf: 'out' }, { buf: 'W' }, { buf: 'ids' }, R, C, 0.5],
      ['embedding_backward', { buf: 'dW' }, { buf: 'dout' }, { buf: 'ids' }, R, C, 0.5],
    ],
    ['out', 'dW']
  );
  assert.deepEqual(g.out, Array.from(want, Math.fround));
  assert.deepEqual(g.dW, Array.from(dW));
});

test("dropout masks are counter_hash's bits, identical to the CPU table's; backward multiplies by the mask", async () => {
  const n = 1001,
    p = 0.3,
    seedBig = 0x0123456789abcdefn,
    offset = 4294967290n; // offset + i crosses 2^32
  const x = f32(n),
    dy = f32(n);
  const mask = ref.dropoutMask(n, p, seedBig, offset);
  const g = await onGpu(
    {
      x: { type: 'f32', data: x },
      y: { type: 'f32', data: new Float32Array(n) },
      mask: { type: 'f32', data: new Float32Array(n) },
      dy: { type: 'f32', data: dy },
    },
    [
      [
        'dropout_forward',
        { buf: 'y' },
        { buf: 'mask' },
        { buf: 'x' },
        n,
        p,
        { big: String(seedBig) },
        { big: String(offset) },
      ],
      ['dropout_backward', { buf: 'dy' }, { buf: 'mask' }, { buf: 'dy' }, n],
    ],
    ['y', 'mask', 'dy']
  );
  assert.deepEqual(g.mask, Array.from(mask));
  assert.deepEqual(
    g.y,
    Array.from(x, (v, i) => Math.fround(v * mask[i]))
  );
  assert.deepEqual(
    g.dy,
    Array.from(dy, (v, i) => Math.fround(v * mask[i]))
  );
  const dropped = mask.filter((m) => m === 0).length / n;
  assert.ok(dropped > 0.25 && dropped < 0.35, `dropped ${dropped}`);
});

test('the arena grows past its first buffer and keeps what it held; nothing was read back but what was asked', async () => {
  const r = await page.evaluate(async () => {
    const { table } = window.gpuTest;
    const before = table.arena.capacity;
    const a = table.alloc(4096);
    table.upload(
      a,
      Float32Array.from({ length: 1024 }, (_, i) => i)
    );
    const reads = table.reads;
    const big = table.alloc(before * 2); // forces growth
    table.scale(a, 2, a, 1024);
    const back = Array.from(await table.readFloats(a, 1024));
    table.release(big);
    table.release(a);
    return { before, after: table.arena.capacity, ok: back.every((v, i) => v === 2 * i), reads: table.reads - reads };
  });
  assert.ok(r.after > r.before, `capacity ${r.before} -> ${r.after}`);
  assert.ok(r.ok);
  assert.equal(r.reads, 1);
  assert.deepEqual(page.errors, []);
});

test('the workspace at least doubles when it grows: growing batches replace it a few times, not at every new size', async () => {
  const r = await page.evaluate(() => {
    const { table } = window.gpuTest;
    const start = table.scratchBytes;
    const sizes = [];
    let replaced = 0;
    // a workspace asked for at 1.1x the last size, 24 times (a batch growing a token at a time)
    for (let i = 0, bytes = Math.max(start, 1024) + 4; i < 24; i++, bytes = Math.ceil((bytes * 1.1) / 4) * 4) {
      const before = table.scratchBytes; // (a new block may start where the old one did)
      table.scratchAt(bytes);
      if (table.scratchBytes !== before) replaced++;
      sizes.push([bytes, table.scratchBytes]);
    }
    return { start, sizes, replaced };
  });
  for (const [asked, has] of r.sizes) assert.ok(has >= asked, `${has} bytes for ${asked}`);
  // 1.1^24 ~ 9.8x: doubling replaces it 4 times (at most 5), growing to fit 24 times
  assert.ok(r.replaced <= 5, `replaced ${r.replaced} times: ${JSON.stringify(r.sizes)}`);
  assert.ok(r.replaced >= 3);
  assert.deepEqual(page.errors, []);
});

// Uploads while work is encoded (a step's token ids between its dispatches) are staged and
// copied in the pending command buffer: in order among the dispatches, with no submit; a large
// one, or one with nothing pending, is a queue write as before.
test('an upload between dispatches lands in order and submits nothing', async () => {
  const r = await page.evaluate(async () => {
    const { table, errors } = window.gpuTest;
    const n = 300;
    const [a, x, y, z] = [0, 0, 0, 0].map(() => table.alloc(4 * n));
    const big = table.alloc(1 << 18);
    table.upload(
      a,
      Float32Array.from({ length: n }, (_, i) => i)
    );
    const submits = table.submits;
    table.copy(x, a, 4 * n); // x = the first a
    table.upload(
      a,
      Float32Array.from({ length: n }, (_, i) => -i)
    );
    table.copy(y, a, 4 * n); // y = the second
    table.upload(a, Uint8Array.of(0, 0, 128, 63, 0, 0)); // 1, then 2 bytes: padded with zeros
    table.copy(z, a, 4 * n); // z = the third
    const encoded = table.submits - submits;
    table.upload(big, new Float32Array(1 << 16).fill(1)); // over the stage: submits first
    const large = table.submits - submits;
    const read = async (at) => Array.from(await table.readFloats(at, n));
    const out = { encoded, large, x: await read(x), y: await read(y), z: await read(z) };
    out.big = Array.from(await table.readFloats(big, 4));
    for (const at of [a, x, y, z, big]) table.release(at);
    return { ...out, errors: errors.splice(0) };
  });
  assert.deepEqual(r.errors, []);
  assert.equal(r.encoded, 0, 'uploads between dispatches submitted');
  assert.equal(r.large, 1, 'a large upload submits what is pending first');
  assert.ok(
    r.x.every((v, i) => v === i),
    'the dispatch before an upload read the data before it'
  );
  assert.ok(
    r.y.every((v, i) => Object.is(v, -i)),
    'the dispatch after an upload read its data'
  );
  assert.deepEqual(r.z.slice(0, 2), [1, 0], 'a partial upload: its bytes, then zeros to a whole float');
  assert.ok(
    r.z.slice(2).every((v, i) => Object.is(v, -(i + 2))),
    'the floats after a partial upload kept'
  );
  assert.deepEqual(r.big, [1, 1, 1, 1]);
});

// The fused entries (kernels.hpp: gemm_fused, add_layernorm_forward, layernorm_backward_fused;
// gemm_grid of kernels/gemm_grid.hpp) against the plain calls they stand for, composed from the
// same reference loops.

test('gemm_grid: batch × heads in one dispatch, heads side by side in a row', async () => {
  const outer = 3,
    inner = 2,
    M = 13,
    N = 7,
    K = 11,
    hs = 7;
  // A: [outer, M, inner*K] (head i in columns i*K..), B: [outer, inner, K, N] dense, C like A
  const lda = inner * K + 1,
    ldc = inner * hs + 3;
  const oA = M * lda,
    iA = K,
    oB = inner * K * N + 2,
    iB = K * N,
    oC = M * ldc,
    iC = hs;
  const A = f32(outer * oA),
    B = f32(outer * oB),
    C = f32(outer * oC);
  const want = Float64Array.from(C);
  for (let o = 0; o < outer; ++o)
    for (let i = 0; i < inner; ++i)
      ref.gemm(
        false,
        false,
        M,
        N,
        K,
        0.9,
        A,
        lda,
        B,
        N,
        0.25,
        want,
        ldc,
        o * oA + i * iA,
        o * oB + i * iB,
        o * oC + i * iC
      );
  const { C: got } = await onGpu(
    { A: { type: 'f32', data: A }, B: { type: 'f32', data: B }, C: { type: 'f32', data: C } },
    [
      [
        'gemm_grid',
        false,
        false,
        M,
        N,
        K,
        0.9,
        { buf: 'A' },
        lda,
        oA,
        iA,
        { buf: 'B' },
        N,
        oB,
        iB,
        0.25,
        { buf: 'C' },
        ldc,
        oC,
        iC,
        outer,
        inner,
      ],
    ],
    ['C']
  );
  close(got, want, 2e-5, 'gemm_grid');
});

test('gemm_fused: bias + activation (+ pre) forward, mask + activation gradient backward, row sums beside dW', async () => {
  const M = 37,
    N = 29,
    K = 21;
  for (const act of [0, 1, 2]) {
    // forward: y = act(x Wᵀ + b), pre kept (the FFN's first layer), x at an offset, ldc > N
    const ldc = N + 3;
    const x = f32(M * K + 5),
      W = f32(N * K),
      b = f32(N);
    const prod = new Float64Array(M * ldc);
    ref.gemm(false, true, M, N, K, 1, x, K, W, K, 0, prod, ldc, 5, 0, 0);
    const y = new Float64Array(M * ldc),
      pre = new Float64Array(M * ldc);
    for (let i = 0; i < M; ++i) {
      const row = prod.slice(i * ldc, i * ldc + N);
      const yr = new Float64Array(N),
        pr = new Float64Array(N);
      ref.biasActForward(yr, pr, row, b, act, 1, N);
      y.set(yr, i * ldc);
      pre.set(pr, i * ldc);
    }
    const fwd = await onGpu(
      {
        x: { type: 'f32', data: x },
        W: { type: 'f32', data: W },
        b: { type: 'f32', data: b },
        y: { type: 'f32', data: new Float32Array(M * ldc) },
        pre: { type: 'f32', data: new Float32Array(M * ldc) },
      },
      [
        [
          'gemm_fused',
          false,
          true,
          M,
          N,
          K,
          1,
          { buf: 'x', off: 5 },
          K,
          { buf: 'W' },
          K,
          0,
          { buf: 'y' },
          ldc,
          { bias: { buf: 'b' }, act, pre: { buf: 'pre' } },
        ],
      ],
      ['y', 'pre']
    );
    close(fwd.y, y, act === 2 ? 1e-4 : 2e-5, `gemm_fused forward y, act ${act}`);
    close(fwd.pre, pre, 2e-5, `gemm_fused forward pre, act ${act}`);

    // backward: dh = ((dout W2) ⊙ mask) ⊙ act'(pre), as dropout_backward then bias_act_backward
    const dout = f32(M * K),
      W2 = f32(K * N),
      pre32 = Float32Array.from({ length: M * N }, (_, i) => Math.fround(pre[Math.floor(i / N) * ldc + (i % N)])),
      mask = Float32Array.from({ length: M * N }, (_, i) => (i % 3 === 1 ? 0 : 1.25));
    const dh = new Float64Array(M * N);
    ref.gemm(false, false, M, N, K, 1, dout, K, W2, N, 0, dh, N);
    for (let i = 0; i < M * N; ++i) dh[i] *= mask[i];
    const want = new Float64Array(M * N);
    ref.biasActBackward(want, null, dh, pre32, act, M, N);
    const bwd = await onGpu(
      {
        dout: { type: 'f32', data: dout },
        W2: { type: 'f32', data: W2 },
        mask: { type: 'f32', data: mask },
        pre: { type: 'f32', data: pre32 },
        dh: { type: 'f32', data: new Float32Array(M * N).fill(NaN) },
      },
      [
        [
          'gemm_fused',
          false,
          false,
          M,
          N,
          K,
          1,
          { buf: 'dout' },
          K,
          { buf: 'W2' },
          N,
          0,
          { buf: 'dh' },
          N,
          act ? { mask: { buf: 'mask' }, act, dact: { buf: 'pre' } } : { mask: { buf: 'mask' } },
        ],
      ],
      ['dh']
    );
    close(bwd.dh, want, act === 2 ? 1e-4 : 2e-5, `gemm_fused backward (mask, act ${act})`);
  }

  // dW += dyᵀ x with db += Σ_r dy as row sums of dyᵀ (linear_backward), R not a multiple of 4
  const R = 45,
    out = 13,
    inp = 10;
  const dy = f32(R * out),
    xx = f32(R * inp),
    dW0 = f32(out * inp),
    db0 = f32(out);
  await linearBackwardCheck(dy, xx, dW0, db0, R, out, inp, 'gemm_fused (row sums: db)');
});

test('add_layernorm_forward: y = LN(x + r) with the sum kept; without r, LN(x)', async () => {
  const R = 9,
    C = 131;
  const x = f32(R * C, 2),
    r = f32(R * C, 2),
    gamma = f32(C),
    beta = f32(C);
  const s = Float64Array.from(x, (v, i) => Math.fround(v + r[i]));
  for (const withR of [true, false]) {
    const input = withR ? s : Float64Array.from(x);
    const y = new Float64Array(R * C),
      mean = new Float64Array(R),
      rstd = new Float64Array(R);
    ref.layernormForward(y, mean, rstd, input, gamma, beta, 1e-5, R, C);
    const g = await onGpu(
      {
        x: { type: 'f32', data: x },
        r: { type: 'f32', data: r },
        gamma: { type: 'f32', data: gamma },
        beta: { type: 'f32', data: beta },
        y: { type: 'f32', data: new Float32Array(R * C) },
        s: { type: 'f32', data: new Float32Array(R * C).fill(7) },
        stats: { type: 'f32', data: new Float32Array(2 * R) },
      },
      [
        [
          'add_layernorm_forward',
          { buf: 'y' },
          { buf: 's' },
          { buf: 'stats' },
          { buf: 'stats', off: R },
          { buf: 'x' },
          withR ? { buf: 'r' } : 0,
          { buf: 'gamma' },
          { buf: 'beta' },
          1e-5,
          R,
          C,
        ],
      ],
      ['y', 's', 'stats']
    );
    close(g.y, y, 1e-5, `add_layernorm_forward y${withR ? '' : ' (no r)'}`);
    close(g.stats, [...mean, ...rstd], 1e-5, `add_layernorm_forward mean, rstd${withR ? '' : ' (no r)'}`);
    if (withR) assert.deepEqual(g.s, Array.from(s), 'the sum x + r, as float32 adds');
    else
      assert.ok(
        g.s.every((v) => v === 7),
        'no r: s untouched'
      );
  }
});

test('layernorm_backward_fused: assigned, accumulated, with an added gradient and a copy; dgamma, dbeta accumulate', async () => {
  const R = 70, // more rows than the 8 lanes of a parameter column, not a multiple of them
    C = 131; // columns in a partial last block of 8
  const x = f32(R * C, 3),
    gamma = f32(C),
    dy = f32(R * C),
    add = f32(R * C),
    dx0 = f32(R * C),
    dg0 = f32(C),
    db0 = f32(C);
  const y = new Float64Array(R * C),
    mean = new Float64Array(R),
    rstd = new Float64Array(R);
  ref.layernormForward(y, mean, rstd, x, gamma, Float64Array.from(gamma), 1e-5, R, C);
  const m32 = Float32Array.from(mean),
    r32 = Float32Array.from(rstd);
  const lnGrad = new Float64Array(R * C),
    dg = Float64Array.from(dg0),
    db = Float64Array.from(db0);
  ref.layernormBackward(lnGrad, dg, db, dy, x, m32, r32, gamma, R, C);
  for (const [accumulate, withAdd, withCopy] of [
    [false, false, true],
    [true, false, false],
    [false, true, false],
    [true, true, true],
  ]) {
    const want = Float64Array.from(lnGrad, (v, i) => (accumulate ? dx0[i] : 0) + (withAdd ? add[i] : 0) + v);
    const g = await onGpu(
      {
        x: { type: 'f32', data: x },
        gamma: { type: 'f32', data: gamma },
        dy: { type: 'f32', data: dy },
        add: { type: 'f32', data: add },
        m: { type: 'f32', data: m32 },
        r: { type: 'f32', data: r32 },
        dx: { type: 'f32', data: accumulate ? dx0 : new Float32Array(R * C).fill(NaN) },
        copy: { type: 'f32', data: new Float32Array(R * C).fill(3) },
        dg: { type: 'f32', data: dg0 },
        db: { type: 'f32', data: db0 },
      },
      [
        [
          'layernorm_backward_fused',
          { buf: 'dx' },
          withCopy ? { buf: 'copy' } : 0,
          { buf: 'dg' },
          { buf: 'db' },
          { buf: 'dy' },
          withAdd ? { buf: 'add' } : 0,
          { buf: 'x' },
          { buf: 'm' },
          { buf: 'r' },
          { buf: 'gamma' },
          accumulate,
          R,
          C,
        ],
      ],
      ['dx', 'copy', 'dg', 'db']
    );
    const what = `accumulate ${accumulate}, add ${withAdd}, copy ${withCopy}`;
    close(g.dx, want, 1e-5, `layernorm_backward_fused dx, ${what}`);
    if (withCopy) assert.deepEqual(g.copy, g.dx, `the copy is dx, ${what}`);
    else
      assert.ok(
        g.copy.every((v) => v === 3),
        `no copy written, ${what}`
      );
    close(g.dg, dg, 1e-5, `layernorm_backward_fused dgamma, ${what}`);
    close(g.db, db, 1e-5, `layernorm_backward_fused dbeta, ${what}`);
  }
});

// A residual's dropout inside its fused layer norm kernels: the forward draws the mask of
// dropout_forward (the same seed, offset 0: counter_hash's bits) and adds x + r ⊙ mask; the
// backward's copy (the sublayer's gradient) is LN'(dy) ⊙ mask.
test("add_layernorm_forward with a dropout on r, layernorm_backward_fused's copy times a mask", async () => {
  const R = 9,
    C = 131,
    p = 0.3,
    seed = 0x1234abcd5678n;
  const x = f32(R * C, 2),
    r = f32(R * C, 2),
    gamma = f32(C),
    beta = f32(C),
    dy = f32(R * C);
  const mask = ref.dropoutMask(R * C, p, seed, 0n);
  const s = Float64Array.from(x, (v, i) => v + Math.fround(r[i] * mask[i]));
  const y = new Float64Array(R * C),
    mean = new Float64Array(R),
    rstd = new Float64Array(R);
  ref.layernormForward(y, mean, rstd, s, gamma, beta, 1e-5, R, C);
  const m32 = Float32Array.from(mean),
    r32 = Float32Array.from(rstd);
  const dx = new Float64Array(R * C),
    dg = new Float64Array(C),
    db = new Float64Array(C);
  ref.layernormBackward(dx, dg, db, dy, Float32Array.from(s), m32, r32, gamma, R, C);
  const g = await onGpu(
    {
      x: { type: 'f32', data: x },
      r: { type: 'f32', data: r },
      gamma: { type: 'f32', data: gamma },
      beta: { type: 'f32', data: beta },
      y: { type: 'f32', data: new Float32Array(R * C) },
      s: { type: 'f32', data: new Float32Array(R * C) },
      mask: { type: 'f32', data: new Float32Array(R * C).fill(5) },
      stats: { type: 'f32', data: new Float32Array(2 * R) },
      dy: { type: 'f32', data: dy },
      dx: { type: 'f32', data: new Float32Array(R * C) },
      copy: { type: 'f32', data: new Float32Array(R * C) },
      dg: { type: 'f32', data: new Float32Array(C) },
      db: { type: 'f32', data: new Float32Array(C) },
    },
    [
      [
        'add_layernorm_forward',
        { buf: 'y' },
        { buf: 's' },
        { buf: 'stats' },
        { buf: 'stats', off: R },
        { buf: 'x' },
        { buf: 'r' },
        { buf: 'gamma' },
        { buf: 'beta' },
        1e-5,
        R,
        C,
        { mask: { buf: 'mask' }, p, seed: { big: String(seed) } },
      ],
      [
        'layernorm_backward_fused',
        { buf: 'dx' },
        { buf: 'copy' },
        { buf: 'dg' },
        { buf: 'db' },
        { buf: 'dy' },
        0,
        { buf: 's' },
        { buf: 'stats' },
        { buf: 'stats', off: R },
        { buf: 'gamma' },
        false,
        R,
        C,
        { buf: 'mask' },
      ],
    ],
    ['y', 's', 'mask', 'stats', 'dx', 'copy', 'dg', 'db']
  );
  assert.deepEqual(g.mask, Array.from(mask), "the mask is dropout_forward's, bit for bit");
  assert.ok(mask.includes(0) && !mask.every((v) => v === 0), 'some of the mask dropped, not all');
  close(g.s, s, 1e-6, 'the sum x + r ⊙ mask');
  close(g.y, y, 1e-5, 'y = LN(x + r ⊙ mask)');
  close(g.stats, [...mean, ...rstd], 1e-5, 'mean, rstd');
  close(g.dx, dx, 1e-5, "dx = LN'(dy)");
  close(
    g.copy,
    Array.from(dx, (v, i) => v * mask[i]),
    1e-5,
    "copy = LN'(dy) ⊙ mask"
  );
  close(g.dg, dg, 1e-5, 'dgamma');
  close(g.db, db, 1e-5, 'dbeta');
});

// Attention's dropout inside its softmax kernels: the forward stores the weights and, beside
// them, the weights times dropout_forward's mask (the same seed, offset 0); the backward takes
// dy ⊙ mask as its gradient (in place, as the attention layer calls it).
test('softmax_dropout_forward and softmax_backward_masked: the softmax with its dropout, each one kernel', async () => {
  const B = 2,
    H = 3,
    T = 5,
    S = 71,
    n = B * H * T * S,
    p = 0.25,
    seed = 0x9abcdef012345n;
  const x = f32(n, 4),
    dy = f32(n);
  const pad = Uint8Array.from({ length: B * S }, (_, k) => (k % 7 === 3 ? 1 : 0));
  const y = new Float64Array(n);
  ref.softmaxForward(y, x, 0.5, pad, true, B, H, T, S);
  const mask = ref.dropoutMask(n, p, seed, 0n);
  const y32 = Float32Array.from(y);
  const dx = new Float64Array(n);
  ref.softmaxBackward(
    dx,
    y32,
    Float32Array.from(dy, (v, i) => v * mask[i]),
    0.5,
    B * H * T,
    S
  );
  const g = await onGpu(
    {
      x: { type: 'f32', data: x },
      pad: { type: 'u8', data: pad },
      yd: { type: 'f32', data: new Float32Array(n) },
      mask: { type: 'f32', data: new Float32Array(n).fill(5) },
      ystore: { type: 'f32', data: y32 },
      dy: { type: 'f32', data: dy },
    },
    [
      [
        'softmax_dropout_forward',
        { buf: 'x' },
        { buf: 'yd' },
        { buf: 'x' },
        0.5,
        { buf: 'pad' },
        true,
        B,
        H,
        T,
        S,
        { mask: { buf: 'mask' }, p, seed: { big: String(seed) } },
      ],
      ['softmax_backward_masked', { buf: 'dy' }, { buf: 'ystore' }, { buf: 'dy' }, { buf: 'mask' }, 0.5, B * H * T, S],
    ],
    ['x', 'yd', 'mask', 'dy']
  );
  assert.deepEqual(g.mask, Array.from(mask), "the mask is dropout_forward's, bit for bit");
  assert.ok(mask.includes(0) && !mask.every((v) => v === 0), 'some of the mask dropped, not all');
  close(g.x, y, 1e-5, 'the weights (in place over the scores)');
  close(
    g.yd,
    Array.from(y, (v, i) => v * mask[i]),
    1e-5,
    'the weights times the mask'
  );
  close(g.dy, dx, 1e-5, 'softmax backward of dy ⊙ mask (over dy)');
});

// A token embedding with its positions and dropout in one kernel, and the dropout's backward
// inside the scatter-add; the mask is dropout_forward's (same seed, offset 0), bit for bit.
test('embedding_pe_forward and embedding_backward_masked: gather, positions and dropout in one kernel', async () => {
  const [R, C, V, L] = [12, 67, 11, 4]; // 3 sequences of 4
  const p = 0.2,
    seed = 0x5eed5eedn;
  const W = f32(V * C),
    pe = f32(L * C),
    ids = Int32Array.from({ length: R }, (_, r) => (r * 7) % V),
    dout = f32(R * C),
    dW0 = f32(V * C);
  const mask = ref.dropoutMask(R * C, p, seed, 0n);
  const want = Float64Array.from({ length: R * C }, (_, i) => {
    const [r, c] = [Math.floor(i / C), i % C];
    return Math.fround(Math.fround(0.5 * W[ids[r] * C + c]) + pe[(r % L) * C + c]) * mask[i];
  });
  const dW = Float32Array.from(dW0);
  for (let r = 0; r < R; ++r)
    for (let c = 0; c < C; ++c) {
      const d = Math.fround(dout[r * C + c] * mask[r * C + c]);
      dW[ids[r] * C + c] = Math.fround(dW[ids[r] * C + c] + Math.fround(0.5 * d));
    }
  const g = await onGpu(
    {
      W: { type: 'f32', data: W },
      pe: { type: 'f32', data: pe },
      ids: { type: 'i32', data: ids },
      out: { type: 'f32', data: new Float32Array(R * C) },
      mask: { type: 'f32', data: new Float32Array(R * C).fill(5) },
      dout: { type: 'f32', data: dout },
      dW: { type: 'f32', data: dW0 },
    },
    [
      [
        'embedding_pe_forward',
        { buf: 'out' },
        { buf: 'W' },
        { buf: 'ids' },
        R,
        C,
        0.5,
        { buf: 'pe' },
        L,
        { mask: { buf: 'mask' }, p, seed: { big: String(seed) } },
      ],
      ['embedding_backward_masked', { buf: 'dW' }, { buf: 'dout' }, { buf: 'mask' }, { buf: 'ids' }, R, C, 0.5],
    ],
    ['out', 'mask', 'dW']
  );
  assert.deepEqual(g.mask, Array.from(mask), "the mask is dropout_forward's");
  assert.ok(mask.includes(0) && !mask.every((v) => v === 0), 'some dropped, not all');
  close(g.out, want, 1e-6, 'drop(scale W[ids] + pe)');
  close(g.dW, dW, 1e-6, 'dW += scale dout ⊙ mask');
});

// The feed-forward network's dropout after its activation, in its first product's epilogue: the
// mask drawn there is dropout_forward's (same seed, offset 0, element i*ldc + j), bit for bit.
test('gemm_fused with a dropout in its epilogue: h = drop(relu(x W1ᵀ + b)), pre kept', async () => {
  const [M, N, K] = [13, 37, 9];
  const p = 0.2,
    seed = 0x5eed5eeen;
  const x = f32(M * K),
    W1 = f32(N * K),
    b = f32(N);
  const gmask = ref.dropoutMask(M * N, p, seed, 0n);
  const pre = new Float64Array(M * N);
  ref.gemm(false, true, M, N, K, 1, x, K, W1, K, 0, pre, N);
  for (let i = 0; i < M * N; ++i) pre[i] += b[i % N];
  const h = Array.from(pre, (v, i) => Math.max(v, 0) * gmask[i]);
  const g = await onGpu(
    {
      x: { type: 'f32', data: x },
      W1: { type: 'f32', data: W1 },
      b: { type: 'f32', data: b },
      h: { type: 'f32', data: new Float32Array(M * N) },
      pre: { type: 'f32', data: new Float32Array(M * N) },
      gmask: { type: 'f32', data: new Float32Array(M * N).fill(5) },
    },
    [
      [
        'gemm_fused',
        false,
        true,
        M,
        N,
        K,
        1,
        { buf: 'x' },
        K,
        { buf: 'W1' },
        K,
        0,
        { buf: 'h' },
        N,
        {
          bias: { buf: 'b' },
          act: 1,
          pre: { buf: 'pre' },
          drop: { mask: { buf: 'gmask' }, p, seed: { big: String(seed) } },
        },
      ],
    ],
    ['h', 'pre', 'gmask']
  );
  assert.deepEqual(g.gmask, Array.from(gmask), "the epilogue's mask is dropout_forward's");
  assert.ok(gmask.includes(0) && !gmask.every((v) => v === 0), 'some dropped, not all');
  close(g.pre, pre, 2e-5, 'the pre-activation');
  close(g.h, h, 2e-5, 'drop(relu(x W1ᵀ + b))');
});

test('the tiled GEMM: four transpose forms on shapes that are not multiples of its tile, a grid, row sums; the same bits as the register kernel', async () => {
  const M = 70,
    N = 67,
    K = 37;
  const results = {};
  for (const kernel of ['gemm_tiled', 'gemm']) {
    await page.evaluate((k) => {
      window.gpuTest.table.gemmKernel = k;
    }, kernel);
    try {
      for (const [tA, tB] of [
        [false, false],
        [false, true],
        [true, false],
        [true, true],
      ]) {
        const lda = (tA ? M : K) + 3,
          ldb = (tB ? K : N) + 2,
          ldc = N + 5;
        // the same data for both kernels
        const A = Float32Array.from({ length: (tA ? K : M) * lda + 7 }, (_, i) => Math.sin(i * 0.37)),
          B = Float32Array.from({ length: (tB ? N : K) * ldb + 5 }, (_, i) => Math.cos(i * 0.23)),
          C = Float32Array.from({ length: M * ldc + 9 }, (_, i) => Math.sin(i * 0.11)),
          db0 = Float32Array.from({ length: M }, (_, i) => i / M);
        const want = Float64Array.from(C),
          db = Float64Array.from(db0);
        ref.gemm(tA, tB, M, N, K, 0.7, A, lda, B, ldb, 0.3, want, ldc, 7, 5, 9);
        for (let i = 0; i < M; ++i) for (let k = 0; k < K; ++k) db[i] += tA ? A[7 + k * lda + i] : A[7 + i * lda + k];
        const g = await onGpu(
          {
            A: { type: 'f32', data: A },
            B: { type: 'f32', data: B },
            C: { type: 'f32', data: C },
            db: { type: 'f32', data: db0 },
          },
          [
            [
              'gemm_fused',
              tA,
              tB,
              M,
              N,
              K,
              0.7,
              { buf: 'A', off: 7 },
              lda,
              { buf: 'B', off: 5 },
              ldb,
              0.3,
              { buf: 'C', off: 9 },
              ldc,
              { rowsum: { buf: 'db' } },
            ],
          ],
          ['C', 'db']
        );
        for (let i = 0; i < 9; ++i) want[i] = C[i];
        close(g.C, want, 2e-5, `${kernel} tA=${tA} tB=${tB}`);
        close(g.db, db, 2e-5, `${kernel} row sums tA=${tA}`);
        results[`${kernel} ${tA} ${tB}`] = g;
      }
      // a grid of 2 × 3 matrices (attention's batch × heads), one dispatch
      const [outer, inner, m, n, k] = [2, 3, 33, 65, 17];
      const A = f32(outer * inner * m * k),
        B = f32(outer * inner * k * n),
        C = new Float32Array(outer * inner * m * n);
      const want = new Float64Array(C.length);
      for (let z = 0; z < outer * inner; ++z)
        ref.gemm(false, true, m, n, k, 1, A, k, B, k, 0, want, n, z * m * k, z * k * n, z * m * n);
      const { C: got } = await onGpu(
        { A: { type: 'f32', data: A }, B: { type: 'f32', data: B }, C: { type: 'f32', data: C } },
        [
          [
            'gemm_grid',
            false,
            true,
            m,
            n,
            k,
            1,
            { buf: 'A' },
            k,
            inner * m * k,
            m * k,
            { buf: 'B' },
            k,
            inner * k * n,
            k * n,
            0,
            { buf: 'C' },
            n,
            inner * m * n,
            m * n,
            outer,
            inner,
          ],
        ],
        ['C']
      );
      close(got, want, 2e-5, `${kernel} grid`);
    } finally {
      await page.evaluate(() => {
        window.gpuTest.table.gemmKernel = 'gemm';
      });
    }
  }
  for (const forms of ['false false', 'false true', 'true false', 'true true']) {
    assert.deepEqual(results[`gemm_tiled ${forms}`], results[`gemm ${forms}`], `the same bits, tA tB = ${forms}`);
  }
});

// Split-K (table.js splitK, gemmSplit): with a '+splitk' choice, a product with few output tiles
// and a long K is two dispatches, the slices' partial sums and their sum with the epilogue. On
// both kernels, against the float64 reference: the four transpose forms with leading dimensions
// and offsets, K not a multiple of the slice, beta, bias + ReLU (+ pre), row sums, a grid of
// matrices at strides with slack, and a weight gradient's shape cut into 7 slices.
const SPLIT_FORMS = [
  [false, false],
  [false, true],
  [true, false],
  [true, true],
];
const withKernel = async (kernel, f) => {
  await page.evaluate((k) => {
    window.gpuTest.table.gemmKernel = k;
  }, kernel);
  try {
    return await f();
  } finally {
    await page.evaluate(() => {
      window.gpuTest.table.gemmKernel = 'gemm';
    });
  }
};
// splitK's cut of a shape for a kernel (null: not split)
const cutOf = (kernel, M, N, K, z) =>
  page.evaluate(
    async ({ kernel, M, N, K, z }) => {
      const { splitK, GEMMS } = await import('/gpu/table.js');
      return splitK(GEMMS[kernel], M, N, K, z);
    },
    { kernel, M, N, K, z }
  );

test('split-K on both kernels: four transpose forms, K not a multiple of the slice, beta, row sums', async () => {
  const M = 37,
    N = 29,
    K = 300;
  for (const kernel of ['gemm', 'gemm_tiled']) {
    const cut = await cutOf(kernel, M, N, K, 1);
    assert.deepEqual(cut, { slices: 2, len: 160 }, `${kernel}: the rule cuts ${M}×${N}×${K} in two`);
    await withKernel(`${kernel}+splitk`, async () => {
      for (const [tA, tB] of SPLIT_FORMS) {
        for (const beta of [0, 0.3]) {
          const lda = (tA ? M : K) + 3,
            ldb = (tB ? K : N) + 2,
            ldc = N + 5;
          const A = f32((tA ? K : M) * lda + 7),
            B = f32((tB ? N : K) * ldb + 5),
            C = beta ? f32(M * ldc + 9) : new Float32Array(M * ldc + 9).fill(NaN),
            db0 = f32(M);
          const want = Float64Array.from(C),
            db = Float64Array.from(db0);
          ref.gemm(tA, tB, M, N, K, 0.7, A, lda, B, ldb, beta, want, ldc, 7, 5, 9);
          for (let i = 0; i < M; ++i) for (let k = 0; k < K; ++k) db[i] += tA ? A[7 + k * lda + i] : A[7 + i * lda + k];
          for (let i = 0; i < 9; ++i) want[i] = C[i];
          const g = await onGpu(
            {
              A: { type: 'f32', data: A },
              B: { type: 'f32', data: B },
              C: { type: 'f32', data: C },
              db: { type: 'f32', data: db0 },
            },
            [
              [
                'gemm_fused',
                tA,
                tB,
                M,
                N,
                K,
                0.7,
                { buf: 'A', off: 7 },
                lda,
                { buf: 'B', off: 5 },
                ldb,
                beta,
                { buf: 'C', off: 9 },
                ldc,
                { rowsum: { buf: 'db' } },
              ],
            ],
            ['C', 'db']
          );
          const what = `${kernel}+splitk tA=${tA} tB=${tB} beta=${beta}`;
          close(
            g.C.map((v) => (Number.isNaN(v) ? 1e30 : v)),
            Array.from(want, (v) => (Number.isNaN(v) ? 1e30 : v)),
            2e-5,
            what
          );
          close(g.db, db, 2e-5, `${what} row sums`);
        }
      }
    });
  }
});

test('split-K: a weight gradient in 7 slices with bias + ReLU (+ pre) or row sums, and a grid of matrices', async () => {
  // dW = dyᵀ x over R = 1000 rows: 64 × 64 outputs (one or four tiles), 7 slices of 144
  const [R, out, inp] = [1000, 64, 64];
  const dy = f32(R * out, 0.5),
    x = f32(R * inp, 0.5),
    bias = f32(inp),
    dW0 = f32(out * inp),
    db0 = f32(out);
  // a grid of 2 × 3 matrices (strides with slack), K 400: three slices
  const [outer, inner, m, n, k] = [2, 3, 33, 17, 400];
  const [sA, sB, sC] = [m * k + 3, k * n + 5, m * n + 2];
  const gA = f32(outer * inner * sA),
    gB = f32(outer * inner * sB),
    gC = f32(outer * inner * sC);
  for (const kernel of ['gemm', 'gemm_tiled']) {
    assert.equal((await cutOf(kernel, out, inp, R, 1)).slices, 7, `${kernel}: 7 slices of dW`);
    assert.equal((await cutOf(kernel, m, n, k, outer * inner)).slices, 3, `${kernel}: 3 slices of the grid`);
    await withKernel(`${kernel}+splitk`, async () => {
      await linearBackwardCheck(dy, x, dW0, db0, R, out, inp, `${kernel}+splitk`);
      // y = relu(dyᵀ x + bias), pre = dyᵀ x + bias kept
      const pre = new Float64Array(out * inp);
      ref.gemm(true, false, out, inp, R, 0.5, dy, out, x, inp, 0, pre, inp);
      for (let o = 0; o < out; ++o) for (let i = 0; i < inp; ++i) pre[o * inp + i] += bias[i];
      const y = pre.map((v) => Math.max(v, 0));
      const f = await onGpu(
        {
          dy: { type: 'f32', data: dy },
          x: { type: 'f32', data: x },
          bias: { type: 'f32', data: bias },
          y: { type: 'f32', data: new Float32Array(out * inp) },
          pre: { type: 'f32', data: new Float32Array(out * inp) },
        },
        [
          [
            'gemm_fused',
            true,
            false,
            out,
            inp,
            R,
            0.5,
            { buf: 'dy' },
            out,
            { buf: 'x' },
            inp,
            0,
            { buf: 'y' },
            inp,
            { bias: { buf: 'bias' }, act: 'relu', pre: { buf: 'pre' } },
          ],
        ],
        ['y', 'pre']
      );
      close(f.y, y, 2e-5, `${kernel}+splitk relu(dyᵀ x + b)`);
      close(f.pre, pre, 2e-5, `${kernel}+splitk pre`);
      // the grid: C = 0.8 A Bᵀ... of each matrix (o, i) + 0.4 C
      const want = Float64Array.from(gC);
      for (let o = 0; o < outer; ++o)
        for (let i = 0; i < inner; ++i) {
          const z = o * inner + i;
          ref.gemm(false, false, m, n, k, 0.8, gA, k, gB, n, 0.4, want, n, z * sA, z * sB, z * sC);
        }
      const { C: got } = await onGpu(
        { A: { type: 'f32', data: gA }, B: { type: 'f32', data: gB }, C: { type: 'f32', data: gC } },
        [
          [
            'gemm_grid',
            false,
            false,
            m,
            n,
            k,
            0.8,
            { buf: 'A' },
            k,
            inner * sA,
            sA,
            { buf: 'B' },
            n,
            inner * sB,
            sB,
            0.4,
            { buf: 'C' },
            n,
            inner * sC,
            sC,
            outer,
            inner,
          ],
        ],
        ['C']
      );
      close(got, want, 2e-5, `${kernel}+splitk grid`);
    });
  }
});

test("split-K: the epilogue's other fields, GELU with a dropout forward and mask + GELU gradient backward", async () => {
  const [M, N, K] = [37, 29, 300];
  const p = 0.2,
    seed = 0x5eed5eeen;
  const x = f32(M * K, 0.5),
    W = f32(N * K, 0.5),
    b = f32(N),
    dout = f32(M * K, 0.5),
    W2 = f32(K * N, 0.5),
    mask = Float32Array.from({ length: M * N }, (_, i) => (i % 3 === 1 ? 0 : 1.25));
  // forward: h = drop(gelu(x Wᵀ + b)), pre kept
  const prod = new Float64Array(M * N);
  ref.gemm(false, true, M, N, K, 1, x, K, W, K, 0, prod, N);
  const y = new Float64Array(M * N),
    pre = new Float64Array(M * N);
  ref.biasActForward(y, pre, prod, b, 2, M, N);
  const gmask = ref.dropoutMask(M * N, p, seed, 0n);
  const h = Array.from(y, (v, i) => v * gmask[i]);
  // backward: dh = ((dout W2) ⊙ mask) ⊙ gelu'(pre)
  const pre32 = Float32Array.from(pre);
  const dh = new Float64Array(M * N);
  ref.gemm(false, false, M, N, K, 1, dout, K, W2, N, 0, dh, N);
  for (let i = 0; i < M * N; ++i) dh[i] *= mask[i];
  const want = new Float64Array(M * N);
  ref.biasActBackward(want, null, dh, pre32, 2, M, N);
  for (const kernel of ['gemm', 'gemm_tiled']) {
    assert.equal((await cutOf(kernel, M, N, K, 1)).slices, 2);
    await withKernel(`${kernel}+splitk`, async () => {
      const g = await onGpu(
        {
          x: { type: 'f32', data: x },
          W: { type: 'f32', data: W },
          b: { type: 'f32', data: b },
          h: { type: 'f32', data: new Float32Array(M * N) },
          pre: { type: 'f32', data: new Float32Array(M * N) },
          gmask: { type: 'f32', data: new Float32Array(M * N).fill(5) },
          dout: { type: 'f32', data: dout },
          W2: { type: 'f32', data: W2 },
          mask: { type: 'f32', data: mask },
          pre32: { type: 'f32', data: pre32 },
          dh: { type: 'f32', data: new Float32Array(M * N).fill(NaN) },
        },
        [
          [
            'gemm_fused',
            false,
            true,
            M,
            N,
            K,
            1,
            { buf: 'x' },
            K,
            { buf: 'W' },
            K,
            0,
            { buf: 'h' },
            N,
            {
              bias: { buf: 'b' },
              act: 'gelu',
              pre: { buf: 'pre' },
              drop: { mask: { buf: 'gmask' }, p, seed: { big: String(seed) } },
            },
          ],
          [
            'gemm_fused',
            false,
            false,
            M,
            N,
            K,
            1,
            { buf: 'dout' },
            K,
            { buf: 'W2' },
            N,
            0,
            { buf: 'dh' },
            N,
            { mask: { buf: 'mask' }, act: 'gelu', dact: { buf: 'pre32' } },
          ],
        ],
        ['h', 'pre', 'gmask', 'dh']
      );
      assert.deepEqual(g.gmask, Array.from(gmask), `${kernel}+splitk: the epilogue's mask is dropout_forward's`);
      close(g.pre, pre, 2e-5, `${kernel}+splitk pre`);
      close(g.h, h, 1e-4, `${kernel}+splitk drop(gelu(x Wᵀ + b))`);
      close(g.dh, want, 1e-4, `${kernel}+splitk mask + GELU gradient`);
    });
  }
});

test('split-K: two dispatches a split product, pairing kept for the rest, the same bits on every run', async () => {
  const [R, out, inp] = [1000, 64, 64];
  const r = await page.evaluate(
    async ({ R, out, inp, dy, x }) => {
      const { table, errors } = window.gpuTest;
      const put = (arr) => {
        const at = table.alloc(arr.length * 4);
        table.upload(at, Float32Array.from(arr));
        return at;
      };
      const count = (f) => {
        table.flush();
        const d = table.dispatches;
        f();
        table.flush();
        return table.dispatches - d;
      };
      const [bdy, bx] = [put(dy), put(x)];
      const outs = [0, 1, 2, 3].map(() => put(new Array(out * inp).fill(0)));
      const db = [0, 1, 2, 3].map(() => put(new Array(out).fill(0)));
      const res = {};
      for (const kernel of ['gemm', 'gemm_tiled']) {
        table.gemmKernel = `${kernel}+splitk`;
        const sums = table.kernelCounts.get('gemm_split_sum') ?? 0;
        const dW = (i) =>
          table.gemm_fused(true, false, out, inp, R, 1, bdy, out, bx, inp, 0, outs[i], inp, { rowsum: db[i] });
        const small = (i) => table.gemm(false, false, 8, 8, 8, 1, bdy, 8, bx, 8, 0, outs[i], 8);
        const counts = {
          one: count(() => dW(0)), // split: stages 1 and 2
          two: count(() => (dW(1), dW(2))), // independent, yet each alone: 4
          pair: count(() => (small(2), small(3))), // not split: the two share a dispatch
        };
        table.fill(db[0], 0, out, 0);
        table.fill(db[1], 0, out, 0);
        count(() => dW(0));
        count(() => dW(1));
        const read = async (at, n) => Array.from(new Uint32Array((await table.readFloats(at, n)).buffer));
        res[kernel] = {
          counts,
          sums: table.kernelCounts.get('gemm_split_sum') - sums,
          runs: [await read(outs[0], out * inp), await read(outs[1], out * inp)],
          rows: [await read(db[0], out), await read(db[1], out)],
        };
      }
      table.gemmKernel = 'gemm';
      for (const at of [bdy, bx, ...outs, ...db]) table.release(at);
      return { res, errors: errors.splice(0) };
    },
    { R, out, inp, dy: Array.from(f32(R * out)), x: Array.from(f32(R * inp)) }
  );
  assert.deepEqual(r.errors, []);
  for (const kernel of ['gemm', 'gemm_tiled']) {
    const { counts, sums, runs, rows } = r.res[kernel];
    assert.deepEqual(counts, { one: 2, two: 4, pair: 1 }, `${kernel}+splitk dispatches`);
    assert.equal(sums, 5, `${kernel}+splitk: one stage 2 a split product`);
    assert.deepEqual(runs[0], runs[1], `${kernel}+splitk: the same bits on two runs`);
    assert.deepEqual(rows[0], rows[1], `${kernel}+splitk: the same row sums on two runs`);
  }
});

// Independent GEMM problems encoded one after the other share a dispatch (table.js gemmRun: a
// layer's dx and dW, attention's dV and dA, its dQ and dK in the columns of one buffer); a
// problem that reads or writes what the one before it writes, or writes what it reads, gets its
// own. The pair gives the bits of the two dispatches apart, in both GEMM kernels.
test('independent GEMMs share a dispatch with the same bits; dependent ones do not', async () => {
  const [R, inp, out] = [45, 37, 29];
  const dy = f32(R * out),
    W = f32(out * inp),
    x = f32(R * inp),
    dW0 = f32(out * inp),
    db0 = f32(out);
  // q and k heads side by side: [R, 3C] with C = H * hs, grid 1 × H
  const [H, hs, K2] = [3, 5, 11];
  const C3 = 3 * H * hs;
  const a2 = f32(R * K2),
    b2 = f32(H * K2 * hs);
  const r = await page.evaluate(
    async ({ R, inp, out, H, hs, K2, C3, data }) => {
      const { table, errors } = window.gpuTest;
      const put = (arr) => {
        const at = table.alloc(arr.length * 4);
        table.upload(at, Float32Array.from(arr));
        return at;
      };
      const bufs = [];
      const buf = (arr) => (bufs.push(put(arr)), bufs[bufs.length - 1]);
      const spare = buf([0]);
      const apart = () => table.fill(spare, 0, 1, 0); // a dispatch between two GEMMs
      const read = async (at, n) => Array.from(await table.readFloats(at, n));
      // encodes f, returns the dispatches it made
      const count = (f) => {
        table.flush();
        const d = table.dispatches;
        f();
        table.flush();
        return table.dispatches - d;
      };
      const out1 = {};
      for (const kernel of ['gemm', 'gemm_tiled']) {
        table.gemmKernel = kernel;
        const res = {};
        for (const together of [true, false]) {
          const key = together ? 'pair' : 'apart';
          // a linear layer's backward: dx = dy W, dW += dyᵀ x with db += row sums of dyᵀ
          const bdy = buf(data.dy),
            bW = buf(data.W),
            bx = buf(data.x),
            bdx = buf(new Array(R * inp).fill(0)),
            bdW = buf(data.dW0),
            bdb = buf(data.db0);
          const n1 = count(() => {
            table.gemm(false, false, R, inp, out, 1, bdy, out, bW, inp, 0, bdx, inp);
            if (!together) apart();
            table.gemm_fused(true, false, out, inp, R, 1, bdy, out, bx, inp, 1, bdW, inp, { rowsum: bdb });
          });
          // two products into the q and k columns of one [R, 3C] buffer (a grid of H heads)
          const ba = buf(data.a2),
            bb = buf(data.b2),
            bqk = buf(new Array(R * C3).fill(7));
          const C = H * hs;
          const n2 = count(() => {
            for (const col of [0, C]) {
              table.gemm_grid(
                false,
                false,
                R,
                hs,
                K2,
                1,
                ba,
                K2,
                0,
                0,
                bb,
                hs,
                0,
                K2 * hs,
                0,
                bqk + col * 4,
                C3,
                0,
                hs,
                1,
                H
              );
              if (!together) apart();
            }
          });
          res[key] = {
            dispatches: [n1, n2],
            dx: await read(bdx, R * inp),
            dW: await read(bdW, out * inp),
            db: await read(bdb, out),
            qk: await read(bqk, R * C3),
          };
        }
        // dependent: the second reads the first's output (RAW), writes its input (WAR), writes
        // columns overlapping its output by one (WAW)
        const p = buf(new Array(R * R).fill(0)),
          q = buf(new Array(R * R).fill(0));
        const bdy = buf(data.dy);
        const raw = count(() => {
          table.gemm(false, true, R, R, out, 1, bdy, out, bdy, out, 0, p, R);
          table.gemm(false, false, R, R, R, 1, p, R, p, R, 0, q, R);
        });
        const war = count(() => {
          table.gemm(false, false, R, R, R, 1, p, R, p, R, 0, q, R);
          table.gemm(false, true, R, R, out, 1, bdy, out, bdy, out, 0, p, R);
        });
        const waw = count(() => {
          table.gemm(false, true, R, 10, out, 1, bdy, out, bdy, out, 0, q, R);
          table.gemm(false, true, R, 10, out, 1, bdy, out, bdy, out, 0, q + 9 * 4, R);
        });
        const three = count(() => {
          for (const col of [0, 10, 20]) table.gemm(false, true, R, 10, out, 1, bdy, out, bdy, out, 0, q + col * 4, R);
        });
        res.dependent = { raw, war, waw, three, q: await read(q, R * R) };
        out1[kernel] = res;
      }
      table.gemmKernel = 'gemm';
      for (const at of bufs) table.release(at);
      return { ...out1, errors: errors.splice(0) };
    },
    {
      R,
      inp,
      out,
      H,
      hs,
      K2,
      C3,
      data: Object.fromEntries(Object.entries({ dy, W, x, dW0, db0, a2, b2 }).map(([k, v]) => [k, Array.from(v)])),
    }
  );
  assert.deepEqual(r.errors, [], 'WebGPU validation errors');
  // the float64 references
  const dx = new Float64Array(R * inp),
    dW = Float64Array.from(dW0),
    db = Float64Array.from(db0),
    qk = new Float64Array(R * C3).fill(7);
  ref.gemm(false, false, R, inp, out, 1, dy, out, W, inp, 0, dx, inp);
  ref.gemm(true, false, out, inp, R, 1, dy, out, x, inp, 1, dW, inp);
  for (let o = 0; o < out; ++o) for (let i = 0; i < R; ++i) db[o] += dy[i * out + o];
  for (const col of [0, H * hs])
    for (let h = 0; h < H; ++h)
      ref.gemm(false, false, R, hs, K2, 1, a2, K2, b2, hs, 0, qk, C3, 0, h * K2 * hs, col + h * hs);
  for (const kernel of ['gemm', 'gemm_tiled']) {
    const { pair, apart, dependent } = r[kernel];
    assert.deepEqual(pair.dispatches, [1, 1], `${kernel}: independent pairs in one dispatch`);
    assert.deepEqual(apart.dispatches, [3, 4], `${kernel}: with a dispatch between them`);
    for (const k of ['dx', 'dW', 'db', 'qk']) assert.deepEqual(pair[k], apart[k], `${kernel}: ${k}, the same bits`);
    close(pair.dx, dx, 2e-5, `${kernel} dx`);
    close(pair.dW, dW, 2e-5, `${kernel} dW`);
    close(pair.db, db, 2e-5, `${kernel} db`);
    close(pair.qk, qk, 2e-5, `${kernel} q, k columns`);
    assert.equal(dependent.raw, 2, `${kernel}: a product of the one before`);
    assert.equal(dependent.war, 2, `${kernel}: over the input of the one before`);
    assert.equal(dependent.waw, 2, `${kernel}: columns that overlap by one`);
    assert.equal(dependent.three, 2, `${kernel}: three independent products, a pair and one`);
  }
  // the last product (three column blocks of dy dyᵀ into q) against the reference
  const q = new Float64Array(R * R);
  for (const col of [0, 10, 20]) ref.gemm(false, true, R, 10, out, 1, dy, out, dy, out, 0, q, R, 0, 0, col);
  for (const kernel of ['gemm', 'gemm_tiled']) {
    const got = r[kernel].dependent.q;
    for (let i = 0; i < R; ++i)
      for (let j = 0; j < 30; ++j) {
        const e = Math.abs(got[i * R + j] - q[i * R + j]) / (1 + Math.abs(q[i * R + j]));
        assert.ok(e <= 2e-5, `${kernel} dy dyᵀ blocks at ${i}, ${j}: ${got[i * R + j]} vs ${q[i * R + j]}`);
      }
  }
});

test('the GEMM choice: both kernels, with and without split-K, timed at the shapes encoded, the fastest used and stored for the adapter', async () => {
  const r = await page.evaluate(async () => {
    const { table, errors } = window.gpuTest;
    const { GpuTable } = await import('/gpu/table.js');
    const key = `attnlab:gemm:${table.adapter}`;
    const fresh = () => new GpuTable(table.device, { arenaBytes: 1 << 16, adapter: table.adapter });
    localStorage.clear();
    // a step's shapes ("tA tB M N K matrices" -> count): a weight gradient over 1024 tokens,
    // which splitK cuts for both kernels, and a forward product, which it does not
    table.gemmShapes.clear();
    table.gemmShapes.set('1 0 128 256 1024 1', 2);
    table.gemmShapes.set('0 1 512 128 128 1', 2);
    const before = table.arena.usedBytes;
    const choice = await table.chooseGemm({ force: true, runs: 1 });
    const again = await table.chooseGemm(); // decided once per table
    const stored = await fresh().chooseGemm();
    const arena = table.arena.usedBytes - before;
    const kernel = table.gemmKernel;
    const saved = localStorage.getItem(key);
    // names stored before split-K and split ones load as they are; a name not a choice does not
    const loads = {};
    for (const name of ['gemm', 'gemm_tiled', 'gemm+splitk', 'gemm_tiled+splitk', 'gemm_big']) {
      localStorage.setItem(key, name);
      const t = fresh();
      if (name === 'gemm_big') t.gemmShapes.set('0 0 64 64 64 1', 1);
      const c = await t.chooseGemm({ runs: 1 });
      loads[name] = { kernel: c.kernel, encodes: t.gemmKernel, stored: c.stored };
    }
    // shapes that splitK cuts for neither kernel: the split candidates are not timed
    const plain = fresh();
    plain.gemmShapes.set('0 0 256 256 128 1', 1);
    const unsplit = await plain.chooseGemm({ force: true, runs: 1 });
    localStorage.clear();
    return { choice, same: again === choice, kernel, saved, stored, arena, loads, unsplit, errors: errors.splice(0) };
  });
  const all = ['gemm', 'gemm_tiled', 'gemm+splitk', 'gemm_tiled+splitk'];
  assert.deepEqual(Object.keys(r.choice.ms).sort(), all.sort(), JSON.stringify(r.choice));
  for (const k of all)
    assert.ok(r.choice.ms[k] > 0 && Number.isFinite(r.choice.ms[k]), `${k} timed: ${r.choice.ms[k]} ms`);
  const fastest = all.reduce((a, b) => (r.choice.ms[b] < r.choice.ms[a] ? b : a));
  assert.equal(r.choice.kernel, fastest, `the fastest of ${JSON.stringify(r.choice.ms)}`);
  assert.ok(r.same);
  assert.equal(r.kernel, r.choice.kernel, 'the table now encodes the chosen kernel');
  assert.equal(r.saved, r.choice.kernel, 'stored for the adapter');
  assert.deepEqual(
    r.stored,
    { kernel: r.choice.kernel, ms: null, stored: true },
    'a later table takes the stored choice'
  );
  assert.equal(r.arena, 0, 'the timing buffers are given back, the scratch its size again');
  for (const name of ['gemm', 'gemm_tiled', 'gemm+splitk', 'gemm_tiled+splitk'])
    assert.deepEqual(r.loads[name], { kernel: name, encodes: name, stored: true }, `stored ${name} loads`);
  assert.equal(r.loads.gemm_big.stored, false, 'a stored name that is no choice is timed again');
  assert.ok(all.includes(r.loads.gemm_big.kernel));
  assert.deepEqual(Object.keys(r.unsplit.ms).sort(), ['gemm', 'gemm_tiled'], 'no shape to split: no split candidate');
  assert.deepEqual(r.errors, []);
});
