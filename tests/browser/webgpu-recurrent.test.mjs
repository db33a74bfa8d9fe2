// The WebGPU table's recurrent kernels (web/gpu/wgsl-recurrent.js) against the float64 ports of
// cpp/kernels/recurrent.cpp (webgpu-ref.mjs), in headless Chromium's WebGPU on SwiftShader, on
// odd sizes (B 5, C 37, S 7, A 45). Tolerance |gpu - ref| <= 1e-5 (1 + |ref|): sigmoid and tanh
// in float32. Accumulating outputs (dh_prev, dq, dv, dbias) start from non-zero values; the
// pointer loss runs with its gradient over the probabilities, as the table allows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuPage, onGpu, f32, close } from './webgpu-harness.mjs';
import * as ref from './webgpu-ref.mjs';

gpuPage();
const B = 5,
  C = 37,
  TOL = 1e-5;
const buf = (data, type = 'f32') => ({ type, data });
const zeros = (n) => buf(new Float32Array(n));
const f64 = (a) => Float64Array.from(a);

test('tanh with bias, forward and backward (dbias accumulates)', async () => {
  const x = f32(B * C, 2),
    bias = f32(C),
    dy = f32(B * C),
    db0 = f32(C);
  const y = new Float64Array(B * C);
  ref.tanhBiasForward(y, x, bias, B, C);
  const y32 = Float32Array.from(y),
    dx = new Float64Array(B * C),
    db = f64(db0);
  ref.tanhBiasBackward(dx, db, dy, y32, B, C);
  const g = await onGpu(
    { x: buf(x), bias: buf(bias), y: zeros(B * C), y32: buf(y32), dy: buf(dy), db: buf(db0) },
    [
      ['tanh_bias_forward', { buf: 'y' }, { buf: 'x' }, { buf: 'bias' }, B, C],
      ['tanh_bias_backward', { buf: 'dy' }, { buf: 'db' }, { buf: 'dy' }, { buf: 'y32' }, B, C],
    ],
    ['y', 'dy', 'db']
  );
  close(g.y, y, TOL, 'tanh_bias_forward');
  close(g.dy, dx, TOL, 'tanh_bias_backward dx (over dy)');
  close(g.db, db, TOL, 'tanh_bias_backward dbias');
});

test('GRU gates and cell, forward and backward', async () => {
  const xg = f32(B * 3 * C, 2),
    hg = f32(B * 2 * C),
    hc = f32(B * C),
    hPrev = f32(B * C);
  const zr = new Float64Array(B * 2 * C),
    rh = new Float64Array(B * C),
    h = new Float64Array(B * C),
    cand = new Float64Array(B * C);
  ref.gruGatesForward(zr, rh, xg, hg, hPrev, B, C);
  const zr32 = Float32Array.from(zr);
  ref.gruCellForward(h, cand, xg, hc, zr32, hPrev, B, C);
  const fwd = await onGpu(
    {
      xg: buf(xg),
      hg: buf(hg),
      hc: buf(hc),
      hPrev: buf(hPrev),
      zr: zeros(B * 2 * C),
      rh: zeros(B * C),
      h: zeros(B * C),
      cand: zeros(B * C),
      zr32: buf(zr32),
    },
    [
      ['gru_gates_forward', { buf: 'zr' }, { buf: 'rh' }, { buf: 'xg' }, { buf: 'hg' }, { buf: 'hPrev' }, B, C],
      [
        'gru_cell_forward',
        { buf: 'h' },
        { buf: 'cand' },
        { buf: 'xg' },
        { buf: 'hc' },
        { buf: 'zr32' },
        { buf: 'hPrev' },
        B,
        C,
      ],
    ],
    ['zr', 'rh', 'h', 'cand']
  );
  close(fwd.zr, zr, TOL, 'gru_gates_forward zr');
  close(fwd.rh, rh, TOL, 'gru_gates_forward rh');
  close(fwd.h, h, TOL, 'gru_cell_forward h');
  close(fwd.cand, cand, TOL, 'gru_cell_forward cand');

  const cand32 = Float32Array.from(cand),
    dh = f32(B * C),
    drh = f32(B * C),
    dhp0 = f32(B * C),
    dxg0 = f32(B * 3 * C);
  const dxg = f64(dxg0),
    dhPrev = new Float64Array(B * C);
  ref.gruCellBackward(dxg, dhPrev, dh, zr32, cand32, hPrev, B, C);
  const dhPrev2 = f64(dhp0);
  ref.gruGatesBackward(dxg, dhPrev2, drh, zr32, hPrev, B, C);
  const bwd = await onGpu(
    {
      dxg: buf(dxg0),
      dhPrev: zeros(B * C),
      dhPrev2: buf(dhp0),
      dh: buf(dh),
      drh: buf(drh),
      zr: buf(zr32),
      cand: buf(cand32),
      hPrev: buf(hPrev),
    },
    [
      [
        'gru_cell_backward',
        { buf: 'dxg' },
        { buf: 'dhPrev' },
        { buf: 'dh' },
        { buf: 'zr' },
        { buf: 'cand' },
        { buf: 'hPrev' },
        B,
        C,
      ],
      ['gru_gates_backward', { buf: 'dxg' }, { buf: 'dhPrev2' }, { buf: 'drh' }, { buf: 'zr' }, { buf: 'hPrev' }, B, C],
    ],
    ['dxg', 'dhPrev', 'dhPrev2']
  );
  close(bwd.dxg, dxg, TOL, 'gru backward dxg (all three blocks)');
  close(bwd.dhPrev, dhPrev, TOL, 'gru_cell_backward dh_prev');
  close(bwd.dhPrev2, dhPrev2, TOL, 'gru_gates_backward dh_prev (accumulated)');
});

