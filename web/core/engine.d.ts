// Types of the engine package (web/core/index.js). Two ways in:
//   createEngine()  a Worker owns the WebAssembly module; every call is async (EngineClient).
//   loadEngine()    the module on this thread; calls are synchronous (Engine). For small
//                   computations on the page (attention maps, softmax, positional tables).
// Every engine error (bad config, out-of-range token, malformed checkpoint, ...) arrives as a JS
// Error carrying the engine's message: a TypeError for an argument of the wrong type (a string
// where token ids belong, an array-like that is not an array), a RangeError for one out of
// range (a size, a step count, an id outside the vocabulary), an Error otherwise. The engine is
// unchanged and usable afterwards. A session call whose estimated work exceeds the engine's bound
// is refused, before any work, with an Error naming the call, its cost, the bound and what to ask
// for instead (docs/limits.md, "Work per call"). Limits: README, "Limits".

export type Build = 'wasm' | 'wasm-mt' | 'wasm-relaxed';

// What the registry says of a model kind: its capabilities and its training defaults.
export interface KindInfo {
  name: string;
  recurrent: boolean;     // a recurrent encoder-decoder (RNNsearch, RNNencdec, Luong, pointer)
  packs_source: boolean;  // source then target in one sequence (the LM)
  takes_points: boolean;  // reads point sets, not token ids (pointer)
  aligns: boolean;        // its first attention map is the target-to-source alignment
  train: { lr: number; batch: number; clip: number; schedule: 'noam' | 'constant' };
}

export interface EngineInfo {
  build: Build;            // which module loaded: single-thread SIMD or pthreads
  simd: boolean;
  threads: boolean;        // true for the pthread build
  hardwareThreads: number;
  kernelThreads: number;
  heapBytes: number;       // current WebAssembly memory
  maxHeapBytes: number;    // the growth limit
  heapUsedBytes: number;   // bytes the engine's allocator has handed out
  loadMs: number;          // fetch + compile + instantiate
  sessions: boolean;       // whether model sessions are compiled in
}

export interface AttentionOptions {
  B?: number; H?: number; T: number; S?: number; Dk: number; Dv?: number;
  causal?: boolean;
  keyPad?: Uint8Array | number[];  // [B,S], nonzero = masked key
}
// timeAttention: softmax(QKᵀ/√d_k)V on random inputs kept in the wasm heap, repeated until
// minSeconds (default 0.02) have passed; the result is milliseconds per call (best 2 ms round).
export interface AttentionTimingOptions {
  B?: number; H?: number; T: number; S?: number; Dk: number;
  causal?: boolean; minSeconds?: number;
}
export interface AttentionResult {
  out: Float32Array;      // [B,H,T,Dv]
  weights: Float32Array;  // [B,H,T,S]
}
export interface SoftmaxOptions { rows?: number; cols?: number; temperature?: number }
export interface ContentAddress { similarity: Float32Array; weights: Float32Array }  // [N] each

// A session config: the model (any kind the CLI knows), the task, the training options.
// Same JSON as the CLI's config files; see the CLI's `attn --help` for every key. Its `train`
// object: batch, lr, lr_factor, warmup, schedule ('noam' | 'constant'), clip, label_smoothing,
// and word_dropout (0 to 0.9: source and decoder-input tokens replaced by the id `unk`, which
// it then needs; token models only); threads (default: the engine's kernel threads, in the
// pthread build its pool size) and thread_split ('kernels' by default, 'ranks' or 'auto'): how
// train() uses them (SessionInfo.threads). Split kernels give the same numbers on any thread
// count; ranks are faster on large batches but their numbers depend on the rank count, which a
// checkpoint with the optimizer records and a loaded session resumes on.
export type SessionConfig = Record<string, unknown>;

// How train() uses threads: N replicas on row shares of the batch ('ranks', kernel_threads 1),
// every kernel call split ('kernels'), or one thread ('one'); the cost model's estimated
// speed-ups and the reason for the choice.
export interface ThreadPlan {
  mode: 'ranks' | 'kernels' | 'one';
  ranks: number; kernel_threads: number;
  ranks_speedup: number; kernels_speedup: number;
  why: string;
}

export interface SessionInfo {
  config: SessionConfig;
  model: string;       // model kind
  task: string | null; // task name
  params: number;      // parameter count
  step: number;        // optimizer steps taken so far
  srcVocab: number; tgtVocab: number;
  vocabulary: { kind: 'bpe'; size: number } | null;  // text models only
  dim: number;         // float features per input of a point-set model (0: token ids)
  threads: ThreadPlan; // the plan train() runs on (fixed once it trained)
  [key: string]: unknown;
}

