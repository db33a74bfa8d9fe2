// Child process of the kernel bench (run with node --no-experimental-fetch --no-liftoff, so both
// engines run optimized code from the first call): measures a list of
// cases in one WebAssembly engine and prints one JSON array of results on stdout.
//   node --no-experimental-fetch --no-liftoff wasm_runner.mjs attnlab|attnlab-relaxed|tfjs '<json cases>'
// attnlab: build/wasm/attnlab-node.cjs (attnlab-relaxed: build/wasm-relaxed's, node < 22 needs
// --experimental-wasm-relaxed-simd), timed inside wasm (benchGemm, benchSimdPeak,
// benchAttention); a GEMM case with percall: true is timed here instead, one JS call into wasm
// per product (benchGemmPrepare / benchGemmRun), the per-call layer TF.js's matMul is timed
// through. tfjs: @tensorflow/tfjs-core on @tensorflow/tfjs-backend-wasm (XNNPACK, SIMD
// build, 1 thread), timed here with the same rule: fastest >= 2 ms round after a warm-up call.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [engine, casesJson] = process.argv.slice(2);
const cases = JSON.parse(casesJson);

function bestPerCall(f, minSeconds) {
  f();
  const start = performance.now();
  let best = Infinity;
  do {
    let calls = 0;
    const t0 = performance.now();
    let round = 0;
    do {
      f();
      calls++;
      round = performance.now() - t0;
    } while (round < 2);
    best = Math.min(best, round / calls / 1e3);
  } while (performance.now() - start < minSeconds * 1e3);
  return best;
}

async function attnlab(relaxed) {
  const require = createRequire(import.meta.url);
  const dir = path.join(root, 'build', relaxed ? 'wasm-relaxed' : 'wasm');
  const name = relaxed ? 'attnlab-relaxed-node' : 'attnlab-node';
  const mod = await require(path.join(dir, `${name}.cjs`))({
    wasmBinary: readFileSync(path.join(dir, `${name}.wasm`)),
  });
  return cases.map((c) => {
    if (c.kind === 'peak') return mod.benchSimdPeakParts(c.seconds);
    if (c.percall) {
      const flops = mod.benchGemmPrepare(c.M, c.N, c.K, !!c.ta, !!c.tb, c.batch);
      return { gflops: (flops / bestPerCall(() => mod.benchGemmRun(), c.seconds)) * 1e-9 };
    }
    if (c.kind === 'attention') return { ms: mod.benchAttention(c.B, c.H, c.T, c.S, c.D, !!c.causal, c.seconds) };
    return { gflops: mod.benchGemm(c.M, c.N, c.K, !!c.ta, !!c.tb, c.batch, c.seconds) };
  });
}

async function tfjs() {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  wasm.setThreadsCount(1);
  wasm.setWasmPaths(`${path.join(root, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist')}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const out = cases.map((c) => {
    const shapeA = c.ta ? [c.K, c.M] : [c.M, c.K],
      shapeB = c.tb ? [c.N, c.K] : [c.K, c.N];
    const b3 = (s) => (c.batch > 1 ? [c.batch, ...s] : s);
    const a = tf.randomUniform(b3(shapeA), -1, 1),
      b = tf.randomUniform(b3(shapeB), -1, 1);
    const s = bestPerCall(() => {
      tf.matMul(a, b, !!c.ta, !!c.tb).dispose(); // the wasm backend computes synchronously
    }, c.seconds);
    a.dispose();
    b.dispose();
    return { gflops: ((2 * c.M * c.N * c.K * c.batch) / s) * 1e-9 };
  });
  return { simd, version: tf.version_core, results: out };
}

const res = engine === 'tfjs' ? await tfjs() : await attnlab(engine === 'attnlab-relaxed');
process.stdout.write(`${JSON.stringify(res)}\n`);
