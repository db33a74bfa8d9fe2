// WGSL of the WebGPU kernel table (web/gpu/table.js). Every kernel binds the arena whole as
// `mem` (binding 0) and its parameters as 64 words (binding 1, a slot of the uniform ring):
// element offsets into mem, sizes, and floats by bitcast. Contracts: cpp/kernels/kernels.hpp;
// the reference loops they are tested against: cpp/kernels/reference.cpp.
// Rows are spread over a 2-D grid (x up to 65,535 workgroups, row = x + y * gridX). The
// recurrent layers' kernels are in wgsl-recurrent.js.
// Long because: the WGSL of every kernel of the table beside its prelude, so a kernel and the
// bindings it assumes are read together (the recurrent kernels are apart in wgsl-recurrent.js).
import { RECURRENT } from './wgsl-recurrent.js';

const PRELUDE = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> mem: array<f32>;
struct Params { w: array<vec4<u32>, 16> }
@group(0) @binding(1) var<uniform> P: Params;
fn pu(i: u32) -> u32 { return P.w[i / 4u][i % 4u]; }
fn pf(i: u32) -> f32 { return bitcast<f32>(pu(i)); }
fn pi(i: u32) -> i32 { return bitcast<i32>(pu(i)); }
fn ids(at: u32) -> i32 { return bitcast<i32>(mem[at]); }
// byte k of the arena (uint8 masks)
fn byte_at(k: u32) -> u32 { return (bitcast<u32>(mem[k / 4u]) >> (8u * (k % 4u))) & 255u; }
`;

// Row reductions: a workgroup of 64 per row; red() leaves the sum (or max) in s[0] for all.
const ROWS = /* wgsl */ `
const WG: u32 = 64u;
var<workgroup> s: array<f32, 64>;
fn red_sum(v: f32, t: u32) -> f32 {
  s[t] = v;
  workgroupBarrier();
  for (var k = 32u; k > 0u; k = k >> 1u) {
    if (t < k) { s[t] = s[t] + s[t + k]; }
    workgroupBarrier();
  }
  let r = s[0];
  workgroupBarrier();
  return r;
}
fn red_max(v: f32, t: u32) -> f32 {
  s[t] = v;
  workgroupBarrier();
  for (var k = 32u; k > 0u; k = k >> 1u) {
    if (t < k) { s[t] = max(s[t], s[t + k]); }
    workgroupBarrier();
  }
  let r = s[0];
  workgroupBarrier();
  return r;
}
`;

const NEG_INF = '-3.4028234663852886e38';

// The words of every GEMM kernel, per problem from its base word b (0, or 32 for the second
// problem of a pair): b+0 M 1 N 2 K 3 lda 4 ldb 5 ldc 6 A 7 B 8 C 9 inner stride of A 10 of B
// 11 of C 12 tA 13 tB 14 alpha 15 beta 16 inner (matrices of the grid's inner index) 17 outer
// stride of A 18 of B 19 of C; the epilogue's: 20 bias 21 act 22 pre 23 mask 24 dact 25 rowsum
// (addresses; 0: none); 26 matrices (outer × inner; 0 for the second problem: there is none);
// 27-31 the epilogue's dropout (HASH). Matrix z of the grid is (z / inner, z % inner). The
// dispatch is a 2-D grid of workgroups (workgroup x + 65535 y: table.js grid()), the first
// problem's tiles (column tile fastest, then row tile, then matrix), then the second's: two
// independent products (a layer's dx and dW) are one dispatch.
const GEMM_WORDS = /* wgsl */ `
fn operand(b: u32, base: u32, outer: u32, inner: u32, z: u32) -> u32 {
  return pu(b + base) + (z / pu(b + 16u)) * pu(b + outer) + (z % pu(b + 16u)) * pu(b + inner);
}
fn gemm_tiles(b: u32, tile: u32) -> u32 {
  return ((pu(b + 1u) + tile - 1u) / tile) * ((pu(b) + tile - 1u) / tile) * pu(b + 26u);
}
// The problem (its base word) and tile (column tile, row tile, matrix) of workgroup wg; a
// workgroup past the last tile gets base word 1 (none: it returns).
fn gemm_tile(wg: vec3<u32>, tile: u32) -> vec4<u32> {
  var t = wg.x + wg.y * 65535u;
  var b = 0u;
  let n0 = gemm_tiles(0u, tile);
  if (t >= n0) {
    t = t - n0;
    b = 32u;
    if (t >= gemm_tiles(32u, tile)) { return vec4<u32>(1u, 0u, 0u, 0u); }
  }
  let gx = (pu(b + 1u) + tile - 1u) / tile; let gy = (pu(b) + tile - 1u) / tile;
  return vec4<u32>(b, t % gx, (t / gx) % gy, t / (gx * gy));
}
`;

// The GEMM epilogue (kernels.hpp GemmEpilogue) on element (i, j) of matrix C of the problem at
// base word b, acc its product.
const EPILOGUE = /* wgsl */ `
const GK: f32 = 0.7978845608028654;
fn gelu(z: f32) -> f32 { return 0.5 * z * (1.0 + tanh(GK * (z + 0.044715 * z * z * z))); }
fn gelu_grad(x: f32) -> f32 {
  let t = tanh(GK * (x + 0.044715 * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GK * (1.0 + 3.0 * 0.044715 * x * x);
}
fn epilogue(b: u32, C: u32, i: u32, j: u32, acc: f32) {
  let e = i * pu(b + 5u) + j;
  let at = C + e;
  var v = pf(b + 14u) * acc;
  if (pf(b + 15u) != 0.0) { v = v + pf(b + 15u) * mem[at]; }
  if (pu(b + 20u) != 0u) { v = v + mem[pu(b + 20u) + j]; }
  if (pu(b + 22u) != 0u) { mem[pu(b + 22u) + e] = v; }
  let act = pu(b + 21u);
  if (pu(b + 24u) != 0u) {  // backward: the mask, then act'(dact)
    if (pu(b + 23u) != 0u) { v = v * mem[pu(b + 23u) + e]; }
    let z = mem[pu(b + 24u) + e];
    if (act == 1u && !(z > 0.0)) { v = 0.0; }
    if (act == 2u) { v = v * gelu_grad(z); }
  } else {  // forward: act, then the mask, then the dropout
    if (act == 1u) { v = max(v, 0.0); }
    if (act == 2u) { v = gelu(v); }
    if (pu(b + 23u) != 0u) { v = v * mem[pu(b + 23u) + e]; }
    if (pu(b + 27u) != 0u) { v = v * drop_mask(b + 27u, e); }
  }
  mem[at] = v;
}
`;

// kernels/counter_hash.hpp's bits with 64-bit words as (lo, hi) pairs, and the inverted dropout
// of a fused kernel (kernels.hpp DropoutArgs) from the five words at w: mask address (0: none),
// threshold, keep (1/(1-p)), seed lo, seed hi. drop_mask(w, i): element i's mask value, written
// to the mask (1 when there is no dropout).
const HASH = /* wgsl */ `
fn mul32(a: u32, b: u32) -> vec2<u32> {  // the full 64-bit product of two 32-bit words
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0; let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  let lo = (p00 & 0xffffu) | (mid << 16u);
  let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
  return vec2<u32>(lo, hi);
}
fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let p = mul32(a.x, b.x);
  return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}
fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn xshr(z: vec2<u32>, s: u32) -> vec2<u32> {  // z ^ (z >> s), 0 < s < 32
  return vec2<u32>(z.x ^ ((z.x >> s) | (z.y << (32u - s))), z.y ^ (z.y >> s));
}
fn mix64(z0: vec2<u32>) -> vec2<u32> {
  var z = mul64(xshr(z0, 30u), vec2<u32>(0x1CE4E5B9u, 0xBF58476Du));
  z = mul64(xshr(z, 27u), vec2<u32>(0x133111EBu, 0x94D049BBu));
  return xshr(z, 31u);
}
fn hash_bits(seed: vec2<u32>, i: u32) -> u32 {  // bits32(seed, i), offset 0
  let golden = vec2<u32>(0x7F4A7C15u, 0x9E3779B9u);
  let k = add64(vec2<u32>(i, 0u), vec2<u32>(1u, 0u));
  return mix64(add64(mix64(seed), mul64(k, golden))).y;
}
fn drop_mask(w: u32, i: u32) -> f32 {
  if (pu(w) == 0u) { return 1.0; }
  let m = select(pf(w + 2u), 0.0, hash_bits(vec2<u32>(pu(w + 3u), pu(w + 4u)), i) < pu(w + 1u));
  mem[pu(w) + i] = m;
  return m;
}
`;

// Split-K (table.js gemmRun, splitK): a product with few output tiles and a long K is computed
// in two dispatches. Stage 1 is a GEMM kernel below built with `split`: the one problem's words
// 0-31, then 32 slices, 33 slice length (k, a multiple of the tiled kernel's k step), 34 the
// workspace (floats), 35 the row sums' workspace (0: none); workgroup t computes tile t % tiles
// over the k of slice t / tiles and writes its raw sums, slice s of matrix z at workspace +
// ((s * matrices + z) * M + i) * N + j (and the row sums of op(A) over that k, from the first
// column tile, at row-sum workspace + (s * matrices + z) * M + i). Stage 2 (gemm_split_sum) sums
// the slices of each element in ascending order and applies the epilogue.
const SPLIT = /* wgsl */ `
const NO_TILE: u32 = 0xffffffffu;
// The tile (slice, column tile, row tile, matrix) of workgroup wg; past the last, slice NO_TILE.
fn split_tile(wg: vec3<u32>, tile: u32) -> vec4<u32> {
  let t = wg.x + wg.y * 65535u;
  let n = gemm_tiles(0u, tile);
  if (t >= n * pu(32u)) { return vec4<u32>(NO_TILE, 0u, 0u, 0u); }
  let r = t % n;
  let gx = (pu(1u) + tile - 1u) / tile; let gy = (pu(0u) + tile - 1u) / tile;
  return vec4<u32>(t / n, r % gx, (r / gx) % gy, r / (gx * gy));
}
fn split_at(s: u32, z: u32, i: u32) -> u32 { return (s * pu(26u) + z) * pu(0u) + i; }
`;

// The parts of a GEMM kernel's main() that split-K changes: the tile of the workgroup (and the
// slice's k range [kb, ke)), and what is done with an output's sum and its row's sums.
const gemmParts = (split, tile) =>
  split
    ? {
        tile: `let st = split_tile(wid, ${tile});
  if (st.x == NO_TILE) { return; }
  let tl = vec4<u32>(0u, st.yzw);
  let b = 0u;`,
        range: `let kb = st.x * pu(33u); let ke = min(K, kb + pu(33u));`,
        rows: `mem[pu(35u) + split_at(st.x, tl.w, i0 + r)] = rs[r];`,
        out: `mem[pu(34u) + split_at(st.x, tl.w, i0 + r) * N + j0 + c] = acc[r][c];`,
      }
    : {
        tile: `let tl = gemm_tile(wid, ${tile});
  let b = tl.x;
  if (b == 1u) { return; }`,
        range: `let kb = 0u; let ke = K;`,
        rows: `let at = pu(b + 25u) + i0 + r; mem[at] = mem[at] + rs[r];`,
        out: `epilogue(b, C, i0 + r, j0 + c, acc[r][c]);`,
      };

// C = alpha op(A) op(B) + beta C over a grid of matrices (GEMM_WORDS: one or two problems), then the
// fused epilogue (EPILOGUE). Each invocation computes a 4×4 block of C in registers (a
// workgroup of 8×8 invocations: a 32×32 tile), reading A and B straight from the arena: no
// workgroup memory and no barriers, which keeps it fast on software Vulkan (SwiftShader) too.
// With `split`: split-K's stage 1 (SPLIT).
const gemmRegister = (split) => {
  const p = gemmParts(split, '32u');
  return (
    GEMM_WORDS +
    (split ? SPLIT : HASH + EPILOGUE) +
    /* wgsl */ `
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  ${p.tile}
  let M = pu(b); let N = pu(b + 1u); let K = pu(b + 2u);
  let lda = pu(b + 3u); let ldb = pu(b + 4u);
  let A = operand(b, 6u, 17u, 9u, tl.w); let B = operand(b, 7u, 18u, 10u, tl.w);
  let ta = pu(b + 12u) != 0u; let tb = pu(b + 13u) != 0u;
  let i0 = (tl.z * 8u + l.y) * 4u; let j0 = (tl.y * 8u + l.x) * 4u;
  if (i0 >= M || j0 >= N) { return; }
  ${p.range}
  // op(A)[i, k] = A[i*lda + k] (or A[k*lda + i]); rows past M and columns past N read row/column
  // i0 or j0 again (their sums are never stored)
  var ai: array<u32, 4>; var bj: array<u32, 4>;
  for (var r = 0u; r < 4u; r = r + 1u) {
    let i = select(i0, i0 + r, i0 + r < M);
    let j = select(j0, j0 + r, j0 + r < N);
    ai[r] = A + select(i * lda, i, ta);
    bj[r] = B + select(j, j * ldb, tb);
  }
  let astep = select(1u, lda, ta); let bstep = select(ldb, 1u, tb);
  // the row sums of op(A) (a bias gradient), by the invocations of the first block column
  let sums = pu(b + 25u) != 0u && j0 == 0u;
  var rs = vec4<f32>(0.0);
  var acc: array<vec4<f32>, 4>;
  for (var k = kb; k < ke; k = k + 1u) {
    let av = vec4<f32>(mem[ai[0] + k * astep], mem[ai[1] + k * astep], mem[ai[2] + k * astep], mem[ai[3] + k * astep]);
    let bv = vec4<f32>(mem[bj[0] + k * bstep], mem[bj[1] + k * bstep], mem[bj[2] + k * bstep], mem[bj[3] + k * bstep]);
    acc[0] = fma(vec4<f32>(av.x), bv, acc[0]);
    acc[1] = fma(vec4<f32>(av.y), bv, acc[1]);
    acc[2] = fma(vec4<f32>(av.z), bv, acc[2]);
    acc[3] = fma(vec4<f32>(av.w), bv, acc[3]);
    if (sums) { rs = rs + av; }
  }
  let C = operand(b, 8u, 19u, 11u, tl.w);
  for (var r = 0u; r < 4u; r = r + 1u) {
    if (i0 + r >= M) { break; }
    if (sums) { ${p.rows} }
    for (var c = 0u; c < 4u; c = c + 1u) {
      if (j0 + c >= N) { break; }
      ${p.out}
    }
  }
}`
  );
};

// The same GEMM (words, problems and tiles, epilogue) for GPUs: a workgroup of 16×16 invocations
// computes a 64×64 tile of C, 4×4 outputs each, staging op(A) and op(B) through workgroup
// memory 16 k at a time (each invocation loads 4 of the 1024 values of each tile, consecutive
// invocations consecutive addresses whatever the transpose). Every output sums its k in
// ascending order with fma, as the register kernel: the two give the same bits. With `split`:
// split-K's stage 1 (SPLIT; a slice's k range starts at a multiple of TK).
const gemmTiled = (split) => {
  const p = gemmParts(split, 'TM');
  return (
    GEMM_WORDS +
    (split ? SPLIT : HASH + EPILOGUE) +
    /* wgsl */ `
