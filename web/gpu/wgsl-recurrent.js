// WGSL of the recurrent layers' pointwise kernels, additive attention and the pointer loss
// (contracts: cpp/kernels/recurrent.hpp; reference loops: cpp/kernels/recurrent.cpp). Same
// conventions as wgsl.js: the arena as `mem`, 32 parameter words, element offsets; an element
// kernel's index is (x + y * gridX) * 256 + lane. GRU gates z | r | candidate, LSTM i | f | g | o.

const ELEMENT = (grid) => /* wgsl */ `
fn sigm(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let i = (wg.x + wg.y * pu(${grid}u)) * 256u + l.x;
  body(i);
}`;

export const RECURRENT = {
  // y = tanh(x + bias); words: 0 y 1 x 2 bias (0: none) 3 R 4 C 5 gridX
  tanh_bias_forward:
    /* wgsl */ `
fn body(i: u32) {
  let C = pu(4u);
  if (i >= pu(3u) * C) { return; }
  var u = mem[pu(1u) + i];
  if (pu(2u) != 0u) { u = u + mem[pu(2u) + i % C]; }
  mem[pu(0u) + i] = tanh(u);
}` + ELEMENT(5),

  // dx = dy (1 - y^2); words: 0 dx 1 dy 2 y 3 n 4 gridX   (dbias: column_sum of dx)
  tanh_backward:
    /* wgsl */ `
fn body(i: u32) {
  if (i >= pu(3u)) { return; }
  let y = mem[pu(2u) + i];
  mem[pu(0u) + i] = mem[pu(1u) + i] * (1.0 - y * y);
}` + ELEMENT(4),

  // zr[b, j] = sigmoid(xg[b, j] + hg[b, j]) for j < 2C; rh = r h_prev
  // words: 0 zr 1 rh 2 xg 3 hg 4 h_prev 5 B 6 C 7 gridX
  gru_gates_forward:
    /* wgsl */ `
fn body(i: u32) {
  let C = pu(6u);
  if (i >= pu(5u) * 2u * C) { return; }
  let b = i / (2u * C); let j = i % (2u * C);
  let g = sigm(mem[pu(2u) + b * 3u * C + j] + mem[pu(3u) + i]);
  mem[pu(0u) + i] = g;
  if (j >= C) { mem[pu(1u) + b * C + j - C] = g * mem[pu(4u) + b * C + j - C]; }
}` + ELEMENT(7),

  // dxg[b, C + j] = drh h_prev r (1 - r); dh_prev += drh r
  // words: 0 dxg 1 dh_prev 2 drh 3 zr 4 h_prev 5 B 6 C 7 gridX
  gru_gates_backward:
    /* wgsl */ `
fn body(i: u32) {
  let C = pu(6u);
  if (i >= pu(5u) * C) { return; }
  let b = i / C; let j = i % C;
  let r = mem[pu(3u) + b * 2u * C + C + j];
  let g = mem[pu(2u) + i];
  mem[pu(0u) + b * 3u * C + C + j] = g * mem[pu(4u) + i] * r * (1.0 - r);
  mem[pu(1u) + i] = mem[pu(1u) + i] + g * r;
}` + ELEMENT(7),

  // cand = tanh(xg[b, 2C + j] + hc); h = (1 - z) h_prev + z cand
  // words: 0 h 1 cand 2 xg 3 hc 4 zr 5 h_prev 6 B 7 C 8 gridX
  gru_cell_forward:
    /* wgsl */ `
fn body(i: u32) {
  let C = pu(7u);
  if (i >= pu(6u) * C) { return; }
  let b = i / C; let j = i % C;
  let z = mem[pu(4u) + b * 2u * C + j];
  let u = tanh(mem[pu(2u) + b * 3u * C + 2u * C + j] + mem[pu(3u) + i]);
  mem[pu(1u) + i] = u;
  mem[pu(0u) + i] = (1.0 - z) * mem[pu(5u) + i] + z * u;
}` + ELEMENT(8),

  // words: 0 dxg 1 dh_prev 2 dh 3 zr 4 cand 5 h_prev 6 B 7 C 8 gridX
  gru_cell_backward:
    /* wgsl */ `
fn body(i: u32) {
  let C = pu(7u);
  if (i >= pu(6u) * C) { return; }
  let b = i / C; let j = i % C;
  let z = mem[pu(3u) + b * 2u * C + j]; let u = mem[pu(4u) + i]; let g = mem[pu(2u) + i];
  let hp = mem[pu(5u) + i];
  mem[pu(0u) + b * 3u * C + j] = g * (u - hp) * z * (1.0 - z);
  mem[pu(0u) + b * 3u * C + 2u * C + j] = g * z * (1.0 - u * u);
  mem[pu(1u) + i] = g * (1.0 - z);
}` + ELEMENT(8),

  // words: 0 h 1 c 2 act 3 tc 4 pre 5 c_prev 6 B 7 C 8 gridX
  lstm_cell_forward:
    /* wgsl */ `
fn body(i: u32) {
  let C = pu(7u);
  if (i >= pu(6u) * C) { return; }
  let b = i / C; let j = i % C;
  let p = pu(4u) + b * 4u * C; let a = pu(2u) + b * 4u * C;
  let ig = sigm(mem[p + j]); let fg = sigm(mem[p + C + j]);
  let gg = tanh(mem[p + 2u * C + j]); let og = sigm(mem[p + 3u * C + j]);
  mem[a + j] = ig; mem[a + C + j] = fg; mem[a + 2u * C + j] = gg; mem[a + 3u * C + j] = og;
  let c = fg * mem[pu(5u) + i] + ig * gg;
  let tc = tanh(c);
  mem[pu(1u) + i] = c;
  mem[pu(3u) + i] = tc;
  mem[pu(0u) + i] = og * tc;
}` + ELEMENT(8),

  // words: 0 dpre 1 dc_prev 2 dh 3 dc (0: none) 4 act 5 c_prev 6 tc 7 B 8 C 9 gridX
  lstm_cell_backward:
    /* wgsl */ `
fn body(i: u32) {
  let C = pu(8u);
  if (i >= pu(7u) * C) { return; }
  let b = i / C; let j = i % C;
  let a = pu(4u) + b * 4u * C; let d = pu(0u) + b * 4u * C;
  let ig = mem[a + j]; let fg = mem[a + C + j]; let gg = mem[a + 2u * C + j]; let og = mem[a + 3u * C + j];
  let tc = mem[pu(6u) + i]; let dh = mem[pu(2u) + i];
  var dct = dh * og * (1.0 - tc * tc);
  if (pu(3u) != 0u) { dct = mem[pu(3u) + i] + dct; }
  mem[d + j] = dct * gg * ig * (1.0 - ig);
  mem[d + C + j] = dct * mem[pu(5u) + i] * fg * (1.0 - fg);
  mem[d + 2u * C + j] = dct * ig * (1.0 - gg * gg);
  mem[d + 3u * C + j] = dh * tc * og * (1.0 - og);
  mem[pu(1u) + i] = dct * fg;
}` + ELEMENT(9),

  // A workgroup per (s, b): t = tanh(k + q) saved, e[b, s] = v . t
  // words: 0 e 1 t 2 k 3 q 4 v 5 S 6 B 7 A 8 gridX
  additive_score_forward: /* wgsl */ `
const WG: u32 = 64u;
var<workgroup> s: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let S = pu(5u); let B = pu(6u); let A = pu(7u);
  let row = wg.x + wg.y * pu(8u);  // = s * B + b
  if (row >= S * B) { return; }
  let si = row / B; let b = row % B; let o = row * A;
  var sum = 0.0;
  for (var a = l.x; a < A; a = a + WG) {
    let u = tanh(mem[pu(2u) + o + a] + mem[pu(3u) + b * A + a]);
    mem[pu(1u) + o + a] = u;
    sum = sum + mem[pu(4u) + a] * u;
  }
  s[l.x] = sum;
  workgroupBarrier();
  for (var k = 32u; k > 0u; k = k >> 1u) {
    if (l.x < k) { s[l.x] = s[l.x] + s[l.x + k]; }
    workgroupBarrier();
  }
  if (l.x == 0u) { mem[pu(0u) + b * S + si] = s[0]; }
}`,

  // dv[a] += sum over s, b of de[b, s] t[s, b, a] (a thread per a, in the CPU's order)
  // words: 0 dv 1 de 2 t 3 S 4 B 5 A
  additive_score_dv: /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let S = pu(3u); let B = pu(4u); let A = pu(5u); let a = g.x;
  if (a >= A) { return; }
  var acc = mem[pu(0u) + a];
  for (var si = 0u; si < S; si = si + 1u) {
    for (var b = 0u; b < B; b = b + 1u) {
      acc = acc + mem[pu(1u) + b * S + si] * mem[pu(2u) + (si * B + b) * A + a];
    }
  }
  mem[pu(0u) + a] = acc;
}`,

  // dk[s, b, a] = de[b, s] v[a] (1 - t^2) (dk may alias t); words: 0 dk 1 de 2 t 3 v 4 S 5 B 6 A 7 gridX
  additive_score_dk:
    /* wgsl */ `
