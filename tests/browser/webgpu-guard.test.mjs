// The readback-free step's kernels of the WebGPU table (web/gpu/) against JS references on the
// same inputs, in headless Chromium's WebGPU on SwiftShader: step_guard (the norm, the clip
// factor, the sticky stop on a loss or norm that is NaN or infinite, whatever the NaN's bits),
// Adam's guarded update (a stop, also on gradients written as NaN and infinity bit patterns,
// leaves weights, moments and gradients untouched bit for bit; a clip scales the gradients in
// place), sum_to and sumsq_to over several partial sums, fill (zero and copy) and zero over
// byte ranges that are not whole floats; and the table's own checks: more than 64 parameter
// words and an upload at an offset that is not whole words are errors, and zeroing or
// allocating a large block writes nothing of its size from JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuPage, onGpu, f32, close } from './webgpu-harness.mjs';
import * as ref from './webgpu-ref.mjs';

const page = gpuPage();

// float32 bit patterns, uploaded as int32 words
const BITS = {
  nan: 0x7fc00000 | 0,
  negNanPayload: 0xffc00001 | 0,
  signalingNan: 0x7f800001 | 0,
  inf: 0x7f800000 | 0,
  negInf: 0xff800000 | 0,
};
const word = (x) => new Int32Array(Float32Array.of(x).buffer)[0];
const FLT_MAX = 3.4028234663852886e38;

// kernels.hpp step_guard on float32 values
function guardRef(loss, sumsq, maxNorm, stopped) {
  const norm = Math.fround(Math.sqrt(sumsq));
  const bad = !Number.isFinite(loss) || !Number.isFinite(norm);
  const factor = maxNorm > 0 && norm > maxNorm ? Math.fround(maxNorm / Math.fround(norm + 1e-6)) : 1;
  return { norm, stopped: stopped || bad ? 1 : 0, factor };
}
const fromBits = (w) => new Float32Array(Int32Array.of(w).buffer)[0];

test('step_guard: the norm and the clip factor; a NaN or infinite loss or norm stops, and the stop sticks', async () => {
  // [loss bits, sumsq bits, max_norm, stopped before]
  const cases = [
    [word(2.5), word(16), 1, 0], // clipped: factor 1 / (4 + 1e-6)
    [word(2.5), word(0.25), 1, 0], // under the bound: factor 1
    [word(2.5), word(16), 0, 0], // no clip
    [word(FLT_MAX), word(FLT_MAX), 0, 0], // the largest finite values are finite
    [word(-FLT_MAX), word(1.4e-45), 1, 0], // and the smallest denormal
    [BITS.nan, word(1), 1, 0],
    [BITS.negNanPayload, word(1), 1, 0],
    [BITS.signalingNan, word(1), 1, 0],
    [BITS.inf, word(1), 1, 0],
    [BITS.negInf, word(1), 1, 0],
    [word(2.5), BITS.inf, 1, 0], // an infinite gradient norm
    [word(2.5), BITS.nan, 1, 0], // a NaN gradient norm
    [word(2.5), word(4), 1, 1], // a step after a stop: stays stopped
  ];
  for (const [lossBits, ssBits, maxNorm, stopped] of cases) {
    const g = await onGpu(
      {
        rec: { type: 'i32', data: [lossBits, 0] },
        state: { type: 'f32', data: [stopped, 7] },
        ss: { type: 'i32', data: [ssBits] },
      },
      [['step_guard', { buf: 'rec' }, { buf: 'state' }, { buf: 'ss' }, maxNorm]],
      ['rec', 'state']
    );
    const loss = fromBits(lossBits),
      sumsq = fromBits(ssBits);
    const want = guardRef(loss, sumsq, maxNorm, stopped);
    const what = `loss ${loss} (0x${(lossBits >>> 0).toString(16)}), sumsq ${sumsq}, max ${maxNorm}, stopped ${stopped}`;
    assert.equal(g.state[0], want.stopped, `${what}: stopped`);
    if (Number.isFinite(want.norm)) close([g.rec[1]], [want.norm], 1e-6, `${what}: norm`);
    else assert.ok(!Number.isFinite(g.rec[1]), `${what}: norm ${g.rec[1]}`);
    if (Number.isFinite(want.norm)) close([g.state[1]], [want.factor], 1e-6, `${what}: factor`);
  }
});

// sumsq_to, step_guard, adam_guarded: one guarded step as train/step.cpp encodes it
const guardedStep = (clip, t) => [
  ['sumsq_to', { buf: 'state', off: 2 }, { buf: 'g' }, 1000],
  ['step_guard', { buf: 'rec' }, { buf: 'state' }, { buf: 'state', off: 2 }, clip],
  [
    'adam_guarded',
    { buf: 'p' },
    { buf: 'm' },
    { buf: 'v' },
    { buf: 'g' },
    1000,
    1e-3,
    0.9,
    0.98,
    1e-9,
    0.01,
    t,
    { buf: 'state' },
  ],
];