const TM: u32 = 64u;
const TK: u32 = 16u;
var<workgroup> As: array<f32, 1024>;  // [k][i] of op(A)'s tile
var<workgroup> Bs: array<f32, 1024>;  // [k][j] of op(B)'s tile
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  ${p.tile}
  let M = pu(b); let N = pu(b + 1u); let K = pu(b + 2u);
  let lda = pu(b + 3u); let ldb = pu(b + 4u);
  let A = operand(b, 6u, 17u, 9u, tl.w); let B = operand(b, 7u, 18u, 10u, tl.w);
  let ta = pu(b + 12u) != 0u; let tb = pu(b + 13u) != 0u;
  let ti = tl.z * TM; let tj = tl.y * TM;
  let lid = l.y * 16u + l.x;
  let sums = pu(b + 25u) != 0u && tl.y == 0u && l.x == 0u;
  ${p.range}
  var rs = vec4<f32>(0.0);
  var acc: array<vec4<f32>, 4>;
  for (var k0 = kb; k0 < ke; k0 = k0 + TK) {
    for (var q = 0u; q < 4u; q = q + 1u) {
      let e = lid + q * 256u;
      // op(A)[i, k]: k fastest when A is row-major in k (not transposed), else i fastest
      var ai = e / TK; var ak = e % TK;
      if (ta) { ai = e % TM; ak = e / TM; }
      var av = 0.0;
      if (ti + ai < M && k0 + ak < ke) {
        av = mem[A + select((ti + ai) * lda + k0 + ak, (k0 + ak) * lda + ti + ai, ta)];
      }
      As[ak * TM + ai] = av;
      var bj = e % TM; var bk = e / TM;
      if (tb) { bj = e / TK; bk = e % TK; }
      var bv = 0.0;
      if (tj + bj < N && k0 + bk < ke) {
        bv = mem[B + select((k0 + bk) * ldb + tj + bj, (tj + bj) * ldb + k0 + bk, tb)];
      }
      Bs[bk * TM + bj] = bv;
    }
    workgroupBarrier();
    let kn = min(TK, ke - k0);
    for (var k = 0u; k < kn; k = k + 1u) {
      let a = vec4<f32>(As[k * TM + l.y * 4u], As[k * TM + l.y * 4u + 1u], As[k * TM + l.y * 4u + 2u], As[k * TM + l.y * 4u + 3u]);
      let b = vec4<f32>(Bs[k * TM + l.x * 4u], Bs[k * TM + l.x * 4u + 1u], Bs[k * TM + l.x * 4u + 2u], Bs[k * TM + l.x * 4u + 3u]);
      acc[0] = fma(vec4<f32>(a.x), b, acc[0]);
      acc[1] = fma(vec4<f32>(a.y), b, acc[1]);
      acc[2] = fma(vec4<f32>(a.z), b, acc[2]);
      acc[3] = fma(vec4<f32>(a.w), b, acc[3]);
      if (sums) { rs = rs + a; }
    }
    workgroupBarrier();
  }
  let C = operand(b, 8u, 19u, 11u, tl.w);
  let i0 = ti + l.y * 4u; let j0 = tj + l.x * 4u;
  for (var r = 0u; r < 4u; r = r + 1u) {
    if (i0 + r >= M) { break; }
    if (sums) { ${p.rows} }
    for (var c = 0u; c < 4u; c = c + 1u) {
      if (j0 + c >= N) { break; }
      ${p.out}
    }
  }
}`
  );
};

export const KERNELS = {
  gemm: gemmRegister(false),
  gemm_tiled: gemmTiled(false),
  // split-K's stage 1 (SPLIT) in either kernel
  gemm_split: gemmRegister(true),
  gemm_tiled_split: gemmTiled(true),
  // split-K's stage 2: one invocation per element of C (a workgroup of 256; 36 gridX), its
  // slices summed in ascending order (the same bits every run), then the epilogue as the unsplit
  // kernels apply it; the row sums, by the invocations of column 0 of the first matrix: every
  // matrix's slices, in order, added once
  gemm_split_sum:
    GEMM_WORDS +
    SPLIT +
    HASH +
    EPILOGUE +
    /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let M = pu(0u); let N = pu(1u); let Z = pu(26u); let S = pu(32u);
  let e = (wid.x + wid.y * pu(36u)) * 256u + l.x;
  if (e >= M * N * Z) { return; }
  let j = e % N; let i = (e / N) % M; let z = e / (M * N);
  var acc = 0.0;
  for (var s = 0u; s < S; s = s + 1u) { acc = acc + mem[pu(34u) + split_at(s, z, i) * N + j]; }
  if (pu(25u) != 0u && j == 0u && z == 0u) {
    var rs = 0.0;
    for (var y = 0u; y < Z; y = y + 1u) {
      for (var s = 0u; s < S; s = s + 1u) { rs = rs + mem[pu(35u) + split_at(s, y, i)]; }
    }
    let at = pu(25u) + i;
    mem[at] = mem[at] + rs;
  }
  epilogue(0u, operand(0u, 8u, 19u, 11u, z), i, j, acc);
}`,

  // words: 0 y 1 x 2 scale 3 key_pad byte address (0: none) 4 causal 5 B 6 H 7 T 8 S 9 gridX
  // 10 yd (0: none): y under the dropout of words 11-15 (HASH, over the rows' elements)
  softmax_forward:
    ROWS +
    HASH +
    /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let H = pu(6u); let T = pu(7u); let S = pu(8u);
  let r = wg.x + wg.y * pu(9u);
  if (r >= pu(5u) * H * T) { return; }
  let b = r / (H * T); let i = r % T;
  let x = pu(1u) + r * S; let y = pu(0u) + r * S;
  let scale = pf(2u); let pad = pu(3u); let causal = pu(4u) != 0u;
  let t = l.x;
  var mx = ${NEG_INF};
  var any = 0.0;
  for (var j = t; j < S; j = j + WG) {
    let masked = (pad != 0u && byte_at(pad + b * S + j) != 0u) || (causal && j > i + (S - T));
    if (!masked) { mx = max(mx, mem[x + j] * scale); any = 1.0; }
  }
  mx = red_max(mx, t);
  any = red_max(any, t);
  var sum = 0.0;
  for (var j = t; j < S; j = j + WG) {
    let masked = (pad != 0u && byte_at(pad + b * S + j) != 0u) || (causal && j > i + (S - T));
    if (!masked) { sum = sum + exp(mem[x + j] * scale - mx); }
  }
  sum = red_sum(sum, t);
  for (var j = t; j < S; j = j + WG) {
    let masked = (pad != 0u && byte_at(pad + b * S + j) != 0u) || (causal && j > i + (S - T));
    var v = 0.0;
    if (!masked && any > 0.0) { v = exp(mem[x + j] * scale - mx) / sum; }
    mem[y + j] = v;
    if (pu(10u) != 0u) { mem[pu(10u) + r * S + j] = v * drop_mask(11u, r * S + j); }
  }
}`,

  // dx = scale y (g - sum g y), g = dy (times mask where word 7 is not 0: a dropout's backward);
  // words: 0 dx 1 y 2 dy 3 scale 4 R 5 S 6 gridX 7 mask
  softmax_backward:
    ROWS +
    /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let S = pu(5u);
  let r = wg.x + wg.y * pu(6u);
  if (r >= pu(4u)) { return; }
  let o = r * S; let dx = pu(0u) + o; let y = pu(1u) + o; let dy = pu(2u) + o;
  let mask = pu(7u);
  var d = 0.0;
  for (var j = l.x; j < S; j = j + WG) {
    var g = mem[dy + j];
    if (mask != 0u) { g = g * mem[mask + o + j]; }
    d = d + g * mem[y + j];
  }
  d = red_sum(d, l.x);
  for (var j = l.x; j < S; j = j + WG) {
    var g = mem[dy + j];
    if (mask != 0u) { g = g * mem[mask + o + j]; }
    mem[dx + j] = pf(3u) * mem[y + j] * (g - d);
  }
}`,

  // words: 0 y 1 mean 2 rstd 3 x 4 gamma 5 beta 6 eps 7 R 8 C 9 gridX
  layernorm_forward:
    ROWS +
    /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let C = pu(8u);
  let r = wg.x + wg.y * pu(9u);
  if (r >= pu(7u)) { return; }
  let x = pu(3u) + r * C; let y = pu(0u) + r * C;
  var m = 0.0;
  for (var c = l.x; c < C; c = c + WG) { m = m + mem[x + c]; }
  m = red_sum(m, l.x) / f32(C);
  var v = 0.0;
  for (var c = l.x; c < C; c = c + WG) { let d = mem[x + c] - m; v = v + d * d; }
  v = red_sum(v, l.x) / f32(C);
  let rs = inverseSqrt(v + pf(6u));
  for (var c = l.x; c < C; c = c + WG) {
    mem[y + c] = (mem[x + c] - m) * rs * mem[pu(4u) + c] + mem[pu(5u) + c];
  }
  if (l.x == 0u) { mem[pu(1u) + r] = m; mem[pu(2u) + r] = rs; }
}`,

  // s = x + drop(r), y = LN(s) (r 0: y = LN(x), s not written, no dropout), a workgroup per row;
  // words: 0 y 1 s 2 mean 3 rstd 4 x 5 r 6 gamma 7 beta 8 eps 9 R 10 C 11 gridX 12-16 the
  // dropout on r (HASH: mask 0, none). Each invocation reads back the sums it wrote to s.
  add_layernorm_forward:
    ROWS +
    HASH +
    /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let C = pu(10u);
  let row = wg.x + wg.y * pu(11u);
  if (row >= pu(9u)) { return; }
  let o = row * C; let x = pu(4u) + o; let y = pu(0u) + o;
  let r = select(0u, pu(5u) + o, pu(5u) != 0u);
  let src = select(x, pu(1u) + o, r != 0u);  // the values normed: s, or x without r
  var m = 0.0;
  for (var c = l.x; c < C; c = c + WG) {
    var v = mem[x + c];
    if (r != 0u) {
      v = v + mem[r + c] * drop_mask(12u, o + c);
      mem[src + c] = v;
    }
    m = m + v;
  }
  m = red_sum(m, l.x) / f32(C);
  var v = 0.0;
  for (var c = l.x; c < C; c = c + WG) { let d = mem[src + c] - m; v = v + d * d; }
  v = red_sum(v, l.x) / f32(C);
  let rs = inverseSqrt(v + pf(8u));
  for (var c = l.x; c < C; c = c + WG) {
    mem[y + c] = (mem[src + c] - m) * rs * mem[pu(6u) + c] + mem[pu(7u) + c];
  }
  if (l.x == 0u) { mem[pu(2u) + row] = m; mem[pu(3u) + row] = rs; }
}`,

  // Layer norm backward in one dispatch: workgroups [0, R) one row each, dx = (acc ? dx : 0) +
  // (add ? add : 0) + LN'(dy) (and copy = the same); the workgroups after them dgamma, dbeta
  // += over rows, 8 columns each, the rows split over 8 lanes and the lanes' sums added in
  // workgroup memory. dx and copy must not alias dy (both halves read it). words: 0 dx 1 copy
  // 2 dgamma 3 dbeta 4 dy 5 add 6 x 7 mean 8 rstd 9 gamma 10 acc 11 R 12 C 13 gridX 14 copy's
  // mask (0: none; copy = the values times it, a dropout's backward)
  layernorm_backward_fused:
    ROWS +
    /* wgsl */ `
var<workgroup> pg: array<f32, 64>;
var<workgroup> pb: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let R = pu(11u); let C = pu(12u);
  let g = wg.x + wg.y * pu(13u);
  let dyb = pu(4u); let xb = pu(6u); let mean = pu(7u); let rstd = pu(8u); let gamma = pu(9u);
  if (g < R) {
    let o = g * C; let dy = dyb + o; let x = xb + o;
    let m = mem[mean + g]; let rs = mem[rstd + g];
    var s1 = 0.0; var s2 = 0.0;
    for (var c = l.x; c < C; c = c + WG) {
      let gg = mem[dy + c] * mem[gamma + c];
      s1 = s1 + gg;
      s2 = s2 + gg * (mem[x + c] - m) * rs;
    }
    s1 = red_sum(s1, l.x) / f32(C);
    s2 = red_sum(s2, l.x) / f32(C);
    let dx = pu(0u) + o; let add = pu(5u); let cp = pu(1u); let acc = pu(10u) != 0u;
    for (var c = l.x; c < C; c = c + WG) {
      let xhat = (mem[x + c] - m) * rs;
      let d = rs * (mem[dy + c] * mem[gamma + c] - s1 - xhat * s2);
      var v = 0.0;
      if (acc) { v = mem[dx + c]; }
      if (add != 0u) { v = v + mem[add + o + c]; }
      v = v + d;
      mem[dx + c] = v;
      if (cp != 0u) {
        var w = v;
        if (pu(14u) != 0u) { w = w * mem[pu(14u) + o + c]; }
        mem[cp + o + c] = w;
      }
    }
    return;
  }
  let col = (g - R) * 8u + l.x % 8u; let lane = l.x / 8u;
  var dg = 0.0; var db = 0.0;
  if (col < C) {
    for (var r = lane; r < R; r = r + 8u) {
      let dy = mem[dyb + r * C + col];
      dg = dg + dy * (mem[xb + r * C + col] - mem[mean + r]) * mem[rstd + r];
      db = db + dy;
    }
  }
  pg[l.x] = dg; pb[l.x] = db;
  workgroupBarrier();
  for (var k = 32u; k >= 8u; k = k >> 1u) {
    if (l.x < k) { pg[l.x] = pg[l.x] + pg[l.x + k]; pb[l.x] = pb[l.x] + pb[l.x + k]; }
    workgroupBarrier();
  }
  if (lane == 0u && col < C) {
    mem[pu(2u) + col] = mem[pu(2u) + col] + pg[l.x];
    mem[pu(3u) + col] = mem[pu(3u) + col] + pb[l.x];
  }
}`,

  // dx per row; words: 0 dx 1 dy 2 x 3 mean 4 rstd 5 gamma 6 R 7 C 8 gridX
  layernorm_backward_dx:
    ROWS +
    /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let C = pu(7u);
  let r = wg.x + wg.y * pu(8u);
  if (r >= pu(6u)) { return; }
  let o = r * C; let dy = pu(1u) + o; let x = pu(2u) + o; let gamma = pu(5u);
  let m = mem[pu(3u) + r]; let rs = mem[pu(4u) + r];
  var s1 = 0.0; var s2 = 0.0;
  for (var c = l.x; c < C; c = c + WG) {
    let g = mem[dy + c] * mem[gamma + c];
    s1 = s1 + g;
    s2 = s2 + g * (mem[x + c] - m) * rs;
  }
  s1 = red_sum(s1, l.x) / f32(C);
  s2 = red_sum(s2, l.x) / f32(C);
  for (var c = l.x; c < C; c = c + WG) {
    let xhat = (mem[x + c] - m) * rs;
    mem[pu(0u) + o + c] = rs * (mem[dy + c] * mem[gamma + c] - s1 - xhat * s2);
  }
}`,

  // dgamma[c] += sum_r dy xhat, dbeta[c] += sum_r dy (a thread per column, rows in order);
  // words: 0 dgamma 1 dbeta 2 dy 3 x 4 mean 5 rstd 6 R 7 C
  layernorm_backward_params: /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let C = pu(7u); let c = g.x;
  if (c >= C) { return; }
  var dg = 0.0; var db = 0.0;
  for (var r = 0u; r < pu(6u); r = r + 1u) {
    let dy = mem[pu(2u) + r * C + c];
    dg = dg + dy * (mem[pu(3u) + r * C + c] - mem[pu(4u) + r]) * mem[pu(5u) + r];
    db = db + dy;
  }
  mem[pu(0u) + c] = mem[pu(0u) + c] + dg;
  mem[pu(1u) + c] = mem[pu(1u) + c] + db;
}`,

  // words: 0 y 1 pre (0: none) 2 x 3 bias (0: none) 4 act 5 R 6 C 7 gridX (in 256s)
  bias_act_forward: /* wgsl */ `
const K: f32 = 0.7978845608028654;
fn gelu(z: f32) -> f32 { return 0.5 * z * (1.0 + tanh(K * (z + 0.044715 * z * z * z))); }
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let n = pu(5u) * pu(6u);
  let i = (wg.x + wg.y * pu(7u)) * 256u + l.x;
  if (i >= n) { return; }
  var z = mem[pu(2u) + i];
  if (pu(3u) != 0u) { z = z + mem[pu(3u) + i % pu(6u)]; }
  if (pu(1u) != 0u) { mem[pu(1u) + i] = z; }
  let act = pu(4u);
  var y = z;
  if (act == 1u) { y = max(z, 0.0); }
  if (act == 2u) { y = gelu(z); }
  mem[pu(0u) + i] = y;
}`,

  // dx = dy act'(pre); words: 0 dx 1 dy 2 pre 3 act 4 R 5 C 6 gridX (in 256s)
  bias_act_backward_dx: /* wgsl */ `
const K: f32 = 0.7978845608028654;
fn gelu_grad(x: f32) -> f32 {
  let t = tanh(K * (x + 0.044715 * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * K * (1.0 + 3.0 * 0.044715 * x * x);
}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let i = (wg.x + wg.y * pu(6u)) * 256u + l.x;
  if (i >= pu(4u) * pu(5u)) { return; }
  var d = mem[pu(1u) + i];
  let act = pu(3u);
  if (act == 1u && !(mem[pu(2u) + i] > 0.0)) { d = 0.0; }
  if (act == 2u) { d = d * gelu_grad(mem[pu(2u) + i]); }
  mem[pu(0u) + i] = d;
}`,

  // dst[c] += sum_r src[r, c]: a workgroup per 8 columns, the rows split over 8 lanes, the
  // lanes' sums added in workgroup memory; words: 0 dst 1 src 2 R 3 C
  column_sum: /* wgsl */ `
var<workgroup> part: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let C = pu(3u); let c = wg.x * 8u + l.x % 8u; let lane = l.x / 8u;
  var s = 0.0;
  if (c < C) {
    for (var r = lane; r < pu(2u); r = r + 8u) { s = s + mem[pu(1u) + r * C + c]; }
  }
  part[l.x] = s;
  workgroupBarrier();
  for (var k = 32u; k >= 8u; k = k >> 1u) {
    if (l.x < k) { part[l.x] = part[l.x] + part[l.x + k]; }
    workgroupBarrier();
  }
  if (lane == 0u && c < C) { mem[pu(0u) + c] = mem[pu(0u) + c] + part[l.x]; }
}`,

  // words: 0 loss 1 dlogits 2 logits 3 targets 4 smoothing 5 ignore 6 grad_scale 7 R 8 V 9 gridX
  cross_entropy:
    ROWS +
    /* wgsl */ `
var<workgroup> tv: i32;  // the row's target, read once and shared (uniform for the early exit)
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let V = pu(8u);
  let r = wg.x + wg.y * pu(9u);
  if (r >= pu(7u)) { return; }
  let o = r * V; let x = pu(2u) + o; let d = pu(1u) + o;
  if (l.x == 0u) { tv = ids(pu(3u) + r); }
  let tgt = workgroupUniformLoad(&tv);
  if (tgt == pi(5u)) {
    for (var v = l.x; v < V; v = v + WG) { mem[d + v] = 0.0; }
    if (l.x == 0u) { mem[pu(0u) + r] = 0.0; }
    return;
  }
  var mx = ${NEG_INF};
  for (var v = l.x; v < V; v = v + WG) { mx = max(mx, mem[x + v]); }
  mx = red_max(mx, l.x);
  var sum = 0.0; var all = 0.0;
  for (var v = l.x; v < V; v = v + WG) { sum = sum + exp(mem[x + v] - mx); all = all + mem[x + v]; }
  sum = red_sum(sum, l.x);
  all = red_sum(all, l.x);
  let lse = mx + log(sum);
  let eps = pf(4u); let off = eps / f32(V); let on = 1.0 - eps + off;
  let logp_t = mem[x + u32(tgt)] - lse;  // read before any write: dlogits may alias logits
  workgroupBarrier();
  for (var v = l.x; v < V; v = v + WG) {
    let q = select(off, on, i32(v) == tgt);
    mem[d + v] = pf(6u) * (exp(mem[x + v] - lse) - q);
  }
  if (l.x == 0u) { mem[pu(0u) + r] = -(off * (all - f32(V) * lse) + (on - off) * logp_t); }
}`,

  // Adam; with a state address in word 13 (not 0) the readback-free step's guarded update:
  // gradients scaled by state[1] (in place), nothing at all when state[0] != 0 (a step that was
  // not finite, or one after it). words: 0 p 1 m 2 v 3 g 4 n 5 lr 6 beta1 7 beta2 8 eps 9 wd
  // 10 bc1 11 bc2 12 gridX (256s) 13 state
  adam: /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let i = (wg.x + wg.y * pu(12u)) * 256u + l.x;
  if (i >= pu(4u)) { return; }
  let st = pu(13u);
  var g = mem[pu(3u) + i];
  if (st != 0u) {
    if (mem[st] != 0.0) { return; }
    let f = mem[st + 1u];
    if (f != 1.0) { g = g * f; mem[pu(3u) + i] = g; }
  }
  let b1 = pf(6u); let b2 = pf(7u);
  let m = b1 * mem[pu(1u) + i] + (1.0 - b1) * g;
  let v = b2 * mem[pu(2u) + i] + (1.0 - b2) * g * g;
  mem[pu(1u) + i] = m;
  mem[pu(2u) + i] = v;
  let p = mem[pu(0u) + i];
  mem[pu(0u) + i] = p - pf(5u) * ((m / pf(10u)) / (sqrt(v / pf(11u)) + pf(8u)) + pf(9u) * p);
}`,

  // One step's clip and non-finite check (kernels.hpp step_guard): record = [loss, norm],
  // state = [stopped, factor]; words: 0 record 1 state 2 sumsq 3 max_norm. Finiteness is read
  // from the bits (exponent all ones: NaN or infinity): WGSL lets a compiler assume floats are
  // finite, so x == x and comparisons with FLT_MAX may be folded to true.
  step_guard: /* wgsl */ `