fn body(i: u32) {
  let S = pu(4u); let B = pu(5u); let A = pu(6u);
  if (i >= S * B * A) { return; }
  let row = i / A; let a = i % A; let si = row / B; let b = row % B;
  let u = mem[pu(2u) + i];
  mem[pu(0u) + i] = mem[pu(1u) + b * S + si] * mem[pu(3u) + a] * (1.0 - u * u);
}` + ELEMENT(7),

  // dq[b, a] += sum_s dk[s, b, a]; words: 0 dq 1 dk 2 S 3 B 4 A 5 gridX
  additive_score_dq:
    /* wgsl */ `
fn body(i: u32) {
  let S = pu(2u); let B = pu(3u); let A = pu(4u);
  if (i >= B * A) { return; }
  var acc = 0.0;
  for (var si = 0u; si < S; si = si + 1u) { acc = acc + mem[pu(1u) + si * B * A + i]; }
  mem[pu(0u) + i] = mem[pu(0u) + i] + acc;
}` + ELEMENT(5),

  // A workgroup per row: loss = -log max(p[t], 1e-12), d = scale (p - onehot(t)); t < 0: zeros.
  // words: 0 loss 1 dlogits 2 p 3 targets 4 scale 5 R 6 S 7 gridX
  probs_xent: /* wgsl */ `
var<workgroup> tv: i32;
var<workgroup> pt: f32;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let S = pu(6u);
  let r = wg.x + wg.y * pu(7u);
  if (r >= pu(5u)) { return; }
  if (l.x == 0u) {
    tv = ids(pu(3u) + r);
    if (tv >= 0) { pt = mem[pu(2u) + r * S + u32(tv)]; }
  }
  let t = workgroupUniformLoad(&tv);  // also orders the read of p[t] before the writes below
  for (var j = l.x; j < S; j = j + 64u) {
    var d = 0.0;
    if (t >= 0) { d = pf(4u) * (mem[pu(2u) + r * S + j] - select(0.0, 1.0, i32(j) == t)); }
    mem[pu(1u) + r * S + j] = d;
  }
  if (l.x == 0u) { mem[pu(0u) + r] = select(0.0, -log(max(pt, 1e-12)), t >= 0); }
}`,
};