test("Adam's guarded update: a clipped step scales the gradients in place; a NaN or infinite gradient or loss changes nothing and reports the stop", async () => {
  const n = 1000;
  const p = f32(n),
    m = f32(n, 0.1),
    v = Float32Array.from(f32(n), (x) => x * x * 0.01),
    g = f32(n);
  const bufs = (grad, lossBits) => ({
    p: { type: 'f32', data: p },
    m: { type: 'f32', data: m },
    v: { type: 'f32', data: v },
    // an Int32Array: the gradients as bit patterns (NaNs with payloads, signalling NaNs)
    g: grad instanceof Int32Array ? { type: 'i32', data: grad } : { type: 'f32', data: grad },
    rec: { type: 'i32', data: [lossBits, 0] },
    state: { type: 'f32', data: [0, 0, 0, 0] },
  });
  // finite: clipped to norm 1
  const norm = Math.sqrt(g.reduce((s, x) => s + x * x, 0));
  assert.ok(norm > 1);
  const factor = 1 / (norm + 1e-6);
  const gs = Float64Array.from(g, (x) => x * factor);
  const P = Float64Array.from(p),
    M = Float64Array.from(m),
    V = Float64Array.from(v);
  ref.adam(P, M, V, gs, n, 1e-3, 0.9, 0.98, 1e-9, 0.01, 2);
  const ok = await onGpu(bufs(g, word(3.25)), guardedStep(1, 2), ['p', 'm', 'v', 'g', 'rec', 'state']);
  close(ok.p, P, 1e-5, 'guarded adam p');
  close(ok.m, M, 1e-5, 'guarded adam m');
  close(ok.v, V, 1e-5, 'guarded adam v');
  close(ok.g, gs, 1e-5, 'gradients scaled in place');
  assert.equal(ok.state[0], 0);
  close([ok.rec[1]], [norm], 1e-5, 'the norm recorded');

  const same = (got, want, what) =>
    assert.ok(
      got.every((x, i) => Object.is(Math.fround(x), want[i])),
      `${what} changed`
    );
  // g's bits with some words replaced
  const withBits = (x, words) => {
    const w = new Int32Array(Float32Array.from(x).buffer);
    for (const [i, b] of Object.entries(words)) w[i] = b;
    return w;
  };
  const nanG = Float32Array.from(g);
  nanG[517] = NaN;
  const infG = Float32Array.from(g);
  infG[3] = -Infinity;
  for (let [what, grad, lossBits] of [
    ['a NaN gradient', nanG, word(3.25)],
    ['an infinite gradient', infG, word(3.25)],
    ['a NaN loss', g, BITS.nan],
    ['an infinite loss', g, BITS.inf],
    ['a signalling NaN gradient (bits)', withBits(g, { 10: BITS.signalingNan }), word(3.25)],
    ['a NaN gradient with a payload (bits)', withBits(g, { 999: BITS.negNanPayload }), word(3.25)],
    ['an infinite gradient (bits)', withBits(g, { 0: BITS.inf, 500: BITS.negInf }), word(3.25)],
  ]) {
    const r = await onGpu(bufs(grad, lossBits), guardedStep(1, 2), ['p', 'm', 'v', 'g', 'state']);
    if (grad instanceof Int32Array) grad = new Float32Array(grad.buffer);
    assert.equal(r.state[0], 1, `${what}: the stop is reported`);
    same(r.p, p, `${what}: weights`);
    same(r.m, m, `${what}: first moments`);
    same(r.v, v, `${what}: second moments`);
    assert.ok(
      r.g.every((x, i) => Object.is(Math.fround(x), grad[i]) || (Number.isNaN(x) && Number.isNaN(grad[i]))),
      `${what}: gradients changed`
    );
  }
});

test('sum_to (a mean over several partial sums; divisor 0 gives 0) and sumsq_to', async () => {
  for (const n of [1, 4096, 10007]) {
    const x = f32(n, 2);
    const sum = x.reduce((s, v) => s + v, 0),
      sq = x.reduce((s, v) => s + v * v, 0);
    const g = await onGpu(
      { x: { type: 'f32', data: x }, out: { type: 'f32', data: [9, 9, 9, 9] } },
      [
        ['sum_to', { buf: 'out', off: 0 }, { buf: 'x' }, n, 7],
        ['sum_to', { buf: 'out', off: 1 }, { buf: 'x' }, n, 0],
        ['sumsq_to', { buf: 'out', off: 2 }, { buf: 'x' }, n],
      ],
      ['out']
    );
    close(g.out, [sum / 7, 0, sq, 9], 1e-5, `sum_to, sumsq_to over ${n}`);
  }
});