fn finite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
@compute @workgroup_size(1)
fn main() {
  let loss = mem[pu(0u)];
  let norm = sqrt(mem[pu(2u)]);
  mem[pu(0u) + 1u] = norm;
  if (!finite(loss) || !finite(norm)) { mem[pu(1u)] = 1.0; }
  var f = 1.0;
  let mx = pf(3u);
  if (mx > 0.0 && norm > mx) { f = mx / (norm + 1e-6); }
  mem[pu(1u) + 1u] = f;
}`,

  // y[0, n) = 0 (zero) or = x[0, n) (copy, regions disjoint); words: 0 y 1 x 2 n 3 gridX 4 copy
  fill: /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let i = (wg.x + wg.y * pu(3u)) * 256u + l.x;
  if (i >= pu(2u)) { return; }
  mem[pu(0u) + i] = select(0.0, mem[pu(1u) + i], pu(4u) != 0u);
}`,

  // bytes [at, at + n) of the arena = 0, the other bytes of their words kept (a range that is
  // not whole floats: byte masks); a thread per word; words: 0 at (bytes) 1 n 2 gridX (256s)
  zero_bytes: /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let lo = pu(0u); let hi = lo + pu(1u);
  let w = lo / 4u + (wg.x + wg.y * pu(2u)) * 256u + l.x;
  if (w * 4u >= hi) { return; }
  var keep = 0u;
  for (var k = 0u; k < 4u; k = k + 1u) {
    let b = w * 4u + k;
    if (b < lo || b >= hi) { keep = keep | (255u << (8u * k)); }
  }
  mem[w] = bitcast<f32>(bitcast<u32>(mem[w]) & keep);
}`,

  // y = a x + b y (axpy: a, 1; scale: a, 0); words: 0 y 1 x 2 n 3 a 4 b 5 gridX (256s)
  axpby: /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let i = (wg.x + wg.y * pu(5u)) * 256u + l.x;
  if (i >= pu(2u)) { return; }
  var y = pf(3u) * mem[pu(1u) + i];
  if (pf(4u) != 0.0) { y = y + pf(4u) * mem[pu(0u) + i]; }
  mem[pu(0u) + i] = y;
}`,

  // out[wg] = the sum of squares of x[wg*chunk, (wg+1)*chunk) (square 1), or the plain sum
  // (square 0: the second stage, over the partials), divided by word 6 when it is not 0 (a
  // mean loss); words: 0 out 1 x 2 n 3 chunk 4 gridX 5 square 6 divisor
  sumsq:
    ROWS +
    /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let w = wg.x + wg.y * pu(4u);
  let lo = w * pu(3u);
  if (lo >= pu(2u)) { return; }
  let hi = min(pu(2u), lo + pu(3u));
  var s = 0.0;
  let sq = pu(5u) != 0u;
  for (var i = lo + l.x; i < hi; i = i + WG) { let v = mem[pu(1u) + i]; s = s + select(v, v * v, sq); }
  s = red_sum(s, l.x);
  if (pu(6u) != 0u) { s = s / pf(6u); }
  if (l.x == 0u) { mem[pu(0u) + w] = s; }
}`,

  // out[r, c] = drop(scale W[ids[r], c] + pe[r % L, c]); words: 0 out 1 W 2 ids 3 R 4 C 5 scale
  // 6 gridX (256s) 7 pe (0: none) 8 L 9-13 the dropout (HASH: mask 0, none)
  embedding_forward:
    HASH +
    /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let C = pu(4u);
  let i = (wg.x + wg.y * pu(6u)) * 256u + l.x;
  if (i >= pu(3u) * C) { return; }
  let r = i / C; let c = i % C;
  var v = pf(5u) * mem[pu(1u) + u32(ids(pu(2u) + r)) * C + c];
  if (pu(7u) != 0u) { v = v + mem[pu(7u) + (r % pu(8u)) * C + c]; }
  if (pu(9u) != 0u) { v = v * drop_mask(9u, i); }
  mem[pu(0u) + i] = v;
}`,

  // dW[ids[r], c] += scale dout[r, c] (times mask[r, c] where word 6 is not 0: a dropout's
  // backward), rows in order (a thread per column: the CPU's sums);
  // words: 0 dW 1 dout 2 ids 3 R 4 C 5 scale 6 mask
  embedding_backward: /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let C = pu(4u); let c = g.x;
  if (c >= C) { return; }
  let mask = pu(6u);
  for (var r = 0u; r < pu(3u); r = r + 1u) {
    let at = pu(0u) + u32(ids(pu(2u) + r)) * C + c;
    var d = mem[pu(1u) + r * C + c];
    if (mask != 0u) { d = d * mem[mask + r * C + c]; }
    mem[at] = mem[at] + pf(5u) * d;
  }
}`,

  // Inverted dropout with kernels/counter_hash.hpp's bits (64-bit words as (lo, hi) pairs);
  // words: 0 y 1 mask 2 x 3 n 4 threshold 5 keep 6 seed lo 7 seed hi 8 offset lo 9 offset hi
  //        10 gridX (256s)
  dropout_forward:
    HASH +
    /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let i = (wg.x + wg.y * pu(10u)) * 256u + l.x;
  if (i >= pu(3u)) { return; }
  let golden = vec2<u32>(0x7F4A7C15u, 0x9E3779B9u);
  let k = add64(add64(vec2<u32>(pu(8u), pu(9u)), vec2<u32>(i, 0u)), vec2<u32>(1u, 0u));
  let bits = mix64(add64(mix64(vec2<u32>(pu(6u), pu(7u))), mul64(k, golden))).y;
  let m = select(pf(5u), 0.0, bits < pu(4u));
  if (pu(1u) != 0u) { mem[pu(1u) + i] = m; }
  mem[pu(0u) + i] = mem[pu(2u) + i] * m;
}`,

  // y = x * mask; words: 0 y 1 mask 2 x 3 n 4 gridX (256s)
  multiply: /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let i = (wg.x + wg.y * pu(4u)) * 256u + l.x;
  if (i >= pu(3u)) { return; }
  mem[pu(0u) + i] = mem[pu(2u) + i] * mem[pu(1u) + i];
}`,
};

export const source = (name) => PRELUDE + (KERNELS[name] ?? RECURRENT[name]);
