// The kernel table on WebGPU: the entries of cpp/kernels/kernels.hpp with arena addresses (bytes,
// web/gpu/arena.js) where the C++ table takes pointers, in the same argument order. Calls only
// encode: each is a compute dispatch appended to the pending pass, its parameters written to a
// slot of a uniform ring; flush() submits, read() waits for the queue and maps a copy. A
// training step therefore never waits on the GPU; what the page draws is read at the end of a
// chunk. Pipelines are compiled on first use. The fused entries (gemm_fused, gemm_grid,
// add_layernorm_forward, layernorm_backward_fused) keep a step's dispatches few; the GEMM kernel
// (registers or tiled, each with or without split-K for products with few tiles and a long K)
// is chosen per adapter by timing the candidates (chooseGemm).
// Long because: one method per entry of the C++ kernel table (cpp/kernels/kernels.hpp), so
// the two are read side by side, and the GEMM choice beside the GEMM entries.
import { GpuArena } from './arena.js';
import { source } from './wgsl.js';

const SLOT = 256; // minUniformBufferOffsetAlignment
const SLOTS = 4096; // dispatches per submit at most
const WORDS = 64; // parameter words of a dispatch (wgsl.js Params: a slot's 256 bytes)
const STAGE = 1 << 16; // bytes of small uploads staged between a submit's dispatches (upload())
// The GEMM kernels (wgsl.js) and the edge of the tile of C a workgroup computes: 'gemm' keeps
// its sums in registers and reads the arena directly (fast on SwiftShader), 'gemm_tiled' stages
// tiles in workgroup memory (what a GPU wants). Both give the same bits; chooseGemm() times them.
export const GEMMS = { gemm: 32, gemm_tiled: 64 };
// What chooseGemm() picks from: either kernel, alone or with split-K ('+splitk': splitK()'s rule
// decides which products are split; a split product's bits are its own, the same on every run,
// its sums being added in another order). A name stored before split-K existed is one of them.
export const GEMM_CHOICES = ['gemm', 'gemm_tiled', 'gemm+splitk', 'gemm_tiled+splitk'];
// Split-K: a product whose output tiles (of the kernel's edge, over all its matrices) are fewer
// than SPLIT_TARGET workgroups, with K >= 2 SPLIT_MIN, is cut along K into
//   slices = min(ceil(SPLIT_TARGET / tiles), floor(K / SPLIT_MIN))
// slices of one length, ceil(K / slices) rounded up to a multiple of SPLIT_STEP (the tiled
// kernel's k step; the last slice shorter, and their count recomputed as ceil(K / length)): so a
// slice has at least SPLIT_MIN k and the dispatch at most about 2 SPLIT_TARGET workgroups. A
// layer's weight gradient (dW = Xᵀ dY: M N small, K the batch's tokens) is the product it is for.
const SPLIT_TARGET = 128;
const SPLIT_MIN = 128;
const SPLIT_STEP = 16;
export function splitK(tile, M, N, K, matrices) {
  const tiles = Math.ceil(M / tile) * Math.ceil(N / tile) * matrices;
  if (tiles >= SPLIT_TARGET || K < 2 * SPLIT_MIN) return null;
  const want = Math.min(Math.ceil(SPLIT_TARGET / tiles), Math.floor(K / SPLIT_MIN));
  const len = Math.ceil(K / want / SPLIT_STEP) * SPLIT_STEP;
  return { slices: Math.ceil(K / len), len };
}
const GEMM_SHAPES = 64; // distinct GEMM shapes remembered for the choice
const MAX_GRID = 65535;
const ACT = { none: 0, relu: 1, gelu: 2 };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bits = (x) => {
  f32[0] = x;
  return u32[0];
};

// Workgroups for `groups` rows or blocks, spread over x and y.
const grid = (groups) => {
  const x = Math.max(1, Math.min(groups, MAX_GRID));
  return [x, Math.max(1, Math.ceil(groups / x))];
};

// Where the GEMM choice is kept per adapter: localStorage where there is one (a page), else
// IndexedDB (a Worker), else nothing (storage refused: the choice lasts as long as the table).
const GEMM_KEY = (adapter) => `attnlab:gemm:${adapter}`;
async function storeGet(key) {
  try {
    if (globalThis.localStorage) return globalThis.localStorage.getItem(key);
    return await idb('readonly', (st) => st.get(key));
  } catch {
    return null;
  }
}
async function storeSet(key, value) {
  try {
    if (globalThis.localStorage) globalThis.localStorage.setItem(key, value);
    else await idb('readwrite', (st) => st.put(value, key));
  } catch {
    // no storage here: the choice is made again on the next visit
  }
}
function idb(mode, op) {
  return new Promise((resolve, reject) => {
    if (!globalThis.indexedDB) return resolve(null);
    const open = globalThis.indexedDB.open('attnlab-webgpu', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('choices');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const req = op(db.transaction('choices', mode).objectStore('choices'));
      req.onsuccess = () => resolve(req.result ?? null);
      req.onerror = () => reject(req.error);
      req.transaction.oncomplete = () => db.close();
    };
  });
}