test('LSTM cell, forward and backward, with and without an incoming dc', async () => {
  const pre = f32(B * 4 * C, 2),
    cPrev = f32(B * C);
  const h = new Float64Array(B * C),
    c = new Float64Array(B * C),
    act = new Float64Array(B * 4 * C),
    tc = new Float64Array(B * C);
  ref.lstmCellForward(h, c, act, tc, pre, cPrev, B, C);
  const fwd = await onGpu(
    { pre: buf(pre), cPrev: buf(cPrev), h: zeros(B * C), c: zeros(B * C), act: zeros(B * 4 * C), tc: zeros(B * C) },
    [
      [
        'lstm_cell_forward',
        { buf: 'h' },
        { buf: 'c' },
        { buf: 'act' },
        { buf: 'tc' },
        { buf: 'pre' },
        { buf: 'cPrev' },
        B,
        C,
      ],
    ],
    ['h', 'c', 'act', 'tc']
  );
  for (const [k, want] of Object.entries({ h, c, act, tc })) close(fwd[k], want, TOL, `lstm_cell_forward ${k}`);

  const act32 = Float32Array.from(act),
    tc32 = Float32Array.from(tc),
    dh = f32(B * C),
    dc = f32(B * C);
  for (const withDc of [true, false]) {
    const dpre = new Float64Array(B * 4 * C),
      dcPrev = new Float64Array(B * C);
    ref.lstmCellBackward(dpre, dcPrev, dh, withDc ? dc : null, act32, cPrev, tc32, B, C);
    const g = await onGpu(
      {
        dpre: zeros(B * 4 * C),
        dcPrev: zeros(B * C),
        dh: buf(dh),
        dc: buf(dc),
        act: buf(act32),
        cPrev: buf(cPrev),
        tc: buf(tc32),
      },
      [
        [
          'lstm_cell_backward',
          { buf: 'dpre' },
          { buf: 'dcPrev' },
          { buf: 'dh' },
          withDc ? { buf: 'dc' } : 0,
          { buf: 'act' },
          { buf: 'cPrev' },
          { buf: 'tc' },
          B,
          C,
        ],
      ],
      ['dpre', 'dcPrev']
    );
    close(g.dpre, dpre, TOL, `lstm_cell_backward dpre${withDc ? '' : ' (no dc)'}`);
    close(g.dcPrev, dcPrev, TOL, `lstm_cell_backward dc_prev${withDc ? '' : ' (no dc)'}`);
  }
});

test('additive attention scores, forward and backward (dk over t; dq, dv accumulate)', async () => {
  const S = 7,
    A = 45;
  const k = f32(S * B * A),
    q = f32(B * A),
    v = f32(A),
    de = f32(B * S),
    dq0 = f32(B * A),
    dv0 = f32(A);
  const e = new Float64Array(B * S),
    t = new Float64Array(S * B * A);
  ref.additiveScoreForward(e, t, k, q, v, S, B, A);
  const t32 = Float32Array.from(t),
    dk = new Float64Array(S * B * A),
    dq = f64(dq0),
    dv = f64(dv0);
  ref.additiveScoreBackward(dk, dq, dv, de, t32, v, S, B, A);
  const g = await onGpu(
    {
      k: buf(k),
      q: buf(q),
      v: buf(v),
      e: zeros(B * S),
      t: zeros(S * B * A),
      t32: buf(t32),
      de: buf(de),
      dq: buf(dq0),
      dv: buf(dv0),
    },
    [
      ['additive_score_forward', { buf: 'e' }, { buf: 't' }, { buf: 'k' }, { buf: 'q' }, { buf: 'v' }, S, B, A],
      [
        'additive_score_backward',
        { buf: 't32' },
        { buf: 'dq' },
        { buf: 'dv' },
        { buf: 'de' },
        { buf: 't32' },
        { buf: 'v' },
        S,
        B,
        A,
      ],
    ],
    ['e', 't', 't32', 'dq', 'dv']
  );
  close(g.e, e, TOL, 'additive_score_forward e');
  close(g.t, t, TOL, 'additive_score_forward t');
  close(g.t32, dk, TOL, 'additive_score_backward dk (over t)');
  close(g.dq, dq, TOL, 'additive_score_backward dq');
  close(g.dv, dv, TOL, 'additive_score_backward dv');
});

test('the pointer loss from probabilities: -log p[t], p - onehot, rows with t < 0 give zeros', async () => {
  const R = 9,
    S = 71;
  const p = Float32Array.from({ length: R * S }, (_, i) => ((i * 7919) % 101) / 101 / S);
  p[3 * S + 5] = 0; // a zero probability at a target: the loss is bounded by 1e-12
  const targets = Int32Array.from({ length: R }, (_, r) => (r === 4 ? -1 : r === 3 ? 5 : (r * 13) % S));
  const loss = new Float64Array(R),
    d = new Float64Array(R * S);
  ref.probsXent(loss, d, p, targets, 0.25, R, S);
  const g = await onGpu(
    { p: buf(p), t: buf(targets, 'i32'), loss: zeros(R) },
    [['probs_xent', { buf: 'loss' }, { buf: 'p' }, { buf: 'p' }, { buf: 't' }, 0.25, R, S]],
    ['loss', 'p']
  );
  close(g.loss, loss, TOL, 'probs_xent loss');
  close(g.p, d, TOL, 'probs_xent dlogits (over p)');
  assert.equal(g.loss[4], 0);
  assert.ok(Math.abs(g.loss[3] - -Math.log(1e-12)) < 1e-3);
});
