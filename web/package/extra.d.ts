
// ---- The npm package (attnlab) ----
// In the browser and in bundlers, createEngine()/loadEngine() find the engine files shipped in
// the package (engineFiles()); pass `base` (a folder holding engine/) to load them from
// elsewhere. Under Node.js the package loads engine/attnlab-node.cjs (single thread): base,
// threads and files are ignored, createEngine() runs the engine in a worker_threads Worker.
// Browser entry only (not exported under Node.js): engineFiles, moduleWorker, expectedEngine,
// crossOriginIsolate, downloadCheckpoint.
export declare const version: string;          // the package's semver
export declare function engineFiles(): EngineFiles;  // browser entry only
// What a Worker started now would run, and a short label for an engine ("WebAssembly SIMD128 ·
// 4 threads · FMA"), as the guide's engine line shows it (browser entry).
export declare function expectedEngine(): { build: Build; threads: number; fma: boolean };
export declare function engineLabel(info?: { build?: Build; threads?: number; kernelThreads?: number; poolSize?: number; fma?: boolean }): string;