test('fill: zero and copy at offsets leave the floats around them; zero over bytes that are not whole floats', async () => {
  const n = 1000;
  const x = f32(n),
    y = f32(n);
  const g = await onGpu(
    { x: { type: 'f32', data: x }, y: { type: 'f32', data: y }, z: { type: 'f32', data: y } },
    [
      ['fill', { buf: 'y', off: 5 }, { buf: 'x', off: 11 }, 700, 1],
      ['fill', { buf: 'z', off: 3 }, 0, 601, 0],
      ['copy', { buf: 'x', off: 900 }, { buf: 'x', off: 0 }, 400], // bytes: 100 floats
      ['zero', { buf: 'x', off: 1 }, 8], // bytes: 2 floats
    ],
    ['y', 'z', 'x']
  );
  const wantY = Array.from(y, (v, i) => (i >= 5 && i < 705 ? x[i + 6] : v));
  const wantZ = Array.from(y, (v, i) => (i >= 3 && i < 604 ? 0 : v));
  const wantX = Array.from(x, (v, i) => (i >= 900 ? x[i - 900] : i === 1 || i === 2 ? 0 : v));
  assert.deepEqual(g.y, wantY);
  assert.deepEqual(g.z, wantZ);
  assert.deepEqual(g.x, wantX);

  const bytes = await page.evaluate(async () => {
    const { table, errors } = window.gpuTest;
    const at = table.alloc(64);
    const data = Uint8Array.from({ length: 64 }, (_, i) => 1 + i);
    const out = [];
    for (const [off, len] of [
      [3, 6],
      [0, 7],
      [8, 1],
      [13, 40],
    ]) {
      table.upload(at, data);
      table.zero(at + off, len);
      out.push({ off, len, got: Array.from(await table.read(at, 64)) });
    }
    table.release(at);
    return { out, errors: errors.splice(0) };
  });
  assert.deepEqual(bytes.errors, []);
  for (const { off, len, got } of bytes.out)
    assert.deepEqual(
      got,
      Array.from({ length: 64 }, (_, i) => (i >= off && i < off + len ? 0 : 1 + i)),
      `zero(${off}, ${len})`
    );
});

test('a kernel given more than 64 parameter words is refused, naming it; zero and alloc of a large block write nothing its size from JS', async () => {
  const r = await page.evaluate(async () => {
    const { table, errors } = window.gpuTest;
    let refused = null;
    try {
      table.run(
        'fill',
        Array.from({ length: 65 }, () => 0),
        [1]
      );
    } catch (e) {
      refused = e.message;
    }
    // a queue write at an offset that is not whole words: an error that says so, not a
    // validation error on the device
    let unaligned = null;
    const small = table.alloc(64);
    try {
      table.upload(small + 2, new Uint8Array(4));
    } catch (e) {
      unaligned = e.message;
    }
    table.release(small);
    // the largest host write while a 4 MiB block is allocated (over freed, dirty memory) and zeroed
    const dirty = table.alloc(1 << 22);
    table.upload(dirty, new Float32Array(1 << 20).fill(3));
    table.release(dirty);
    const queue = table.device.queue;
    const write = queue.writeBuffer;
    let largest = 0;
    queue.writeBuffer = function (buffer, offset, data, dataOffset = 0, size = undefined) {
      const unit = data.BYTES_PER_ELEMENT ?? 1; // typed arrays count elements, buffers bytes
      largest = Math.max(largest, size !== undefined ? size * unit : data.byteLength - dataOffset * unit);
      return write.call(this, buffer, offset, data, dataOffset, ...(size === undefined ? [] : [size]));
    };
    let zeroed, rezeroed;
    try {
      const at = table.alloc(1 << 22);
      zeroed = (await table.readFloats(at, 1 << 20)).every((v) => v === 0);
      table.scale(at, 0, at, 1); // something in the pass before the zero
      table.upload(at, new Float32Array(16).fill(5));
      table.zero(at, 1 << 22);
      rezeroed = (await table.readFloats(at, 1 << 20)).every((v) => v === 0);
      table.release(at);
    } finally {
      queue.writeBuffer = write;
    }
    return { refused, unaligned, largest, zeroed, rezeroed, errors: errors.splice(0) };
  });
  assert.match(r.refused ?? '', /WebGPU fill: 65 parameter words, a kernel takes at most 64/);
  assert.match(r.unaligned ?? '', /WebGPU arena: upload at \d+ is not 4-byte aligned/);
  assert.ok(r.zeroed, 'an allocation over freed memory is zero');
  assert.ok(r.rezeroed, 'zero() cleared the block');
  assert.ok(r.largest <= 1 << 16, `a host write of ${r.largest} bytes`);
  assert.deepEqual(r.errors, []);
});