// The device: the adapter's higher storage limits requested (the arena is one binding).
export async function openGpu({ powerPreference = 'high-performance' } = {}) {
  if (typeof navigator === 'undefined' || !navigator.gpu) throw new Error('WebGPU: this browser has no navigator.gpu');
  const adapter = await navigator.gpu.requestAdapter({ powerPreference });
  if (!adapter) throw new Error('WebGPU: no adapter (blocked, or no usable GPU)');
  const want = ['maxStorageBufferBindingSize', 'maxBufferSize'];
  const requiredLimits = Object.fromEntries(want.map((k) => [k, adapter.limits[k]]));
  const device = await adapter.requestDevice({ requiredLimits });
  const info = adapter.info ?? {};
  return {
    adapter,
    device,
    name: [info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'WebGPU adapter',
  };
}

export class GpuTable {
  // adapter: the adapter's name (openGpu), the key of the GEMM choice
  constructor(device, { arenaBytes, adapter } = {}) {
    this.name = 'webgpu';
    this.device = device;
    const info = device.adapterInfo ?? {};
    this.adapter =
      adapter ?? ([info.vendor, info.architecture, info.description].filter(Boolean).join(' ') || 'WebGPU adapter');
    this.gemmKernel = 'gemm'; // one of GEMM_CHOICES; 'gemm' until chooseGemm() decides
    this.gemmChoice = null; // {kernel (of GEMM_CHOICES), ms: {candidate: ms} | null, stored: bool}
    this.gemmChoosing = null;
    this.gemmShapes = new Map(); // "tA tB M N K matrices" -> dispatches: the shapes encoded
    this.gemmHeld = null; // the last GEMM problem, not yet encoded: the next may join its dispatch
    this.arena = new GpuArena(device, { bytes: arenaBytes });
    this.arena.pending = () => this.flush();
    this.layout = device.createBindGroupLayout({
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
        {
          binding: 1,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: WORDS * 4 },
        },
      ],
    });
    this.pipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [this.layout] });
    this.pipelines = new Map();
    this.ring = device.createBuffer({ size: SLOT * SLOTS, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.params = new ArrayBuffer(SLOT * SLOTS);
    this.slot = 0;
    this.encoder = null;
    this.pass = null;
    // small uploads while work is encoded: written to `stage` on the queue and copied into the
    // arena by the pending command buffer, in order among its dispatches (no submit)
    this.stage = device.createBuffer({ size: STAGE, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    this.staged = 0; // bytes of `stage` the pending command buffer copies from
    this.group = null;
    this.groupVersion = -1;
    this.dispatches = 0; // every dispatch encoded (a step's count is its difference)
    this.kernelCounts = new Map(); // kernel name -> its dispatches (the breakdown of `dispatches`)
    this.submits = 0;
    this.reads = 0; // readbacks (read() calls): a training step makes none
    this.scratch = 0; // a workspace between two dispatches (reduce, split-K): scratchAt()
    this.scratchBytes = 0;
    this.cached = null; // [[at, bytes, Uint8Array]] of the last prefetch()
    this.generation = 0; // bumped by every dispatch and write (prefetch checks it)
  }

  pipeline(name) {
    let p = this.pipelines.get(name);
    if (!p) {
      const module = this.device.createShaderModule({ code: source(name), label: name });
      p = this.device.createComputePipeline({
        layout: this.pipelineLayout,
        compute: { module, entryPoint: 'main' },
        label: name,
      });
      this.pipelines.set(name, p);
    }
    return p;
  }

  // One dispatch of kernel `name` with parameter words (numbers: integers as u32, floats given
  // through bits()), over workgroups [x, y, z].
  run(name, words, [x, y = 1, z = 1]) {
    if (this.gemmHeld) this.gemmEmit();
    if (words.length > WORDS)
      throw new RangeError(`WebGPU ${name}: ${words.length} parameter words, a kernel takes at most ${WORDS}`);
    for (const w of words)
      if (!Number.isInteger(w) || w < -(2 ** 31) || w >= 2 ** 32)
        throw new RangeError(`WebGPU ${name}: parameter word ${w} is not a 32-bit integer`);
    this.drop();
    if (this.slot === SLOTS) this.flush();
    const view = new Uint32Array(this.params, this.slot * SLOT, WORDS);
    for (let i = 0; i < words.length; ++i) view[i] = words[i] >>> 0;
    view.fill(0, words.length); // words a kernel is not given read 0, never an earlier dispatch's
    if (!this.encoder || this.groupVersion !== this.arena.version) {
      if (this.encoder) this.flush();
      if (this.groupVersion !== this.arena.version) {
        this.group = this.device.createBindGroup({
          layout: this.layout,
          entries: [
            { binding: 0, resource: { buffer: this.arena.buffer } },
            { binding: 1, resource: { buffer: this.ring, size: WORDS * 4 } },
          ],
        });
        this.groupVersion = this.arena.version;
      }
      this.encoder = this.device.createCommandEncoder();
    }
    this.pass ??= this.encoder.beginComputePass();
    this.pass.setPipeline(this.pipeline(name));
    this.pass.setBindGroup(0, this.group, [this.slot * SLOT]);
    this.pass.dispatchWorkgroups(x, y, z);
    this.slot += 1;
    this.dispatches += 1;
    this.kernelCounts.set(name, (this.kernelCounts.get(name) ?? 0) + 1);
  }

  flush() {
    if (this.gemmHeld) this.gemmEmit();
    if (!this.encoder) return;
    this.pass?.end();
    this.pass = null;
    this.staged = 0;
    this.device.queue.writeBuffer(this.ring, 0, this.params, 0, this.slot * SLOT);
    this.device.queue.submit([this.encoder.finish()]);
    this.encoder = null;
    this.slot = 0;
    this.submits += 1;
  }

  // --- memory ---
  alloc(bytes) {
    return this.arena.alloc(bytes);
  }
  release(at) {
    this.arena.release(at);
  }
  // With work encoded and not submitted (a training step's token ids between its dispatches),
  // a small upload is staged: written to the staging buffer now and copied into the arena by
  // the pending command buffer where it stands, so it costs no submit. Else (nothing pending,
  // or large) it is a queue write after a submit of what is pending (arena.upload).
  upload(at, data) {
    this.drop();
    if (this.gemmHeld) this.gemmEmit();
    const size = Math.ceil(data.byteLength / 4) * 4;
    if (!this.encoder || size === 0 || at % 4 || size > STAGE - this.staged) return this.arena.upload(at, data);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const padded = size === bytes.byteLength ? bytes : Uint8Array.from({ length: size }, (_, k) => bytes[k] ?? 0);
    this.device.queue.writeBuffer(this.stage, this.staged, padded);
    this.pass?.end();
    this.pass = null;
    this.encoder.copyBufferToBuffer(this.stage, this.staged, this.arena.buffer, at, size);
    this.staged += size;
  }
  // Zeroed and copied by a kernel, in the pass (no submit, nothing the size of the range on the
  // JS side): ranges of floats and ids (4-byte aligned) by `fill`, other byte ranges by
  // `zero_bytes`, which keeps the bytes around them.
  zero(at, bytes) {
    if (bytes === 0) return;
    if (at % 4 === 0 && bytes % 4 === 0) return this.fill(at, 0, bytes / 4, 0);
    const [gx, gy] = grid(Math.ceil(Math.ceil(((at % 4) + bytes) / 4) / 256));
    this.run('zero_bytes', [at, bytes, gx], [gx, gy]);
  }
  copy(dst, src, bytes) {
    if (bytes === 0) return;
    if (dst % 4 || src % 4 || bytes % 4)
      throw new RangeError(`WebGPU copy: ${bytes} bytes at ${src} are not whole floats`);
    this.fill(dst, src, bytes / 4, 1);
  }
  fill(y, x, n, copy) {
    const [gx, gy] = grid(Math.ceil(n / 256));
    this.run('fill', [y / 4, x / 4, n, gx, copy], [gx, gy]);
  }
  synchronize() {
    this.flush();
  }

  // Synchronous reads for C++ (the `download` entry): only of ranges fetched beforehand with
  // prefetch(), while nothing has been encoded or written since (any dispatch or write drops
  // them). A C++ call that reads (save, the host copy of the weights for decoding) is preceded
  // by an awaited prefetch of exactly what it reads (api::Session::device_ranges).
  // All ranges are copied at one point of the queue; if work was encoded or written while they
  // were read (another session's chunk between two awaits), they are read again.
  async prefetch(ranges) {
    for (;;) {
      const generation = this.generation;
      const got = await Promise.all(ranges.map(([at, bytes]) => this.read(at, bytes).then((d) => [at, bytes, d])));
      if (generation === this.generation) {
        this.cached = got;
        return;
      }
    }
  }
  drop() {
    this.cached = null;
    this.generation += 1;
  }
  download(at, bytes) {
    for (const [a, b, data] of this.cached ?? [])
      if (at >= a && at + bytes <= a + b) return data.subarray(at - a, at - a + bytes);
    throw new Error(
      `WebGPU: ${bytes} bytes at ${at} were read without a prefetch (the WebGPU backend reads its memory asynchronously)`
    );
  }
  async read(at, bytes) {
    this.reads += 1;
    this.flush();
    return this.arena.read(at, bytes);
  }
  async readFloats(at, n) {
    const b = await this.read(at, n * 4);
    return new Float32Array(b.buffer, 0, n);
  }

  // An element kernel over n elements in blocks of 256: its words, then gridX.
  elements(name, words, n) {
    const [gx, gy] = grid(Math.ceil(n / 256));
    this.run(name, [...words, gx], [gx, gy]);
  }

  // --- GEMM (strides and leading dimensions in elements, as the C++ table) ---
  gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc) {
    this.gemm_batched(transA, transB, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
  }

  gemm_batched(transA, transB, M, N, K, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batch) {
    this.gemm_grid(
      transA,
      transB,
      M,
      N,
      K,
      alpha,
      A,
      lda,
      0,
      strideA,
      B,
      ldb,
      0,
      strideB,
      beta,
      C,
      ldc,
      0,
      strideC,
      1,
      batch
    );
  }

  // outer × inner GEMMs in one dispatch (kernels/gemm_grid.hpp): matrix (o, i) of an operand
  // at base + o * outer stride + i * inner stride (attention's products over batch × heads)
  gemm_grid(tA, tB, M, N, K, alpha, A, lda, oA, iA, B, ldb, oB, iB, beta, C, ldc, oC, iC, outer, inner) {
    this.gemmRun(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, [oA, iA, oB, iB, oC, iC, outer, inner], {});
  }

  // gemm, then the epilogue e = {bias, act, pre, mask, dact, rowsum} (kernels.hpp GemmEpilogue:
  // addresses, 0 or absent for none; act a code or 'relu' / 'gelu')
  gemm_fused(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, e) {
    this.gemmRun(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, [0, 0, 0, 0, 0, 0, 1, 1], e);
  }

  gemmRun(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, [oA, iA, oB, iB, oC, iC, outer, inner], e) {
    if (M <= 0 || N <= 0 || outer <= 0 || inner <= 0) return;
    if (outer * inner > MAX_GRID)
      throw new RangeError(`WebGPU gemm: ${outer * inner} matrices in one call exceed ${MAX_GRID}`);
    const at = (a) => (a ? a / 4 : 0);
    if (!this.gemmChoice && this.gemmShapes.size < GEMM_SHAPES) {
      const key = [tA ? 1 : 0, tB ? 1 : 0, M, N, K, outer * inner].join(' ');
      this.gemmShapes.set(key, (this.gemmShapes.get(key) ?? 0) + 1);
    }
    const words = [
      M,
      N,
      K,
      lda,
      ldb,
      ldc,
      A / 4,
      B / 4,
      C / 4,
      iA,
      iB,
      iC,
      tA ? 1 : 0,
      tB ? 1 : 0,
      bits(alpha),
      bits(beta),
      inner,
      oA,
      oB,
      oC,
      at(e.bias),
      actCode(e.act ?? 0),
      at(e.pre),
      at(e.mask),
      at(e.dact),
      at(e.rowsum),
      outer * inner,
      ...dropWords(e.drop),
    ];
    // the floats it reads and writes (regions(): rows of a period), null where not known
    let access = null;
    if ([oA, iA, oB, iB, oC, iC].every((s) => s >= 0) && K > 0) {
      const c = region(C / 4, M, N, ldc, oC, iC, outer, inner);
      const like = (x) => region(x / 4, M, N, ldc, 0, 0, 1, 1); // laid out as C, one matrix
      const flat = (x, n) => region(x / 4, 1, n, n, 0, 0, 1, 1);
      const [ar, ac] = tA ? [K, M] : [M, K];
      const [br, bc] = tB ? [N, K] : [K, N];
      const reads = [
        region(A / 4, ar, ac, lda, oA, iA, outer, inner),
        region(B / 4, br, bc, ldb, oB, iB, outer, inner),
        c,
      ];
      const writes = [c];
      if (e.bias) reads.push(flat(e.bias, N));
      if (e.pre) writes.push(like(e.pre));
      if (e.mask) reads.push(like(e.mask));
      if (e.dact) reads.push(like(e.dact));
      if (e.rowsum) writes.push(flat(e.rowsum, M));
      if (e.drop?.mask) writes.push(like(e.drop.mask));
      access = { reads, writes };
    }
    if (!GEMM_CHOICES.includes(this.gemmKernel)) throw new RangeError(`WebGPU gemm: no GEMM kernel ${this.gemmKernel}`);
    const [kernel, split] = this.gemmKernel.split('+');
    const cut = split ? splitK(GEMMS[kernel], M, N, K, outer * inner) : null;
    if (cut) {
      if (this.gemmHeld) this.gemmEmit(); // before it, in order: a split product pairs with none
      return this.gemmSplit(kernel, words, cut, Boolean(e.rowsum));
    }
    const problem = { kernel, words, access };
    const held = this.gemmHeld;
    if (held && held.kernel === problem.kernel && independent(held.access, access)) {
      this.gemmHeld = null;
      this.gemmEmit([held, problem]);
      return;
    }
    if (held) this.gemmEmit();
    this.gemmHeld = problem;
  }

  // Encodes the held GEMM problem, or the pair given (independent problems: one dispatch, the
  // first's tiles then the second's).
  gemmEmit(problems = [this.gemmHeld]) {
    this.gemmHeld = null;
    const kernel = problems[0].kernel,
      tile = GEMMS[kernel];
    // tiles of C: column tiles x row tiles x matrices (words 1, 0, 26)
    const tiles = problems.map(({ words: w }) => Math.ceil(w[1] / tile) * Math.ceil(w[0] / tile) * w[26]);
    const [gx, gy] = grid(tiles.reduce((a, b) => a + b, 0));
    this.run(kernel, problems.length > 1 ? [...problems[0].words, ...problems[1].words] : problems[0].words, [gx, gy]);
  }

  // Split-K (splitK's cut {slices, len}): stage 1, `kernel` built as its split variant (wgsl.js
  // SPLIT), writes each slice's raw sums of each tile (and row sums) into the table's scratch;
  // stage 2 (gemm_split_sum) adds them up in a fixed order and applies the epilogue. Two dispatches.
  gemmSplit(kernel, words, { slices, len }, rowsum) {
    const [M, N, matrices] = [words[0], words[1], words[26]];
    const parts = slices * matrices * M;
    const ws = this.scratchAt(4 * (parts * N + (rowsum ? parts : 0))) / 4;
    const split = [slices, len, ws, rowsum ? ws + parts * N : 0];
    const tile = GEMMS[kernel];
    this.run(
      `${kernel}_split`,
      [...words, ...split],
      grid(Math.ceil(N / tile) * Math.ceil(M / tile) * matrices * slices)
    );
    const [gx, gy] = grid(Math.ceil((M * N * matrices) / 256));
    this.run('gemm_split_sum', [...words, ...split, gx], [gx, gy]);
  }

  // Which GEMM kernel this adapter runs faster, decided once per table: the choice stored for
  // this adapter, else the candidates timed at the shapes encoded so far (a model's step: the
  // four with the most work in it, once each; 256³ when none yet), `runs` timed runs each after
  // a warm-up, the median; the fastest is used from then on and stored. The candidates: both
  // kernels, and each with split-K where splitK() splits one of those shapes for it (else the
  // split candidate would time the same dispatches again). Returns {kernel (of GEMM_CHOICES),
  // ms: {candidate: median ms}, stored}. `force`: time again even when a choice is stored.
  chooseGemm({ runs = 3, force = false } = {}) {
    this.gemmChoosing ??= this.timeGemms(runs, force).then((c) => {
      this.gemmChoice = c;
      this.gemmKernel = c.kernel;
      return c;
    });
    return this.gemmChoosing;
  }

  async timeGemms(runs, force) {
    const key = GEMM_KEY(this.adapter);
    const stored = force ? null : await storeGet(key);
    if (GEMM_CHOICES.includes(stored)) return { kernel: stored, ms: null, stored: true };
    let shapes = [...this.gemmShapes].map(([k, count]) => {
      const [tA, tB, M, N, K, z] = k.split(' ').map(Number);
      return { tA: tA === 1, tB: tB === 1, M, N, K, z, count, work: M * N * K * z * count };
    });
    if (!shapes.length) shapes = [{ tA: false, tB: false, M: 256, N: 256, K: 256, z: 1, count: 1, work: 1 }];
    shapes = shapes.sort((a, b) => b.work - a.work).slice(0, 4);
    const candidates = GEMM_CHOICES.filter((c) => {
      const [kernel, split] = c.split('+');
      return !split || shapes.some((s) => splitK(GEMMS[kernel], s.M, s.N, s.K, s.z));
    });
    const floats = (f) => Math.max(...shapes.map(f));
    const A = this.alloc(4 * floats((s) => s.M * s.K * s.z)),
      B = this.alloc(4 * floats((s) => s.K * s.N * s.z)),
      C = this.alloc(4 * floats((s) => s.M * s.N * s.z));
    const saved = this.gemmKernel;
    const scratch = [this.scratch, this.scratchBytes];
    const once = async (kernel) => {
      this.gemmKernel = kernel;
      for (const s of shapes) {
        const [lda, ldb] = [s.tA ? s.M : s.K, s.tB ? s.K : s.N];
        const [sA, sB, sC] = [s.M * s.K, s.K * s.N, s.M * s.N];
        this.gemmRun(s.tA, s.tB, s.M, s.N, s.K, 1, A, lda, B, ldb, 0, C, s.N, [0, sA, 0, sB, 0, sC, 1, s.z], {});
      }
      const t0 = performance.now();
      this.flush();
      await this.device.queue.onSubmittedWorkDone();
      return performance.now() - t0;
    };
    const ms = {};
    try {
      this.flush();
      await this.device.queue.onSubmittedWorkDone(); // what was encoded before is not timed
      for (const k of candidates) await once(k); // pipelines compile, the scratch grows
      const times = Object.fromEntries(candidates.map((k) => [k, []]));
      for (let r = 0; r < runs; ++r) for (const k of candidates) times[k].push(await once(k));
      for (const [k, t] of Object.entries(times)) ms[k] = t.sort((a, b) => a - b)[Math.floor(t.length / 2)];
    } finally {
      this.gemmKernel = saved;
      this.release(A);
      this.release(B);
      this.release(C);
      // a scratch grown for the timing's split products is given back: the table's is as before
      if (this.scratch !== scratch[0]) {
        this.release(this.scratch);
        [this.scratch, this.scratchBytes] = [0, 0];
        if (scratch[1]) this.scratchAt(scratch[1]);
      }
    }
    const kernel = Object.keys(ms).reduce((a, b) => (ms[b] < ms[a] ? b : a));
    await storeSet(key, kernel);
    return { kernel, ms, stored: false };
  }

  // --- row kernels ---
  softmax_forward(y, x, scale, keyPad, causal, B, H, T, S) {
    const [gx, gy] = grid(B * H * T);
    this.run('softmax_forward', [y / 4, x / 4, bits(scale), keyPad, causal ? 1 : 0, B, H, T, S, gx], [gx, gy]);
  }

  // softmax_forward's y, and yd = y ⊙ mask under the dropout drop = {mask, p, seed (BigInt)}
  softmax_dropout_forward(y, yd, x, scale, keyPad, causal, B, H, T, S, drop) {
    const [gx, gy] = grid(B * H * T);
    this.run(
      'softmax_forward',
      [y / 4, x / 4, bits(scale), keyPad, causal ? 1 : 0, B, H, T, S, gx, yd / 4, ...dropWords(drop)],
      [gx, gy]
    );
  }

  softmax_backward(dx, y, dy, scale, R, S) {
    this.softmax_backward_masked(dx, y, dy, 0, scale, R, S);
  }

  // softmax_backward of dy ⊙ mask (mask 0: dy)
  softmax_backward_masked(dx, y, dy, mask, scale, R, S) {
    const [gx, gy] = grid(R);
    this.run('softmax_backward', [dx / 4, y / 4, dy / 4, bits(scale), R, S, gx, mask / 4], [gx, gy]);
  }

  layernorm_forward(y, mean, rstd, x, gamma, beta, eps, R, C) {
    const [gx, gy] = grid(R);
    this.run(
      'layernorm_forward',
      [y / 4, mean / 4, rstd / 4, x / 4, gamma / 4, beta / 4, bits(eps), R, C, gx],
      [gx, gy]
    );
  }

  // dgamma, dbeta accumulate first (they read dy), then dx (which may alias dy)
  layernorm_backward(dx, dgamma, dbeta, dy, x, mean, rstd, gamma, R, C) {
    this.run(
      'layernorm_backward_params',
      [dgamma / 4, dbeta / 4, dy / 4, x / 4, mean / 4, rstd / 4, R, C],
      [Math.ceil(C / 64)]
    );
    const [gx, gy] = grid(R);
    this.run('layernorm_backward_dx', [dx / 4, dy / 4, x / 4, mean / 4, rstd / 4, gamma / 4, R, C, gx], [gx, gy]);
  }

  // s = x + drop(r), y = LN(s) (a residual's sum and its norm; r 0: y = LN(x)); drop = {mask,
  // p, seed (BigInt)}: the dropout on r (kernels.hpp DropoutArgs; mask 0 or absent: none)
  add_layernorm_forward(y, s, mean, rstd, x, r, gamma, beta, eps, R, C, drop = {}) {
    const [gx, gy] = grid(R);
    this.run(
      'add_layernorm_forward',
      [
        y / 4,
        s / 4,
        mean / 4,
        rstd / 4,
        x / 4,
        r / 4,
        gamma / 4,
        beta / 4,
        bits(eps),
        R,
        C,
        gx,
        ...dropWords(r ? drop : {}),
      ],
      [gx, gy]
    );
  }

  // dx = (accumulate ? dx : 0) + (add ? add : 0) + LN'(dy), copy (0: none) = the same times
  // copyMask (0: 1); dgamma, dbeta += : one dispatch (rows, then the parameter columns; dx and
  // copy must not alias dy)
  layernorm_backward_fused(dx, copy, dgamma, dbeta, dy, add, x, mean, rstd, gamma, accumulate, R, C, copyMask = 0) {
    if (dx === dy || (copy && copy === dy))
      throw new RangeError('WebGPU layernorm_backward_fused: dx and copy must not alias dy');
    const [gx, gy] = grid(R + Math.ceil(C / 8));
    this.run(
      'layernorm_backward_fused',
      [
        dx / 4,
        copy / 4,
        dgamma / 4,
        dbeta / 4,
        dy / 4,
        add / 4,
        x / 4,
        mean / 4,
        rstd / 4,
        gamma / 4,
        accumulate ? 1 : 0,
        R,
        C,
        gx,
        copyMask / 4,
      ],
      [gx, gy]
    );
  }

  bias_act_forward(y, pre, x, bias, act, R, C) {
    this.elements('bias_act_forward', [y / 4, pre / 4, x / 4, bias / 4, actCode(act), R, C], R * C);
  }

  bias_act_backward(dx, dbias, dy, pre, act, R, C) {
    // with no activation dx = dy: nothing to do in place
    if (!(actCode(act) === 0 && dx === dy))
      this.elements('bias_act_backward_dx', [dx / 4, dy / 4, pre / 4, actCode(act), R, C], R * C);
    if (dbias) this.run('column_sum', [dbias / 4, dx / 4, R, C], [Math.ceil(C / 8)]);
  }

  cross_entropy(loss, dlogits, logits, targets, smoothing, ignoreIndex, gradScale, R, V) {
    const [gx, gy] = grid(R);
    this.run(
      'cross_entropy',
      [loss / 4, dlogits / 4, logits / 4, targets / 4, bits(smoothing), ignoreIndex, bits(gradScale), R, V, gx],
      [gx, gy]
    );
  }

  adam(p, m, v, g, n, lr, beta1, beta2, eps, wd, t, state = 0) {
    const [gx, gy] = grid(Math.ceil(n / 256));
    const bc = (beta) => bits(1 - Math.fround(beta) ** t);
    const f = [lr, beta1, beta2, eps, wd].map(bits);
    this.run('adam', [p / 4, m / 4, v / 4, g / 4, n, ...f, bc(beta1), bc(beta2), gx, state / 4], [gx, gy]);
  }

  axpy(y, alpha, x, n) {
    this.axpby(y, x, n, alpha, 1);
  }
  scale(y, alpha, x, n) {
    this.axpby(y, x, n, alpha, 0);
  }
  axpby(y, x, n, a, b) {
    this.elements('axpby', [y / 4, x / 4, n, bits(a), bits(b)], n);
  }

  // The sum of squares of x[0, n) into the float at `out` (an arena address: it stays on the
  // GPU, where the gradient clip reads it).
  sumsq(out, x, n) {
    this.reduce(out, x, n, 1, 0);
  }
  sumsq_to(out, x, n) {
    this.reduce(out, x, n, 1, 0);
  }
  // out = sum of x[0, n) / divisor (a step's mean loss; divisor 0: 0, as the C++ table)
  sum_to(out, x, n, divisor) {
    if (!divisor) return this.fill(out, 0, 1, 0);
    this.reduce(out, x, n, 0, divisor);
  }
  reduce(out, x, n, square, divisor) {
    const CHUNK = 4096;
    const parts = Math.max(1, Math.ceil(n / CHUNK));
    const scratch = this.scratchAt(parts * 4);
    const [gx, gy] = grid(parts);
    this.run('sumsq', [scratch / 4, x / 4, n, CHUNK, gx, square, 0], [gx, gy]);
    this.run('sumsq', [out / 4, scratch / 4, parts, parts, 1, 0, divisor ? bits(divisor) : 0], [1]);
  }
  // The table's workspace of at least `bytes`, grown (never shrunk) from the arena: what one
  // entry writes in a dispatch and reads in the next, in the same pass, so entries share it. It
  // grows to at least twice its size, so that batches of growing token counts (split-K's
  // workspace follows the batch) replace it a few times, not at every new largest batch.
  scratchAt(bytes) {
    if (this.scratchBytes < bytes) {
      if (this.scratch) this.release(this.scratch);
      this.scratchBytes = Math.max(bytes, 2 * this.scratchBytes, 1024);
      this.scratch = this.alloc(this.scratchBytes);
    }
    return this.scratch;
  }

  // --- the readback-free step (kernels.hpp step_guard, adam_guarded) ---
  step_guard(record, state, sumsq, maxNorm) {
    this.run('step_guard', [record / 4, state / 4, sumsq / 4, bits(maxNorm)], [1]);
  }

  adam_guarded(p, m, v, g, n, lr, beta1, beta2, eps, wd, t, state) {
    this.adam(p, m, v, g, n, lr, beta1, beta2, eps, wd, t, state);
  }

  embedding_forward(out, W, ids, R, C, scale) {
    this.embedding_pe_forward(out, W, ids, R, C, scale, 0, 1, {});
  }

  // out = drop(scale W[ids] + pe[r % L]) (pe 0: none; drop = {mask, p, seed (BigInt)}, mask 0
  // or absent: none)
  embedding_pe_forward(out, W, ids, R, C, scale, pe, L, drop) {
    const [gx, gy] = grid(Math.ceil((R * C) / 256));
    this.run(
      'embedding_forward',
      [out / 4, W / 4, ids / 4, R, C, bits(scale), gx, pe / 4, pe ? L : 1, ...dropWords(drop)],
      [gx, gy]
    );
  }

  embedding_backward(dW, dout, ids, R, C, scale) {
    this.embedding_backward_masked(dW, dout, 0, ids, R, C, scale);
  }

  // embedding_backward of dout ⊙ mask (mask 0: dout)
  embedding_backward_masked(dW, dout, mask, ids, R, C, scale) {
    this.run('embedding_backward', [dW / 4, dout / 4, ids / 4, R, C, bits(scale), mask / 4], [Math.ceil(C / 64)]);
  }

  // seed and offset: BigInt (64-bit, as the C++ table's uint64_t)
  dropout_forward(y, mask, x, n, p, seed, offset) {
    const [gx, gy] = grid(Math.ceil(n / 256));
    const [, threshold, keep, seedLo, seedHi] = dropWords({ mask: 1, p, seed });
    this.run(
      'dropout_forward',
      [y / 4, mask / 4, x / 4, n, threshold, keep, seedLo, seedHi, lo64(offset), hi64(offset), gx],
      [gx, gy]
    );
  }

  dropout_backward(dx, mask, dy, n) {
    this.elements('multiply', [dx / 4, mask / 4, dy / 4, n], n);
  }

  // --- recurrent layers, additive attention, the pointer loss (kernels/recurrent.hpp) ---

  tanh_bias_forward(y, x, bias, R, C) {
    this.elements('tanh_bias_forward', [y / 4, x / 4, bias / 4, R, C], R * C);
  }

  tanh_bias_backward(dx, dbias, dy, y, R, C) {
    this.elements('tanh_backward', [dx / 4, dy / 4, y / 4, R * C], R * C);
    if (dbias) this.run('column_sum', [dbias / 4, dx / 4, R, C], [Math.ceil(C / 8)]);
  }

  gru_gates_forward(zr, rh, xg, hg, hPrev, B, C) {
    this.elements('gru_gates_forward', [zr / 4, rh / 4, xg / 4, hg / 4, hPrev / 4, B, C], 2 * B * C);
  }

  gru_gates_backward(dxg, dhPrev, drh, zr, hPrev, B, C) {
    this.elements('gru_gates_backward', [dxg / 4, dhPrev / 4, drh / 4, zr / 4, hPrev / 4, B, C], B * C);
  }

  gru_cell_forward(h, cand, xg, hc, zr, hPrev, B, C) {
    this.elements('gru_cell_forward', [h / 4, cand / 4, xg / 4, hc / 4, zr / 4, hPrev / 4, B, C], B * C);
  }

  gru_cell_backward(dxg, dhPrev, dh, zr, cand, hPrev, B, C) {
    this.elements('gru_cell_backward', [dxg / 4, dhPrev / 4, dh / 4, zr / 4, cand / 4, hPrev / 4, B, C], B * C);
  }

  lstm_cell_forward(h, c, act, tc, pre, cPrev, B, C) {
    this.elements('lstm_cell_forward', [h / 4, c / 4, act / 4, tc / 4, pre / 4, cPrev / 4, B, C], B * C);
  }

  lstm_cell_backward(dpre, dcPrev, dh, dc, act, cPrev, tc, B, C) {
    this.elements(
      'lstm_cell_backward',
      [dpre / 4, dcPrev / 4, dh / 4, dc / 4, act / 4, cPrev / 4, tc / 4, B, C],
      B * C
    );
  }

  additive_score_forward(e, t, k, q, v, S, B, A) {
    const [gx, gy] = grid(S * B);
    this.run('additive_score_forward', [e / 4, t / 4, k / 4, q / 4, v / 4, S, B, A, gx], [gx, gy]);
  }

  // dv reads t first; dk may then overwrite t; dq sums dk over s
  additive_score_backward(dk, dq, dv, de, t, v, S, B, A) {
    this.run('additive_score_dv', [dv / 4, de / 4, t / 4, S, B, A], [Math.ceil(A / 64)]);
    this.elements('additive_score_dk', [dk / 4, de / 4, t / 4, v / 4, S, B, A], S * B * A);
    this.elements('additive_score_dq', [dq / 4, dk / 4, S, B, A], B * A);
  }

  probs_xent(loss, dlogits, p, targets, scale, R, S) {
    const [gx, gy] = grid(R);
    this.run('probs_xent', [loss / 4, dlogits / 4, p / 4, targets / 4, bits(scale), R, S, gx], [gx, gy]);
  }
}

// The floats a GEMM operand spans (elements): matrix (o, i) of an outer × inner grid at
// base + o * os + i * is, each `rows` rows of `cols` floats, row r at + r * ld. Returned as its
// hull [lo, hi) and, where the grid keeps to rows of period ld (os a multiple of ld, the inner
// matrices side by side within ld floats), as rectangles of the arena seen as rows of ld
// floats: [r0, r1) × [c0, c1) (two where its columns wrap past a row's end). So the columns of
// q, k and v in one [rows, 3C] buffer are told apart.
function region(base, rows, cols, ld, os, is, outer, inner) {
  const lo = base,
    hi = base + (rows - 1) * ld + cols + (outer - 1) * os + (inner - 1) * is;
  const width = (inner - 1) * is + cols; // the floats of a row the inner matrices span
  if (ld <= 0 || os % ld || width > ld) return { lo, hi, ld: 0 };
  const c0 = base % ld,
    r0 = (base - c0) / ld,
    r1 = r0 + (outer - 1) * (os / ld) + rows;
  const rects =
    c0 + width <= ld
      ? [[r0, r1, c0, c0 + width]]
      : [
          [r0, r1, c0, ld],
          [r0 + 1, r1 + 1, 0, c0 + width - ld],
        ];
  return { lo, hi, ld, rects };
}

// Whether two regions may share a float: by their rectangles where both have the same period,
// else by their hulls.
function overlap(a, b) {
  if (!(a.lo < b.hi && b.lo < a.hi)) return false;
  if (!a.ld || a.ld !== b.ld) return true;
  return a.rects.some(([r0, r1, c0, c1]) =>
    b.rects.some(([s0, s1, d0, d1]) => r0 < s1 && s0 < r1 && c0 < d1 && d0 < c1)
  );
}

const lo64 = (v) => Number(BigInt.asUintN(64, BigInt(v)) & 0xffffffffn);
const hi64 = (v) => Number(BigInt.asUintN(64, BigInt(v)) >> 32n);

// The words of a dropout a kernel applies (kernels.hpp DropoutArgs {mask, p, seed}; wgsl.js
// HASH): mask address (0: none), threshold floor(p 2^32), keep 1/(1-p), seed lo, seed hi.
function dropWords({ mask = 0, p = 0, seed = 0n } = {}) {
  if (!mask) return [0, 0, 0, 0, 0];
  const threshold = Math.floor(Math.fround(p) * 4294967296);
  const keep = Math.fround(1 / Math.fround(1 - Math.fround(p)));
  return [mask / 4, threshold, bits(keep), lo64(seed), hi64(seed)];
}

// Two GEMM problems' accesses ({reads, writes}: regions) are independent when neither writes
// what the other reads or writes (null: not known, never independent).
function independent(a, b) {
  if (!a || !b) return false;
  const meet = (xs, ys) => xs.some((x) => ys.some((y) => overlap(x, y)));
  return !meet(a.writes, b.reads) && !meet(a.writes, b.writes) && !meet(b.writes, a.reads);
}

function actCode(act) {
  const code = typeof act === 'string' ? ACT[act] : act;
  if (![0, 1, 2].includes(code)) throw new RangeError(`WebGPU: unknown activation ${act}`);
  return code;
}