export interface TrainResult {          // one train() call
  losses: Float32Array;                 // one per step
  tokens: number;                       // target tokens seen
  step: number;                         // step count after the call
  lr: number; gradNorm: number;
}
export interface EvalResult {
  loss: number; tokenAccuracy: number; sequenceAccuracy: number; samples: number;
  // RNNsearch on a task with gold alignments (dates, phrases): alignment error rate (Och & Ney)
  // of the argmax links on the same held-out draw, 0 = every link gold.
  aer?: number;
  // RNNsearch/RNNencdec on dates or phrases: source length -> sequence accuracy; point tasks:
  // set size n -> exact-answer share.
  perLength?: Record<string, number>;
  // Point tasks (the pointer network; `samples` sets per n): convex-hull: mean predicted-polygon
  // area / true hull area (0 for a self-crossing answer) and the share of such answers; tsp:
  // mean predicted and optimal tour lengths.
  areaCoverage?: number; invalidRate?: number; tourLength?: number; optimalTourLength?: number;
}

export interface AttentionMapData {
  name: string;          // e.g. "encoder.layers.0.self_attn", "bahdanau", "pointer"
  B: number; H: number; T: number; S: number;
  weights: Float32Array; // [B,H,T,S]; Bahdanau alignments and pointer distributions have H = 1
  // with InspectOptions.parts, on multi-head maps: head size and the heads' inputs
  hs?: number;
  q?: Float32Array;      // [B,H,T,hs]
  k?: Float32Array;      // [B,H,S,hs]
  v?: Float32Array;      // [B,H,S,hs]
}
// One row of a traced pass (InspectOptions.trace): its n tokens (the LM's packed row: source,
// then <s> and the target), the position whose logits are the first target's, and every
// activation at all n positions in computation order, e.g. {name: 'decoder.layers.0.self_attn.
// scores', dims: [H, n, n], values} (scores q·kⱼ/√hs, -Infinity where the causal mask hides j).
export interface TracedTensor { name: string; dims: number[]; values: Float32Array }
export interface ForwardTrace { tokens: Int32Array; first: number; tensors: TracedTensor[] }
export interface Inspection {
  logits: Float32Array;  // [B,T,V]
  B: number; T: number; V: number;
  maps: AttentionMapData[];
  traces?: ForwardTrace[];  // with InspectOptions.trace, one per row
}
// One translation: the source and output ids with their BPE pieces, and the cross-attention of
// each decoder layer over the source ([1,H,T,S]; T = output length + 1, the last row is </s>).
export interface Translation {
  text: string;
  src: { ids: Int32Array; pieces: string[] };
  out: { ids: Int32Array; pieces: string[] };
  cross: { name: string; H: number; T: number; S: number; weights: Float32Array }[];
}
export interface Examples { src: number[][]; tgt: number[][]; srcText: string[]; tgtText: string[] }
export type Rows = number[][] | Int32Array[];
export interface DecodeOptions { beam?: number; maxLen?: number; alpha?: number }
// causal: false computes a Transformer decoder's self-attention without its causal mask for this
// one pass (key padding still applies); training and decoding always stay causal.
export interface InspectOptions {
  causal?: boolean;                   // false: lift a Transformer decoder's causal mask (this pass)
  parts?: boolean;                    // also each multi-head map's q, k, v per head
  trace?: boolean;                    // also every activation of each row (decoder-only, encoder-only)
  mute?: Record<string, number[]>;    // sublayer name (a map's name) -> heads zeroed for this pass
}

// Pointer networks (model "pointer"; tasks convex-hull, tsp, and sort with model 'pointer'; a
// point task without a model gets it): config {model: {model: 'pointer', hidden, glimpse,
// embed, attn, encoder: 'lstm' | 'rpw', process_steps}, task, task_options: {n_min, n_max},
// seed, train: {batch, lr, clip}}. Their sessions (kind 'pointer', dim > 0) take point sets.
export interface PointerDecode {
  n: number;
  order: number[];       // chosen inputs (0-based), end excluded
  probs: Float32Array;   // [steps, n+1]: each output step's distribution; column n is "end"
  steps: number;
}
export interface PointExamples { n: number; dim: number; x: Float32Array; target: number[][] }  // x [count,n,dim]

// ---- Worker-backed client (async) ----

export interface ProgressEvent {
  event: 'progress'; session: number;
  step: number; loss: number; losses: number[]; tokensPerSec: number; lr: number;
  done: number; total: number;      // steps done / asked in this train() call
  readBack?: number;                 // WebGPU: the step of the last state read back (a lost device's run goes on from it)
}
export interface SnapshotEvent {
  event: 'snapshot'; session: number; step: number; data: Inspection;
  evaluation?: EvalResult & { step: number };  // the latest asked-for evaluation (snapshot.evaluate)
}
export interface StateEvent { event: 'state'; session: number; state: 'training' | 'paused' | 'idle' }

export interface TrainOptions {
  chunkMs?: number;                                          // target time per chunk (50)
  // inspection while training; evaluate: also session.evaluate(samples, seed) with a snapshot
  // every evaluate.everyMs (0) and at the last step
  snapshot?: { src: Rows; tgt?: Rows; everyMs?: number; evaluate?: { samples: number; seed: number; everyMs?: number } } | null;
}
export interface TrainSummary { steps: number; losses: Float32Array; cancelled: boolean; step: number }

export declare class RemoteSession {
  readonly id: number;
  info: SessionInfo;
  state: 'training' | 'paused' | 'idle';
  on(type: 'progress', fn: (e: ProgressEvent) => void): () => void;
  on(type: 'snapshot', fn: (e: SnapshotEvent) => void): () => void;  // latest wins
  on(type: 'state', fn: (e: StateEvent) => void): () => void;
  train(steps: number, opts?: TrainOptions): Promise<TrainSummary>;
  pause(): void;
  resume(): void;
  cancel(): void;                        // train() resolves with cancelled: true
  trainBatch(src: Rows, tgt?: Rows): Promise<TrainResult>;
  evaluate(samples?: number, seed?: number): Promise<EvalResult>;
  decode(src: Rows, opts?: DecodeOptions): Promise<number[][]>;
  inspect(src: Rows, tgt?: Rows, opts?: InspectOptions): Promise<Inspection>;
  examples(n?: number, opts?: { split?: 'train' | 'test'; seed?: number }): Promise<Examples>;
  save(opts?: { optimizer?: boolean }): Promise<Uint8Array>;           // .safetensors bytes
  translate(text: string, opts?: DecodeOptions): Promise<Translation>;
  encodeText(text: string): Promise<Int32Array>;
  decodeText(ids: number[] | Int32Array): Promise<string>;
  pieces(ids: number[] | Int32Array): Promise<string[]>;
  refreshInfo(): Promise<SessionInfo>;
  // Pointer sessions (kind 'pointer'): decode(x, n) -> PointerDecode, inspect(x, n?) (snapshots:
  // {src: x}; n defaults to x.length / dim), examples(count, {n, split, seed}) -> PointExamples.
  dispose(): Promise<void>;
}

// One sentence under a language-model checkpoint: its tokens (then </s>) and natural-log probabilities.
export interface SentenceScore {
  tokens: string[];
  ids: Int32Array;
  logprobs: Float32Array;
  total: number;
}

export declare class EngineClient {
  info: EngineInfo;
  on(type: 'progress' | 'snapshot' | 'state', fn: (e: ProgressEvent | SnapshotEvent | StateEvent) => void): () => void;
  setThreads(n: number): Promise<number>;  // kernel threads in the pthread build (n <= 0: all cores)
  setBackend(choice: 'auto' | 'webgpu' | 'wasm'): Promise<{ choice: string }>;  // for models created next
  loseGpu(): Promise<boolean>;           // destroys the Worker's GPU device: its runs go on in wasm
  attention(q: Float32Array, k: Float32Array, v: Float32Array, opts: AttentionOptions): Promise<AttentionResult>;
  timeAttention(opts: AttentionTimingOptions): Promise<number>;  // ms per call, timed in the engine
  softmax(scores: Float32Array | number[], opts?: SoftmaxOptions): Promise<Float32Array>;
  positionalEncoding(L: number, C: number): Promise<Float32Array>;  // [L,C]
  contentAddress(memory: Float32Array, key: Float32Array, beta?: number): Promise<ContentAddress>;
  estimateBytes(config: SessionConfig): Promise<number>;
  modelKinds(): Promise<string[]>;
  kindInfo(): Promise<Record<string, KindInfo>>;
  taskNames(): Promise<string[]>;
  lmScore(checkpoint: Uint8Array, sentences: string[]): Promise<SentenceScore[]>;
  createSession(config: SessionConfig): Promise<RemoteSession>;
  loadSession(bytes: Uint8Array, overrides?: SessionConfig): Promise<RemoteSession>;
  terminate(): void;
}

// Engine file name ('attnlab.mjs', 'attnlab.wasm', 'attnlab-relaxed.mjs', ...) -> URL to load it
// from, instead of engine/<name> under `base`.
export type EngineFiles = Record<string, string>;
export interface CreateEngineOptions {
  base?: string;                  // the folder holding engine/ (default: the page's base URL)
  threads?: 'auto' | boolean;
  files?: EngineFiles | null;
  // where new models train: 'auto' (each model timed on both, the faster), 'webgpu', 'wasm'
  backend?: 'auto' | 'webgpu' | 'wasm';
  worker?: () => Worker;          // starts a Worker running the package's worker module
}
export declare function createEngine(opts?: CreateEngineOptions): Promise<EngineClient>;
export declare function connectEngine(port: MessagePort, opts?: { base?: string; threads?: 'auto' | boolean; files?: EngineFiles | null }): Promise<EngineClient>;
// A module Worker for `url`; from another origin, a same-origin Blob Worker that imports it.
export declare function moduleWorker(url: string | URL): Worker;

// ---- Direct engine (sync, this thread) ----

// One class for every model kind. Sessions of the pointer network (kind 'pointer', dim > 0)
// take point sets: decode(x, n?) -> PointerDecode, inspect(x, n?) -> PointerDecode,
// examples(count, {n, split, seed}) -> PointExamples; they train on their task only.
export interface Session {
  kind: string;                          // the model kind; 'pointer' for point-set models
  dim: number;                           // float features per input (0: token ids)
  info(): SessionInfo;
  train(steps: number): TrainResult;
  trainBatch(src: Rows, tgt?: Rows): TrainResult;
  evaluate(samples?: number, seed?: number): EvalResult;
  decode(src: Rows, opts?: DecodeOptions): number[][];
  inspect(src: Rows, tgt?: Rows, opts?: InspectOptions): Inspection;
  examples(n?: number, opts?: { split?: 'train' | 'test'; seed?: number }): Examples;
  save(opts?: { optimizer?: boolean }): Uint8Array;
  // Text models (info().vocabulary = {kind: 'bpe', size}; checkpoints of attn train --task parallel)
  translate(text: string, opts?: DecodeOptions): Translation;
  encodeText(text: string): Int32Array;     // BPE ids, no <s>/</s>
  decodeText(ids: number[] | Int32Array): string;
  pieces(ids: number[] | Int32Array): string[];  // vocabulary piece of each id ('▁' starts a word)
  dispose(): void;
}

export interface Engine {
  info(): EngineInfo;
  setThreads(n: number): number;
  attention(q: Float32Array, k: Float32Array, v: Float32Array, opts: AttentionOptions): AttentionResult;
  timeAttention(opts: AttentionTimingOptions): number;
  softmax(scores: Float32Array | number[], opts?: SoftmaxOptions): Float32Array;
  positionalEncoding(L: number, C: number): Float32Array;
  contentAddress(memory: Float32Array, key: Float32Array, beta?: number): ContentAddress;
  estimateBytes(config: SessionConfig): number;
  createSession(config: SessionConfig): Session;
  loadSession(bytes: Uint8Array, overrides?: SessionConfig): Session;
  modelKinds(): string[];
  kindInfo(): Record<string, KindInfo>;  // per kind, from its registry row
  taskNames(): string[];
  lmScore(checkpoint: Uint8Array, sentences: string[]): SentenceScore[];
}

export declare function loadEngine(base?: string, opts?: { threads?: 'auto' | boolean; relaxed?: 'auto' | false; files?: EngineFiles | null }): Promise<Engine>;
export declare function pickBuild(threads?: 'auto' | boolean, relaxed?: 'auto' | false): Build;
export declare function threadsAvailable(): boolean;
// WebAssembly.validate of a one-instruction f32x4.relaxed_madd module.
export declare function relaxedSimdAvailable(): boolean;
// Cross-origin isolation through web/public/coi-sw.js (reloads the page once; see coi.js).
export declare function crossOriginIsolate(opts?: { base?: string; script?: string }):
  Promise<{ isolated: true; via: 'headers' | 'service-worker' } |
          { isolated: false; reason: 'file' | 'insecure' | 'no-sw' | 'iframe' | 'no-effect' | 'error'; error?: string }>;

// ---- Persistence ----

export interface StoredModel { name: string; size: number; savedAt: number; meta: Record<string, unknown> }
export declare class ModelStore {
  constructor(idb?: IDBFactory, name?: string);
  save(name: string, bytes: Uint8Array, meta?: Record<string, unknown>): Promise<StoredModel>;
  load(name: string): Promise<(StoredModel & { bytes: Uint8Array }) | null>;
  list(): Promise<StoredModel[]>;                 // newest first, without bytes
  remove(name: string): Promise<void>;
  close(): void;
}
export declare function readCheckpoint(file: Blob & { name?: string }): Promise<Uint8Array>;
export declare function downloadCheckpoint(bytes: Uint8Array, filename?: string): void;
export declare function checkpointBlob(bytes: Uint8Array): Blob;
