// Bench rows for the guide's German→English translator (experiments/translator.mjs):
//   - training throughput of its architecture (2+2 layers, d_model 256, 4 heads, d_ff 512,
//     shared vocab 3000 with a tied generator, 2,048-token batches), target tokens per second at 2 threads,
//     natively (`attn bench --config de-en`) next to PyTorch's nn.Transformer of the same size
//     and threads (bench/rows/transformer_torch.py --config de-en, at full strength:
//     peers/env.mjs), in the same run;
//   - translation latency, beam 4 (alpha 0.6), ms per sentence over the page's 40 held-out
//     examples, of the shipped model in wasm (node, 1 thread; what the page's Worker runs)
//     and natively (1 thread, `attn translate --input`), same sentences, same tokens.
// Rows follow build/bench.json's shape; ratio > 1: attnlab's row is better.
// Run alone: `node bench/rows/translate.mjs`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerEnv, blasCore } from '../peers/env.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';

function run(cmd, args, root, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env, maxBuffer: 1 << 26 });
  if (r.status !== 0)
    throw new Error(`${path.basename(cmd)} exited with ${r.status}: ${(r.stderr || '').trim().split('\n').pop()}`);
  return r;
}
const lastJson = (r) => ({ ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr });

export async function rows(ctx = {}) {
  const root = ctx.root ?? path.resolve(here, '..', '..');
  const log = ctx.log ?? ((line) => console.log(line));
  const attn = path.join(root, 'build', 'native', 'attn');
  const model = path.join(root, 'web', 'public', 'models', 'translate-de-en.safetensors');
  const examples = path.join(root, 'web', 'public', 'models', 'translate-de-en.examples.json');
  const out = [];
  const seconds = ctx.quick ? 1 : 4;

  // training throughput, 2 threads
  const ours = lastJson(
    run(attn, ['bench', '--config', 'de-en', '--threads', '2', '--seconds', String(seconds)], root)
  );
  let peer = null;
  try {
    peer = lastJson(
      run(
        PYTHON,
        [path.join(here, 'transformer_torch.py'), '--config', 'de-en', '--threads', '2', '--seconds', String(seconds)],
        root,
        peerEnv(2)
      )
    );
    peer.core = peer.openblas?.corename ?? blasCore(peer.stderr);
  } catch (e) {
    log(`translate: PyTorch peer unavailable (${String(e.message).split('\n')[0]})`);
  }
  const tokens = ours.tokens_per_step;
  const tps = (ms) => Math.round(tokens / (ms * 1e-3));
  out.push({
    name: 'translator training (de-en: 2+2 layers, d_model 256, d_ff 512, vocab 3000 tied, 2,048-token batches), 2 threads',
    unit: 'target tokens/s',
    attnlab: tps(ours.ms_per_step),
    peer: peer
      ? `PyTorch ${peer.torch} nn.Transformer CPU, 2 threads (OpenBLAS ${peer.core ?? 'kernel unknown'})`
      : null,
    peer_value: peer ? tps(peer.ms_per_step) : null,
    ratio: peer ? Number((peer.ms_per_step / ours.ms_per_step).toFixed(2)) : null,
    cpu_ratio: peer ? Number((peer.cpu_ms_per_step / ours.cpu_ms_per_step).toFixed(2)) : null,
  });

  // translation latency: native vs wasm on the same sentences
  if (!existsSync(model) || !existsSync(examples)) {
    log('translate: no shipped translator model (npm run reproduce -- --only translate-de-en)');
    return out;
  }
  const pairs = JSON.parse(readFileSync(examples, 'utf8')).pairs.slice(0, ctx.quick ? 10 : 40);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-bench-tr-'));
  try {
    const input = path.join(dir, 'de.txt');
    writeFileSync(input, pairs.map((p) => p.de).join('\n') + '\n');
    const nat = run(
      attn,
      ['translate', '--checkpoint', model, '--input', input, '--beam', '4', '--threads', '1'],
      root
    );
    const nativeMs = Number(nat.stderr.match(/\(([\d.]+) ms per sentence/)[1]);
    const nativeTokens = nat.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).tokens);
    const w = lastJson(
      run(
        process.execPath,
        ['--no-experimental-fetch', path.join(here, '..', 'peers', 'translate_runner.mjs'), input],
        root
      )
    );
    const same = w.tokens.filter((t, i) => JSON.stringify(t) === JSON.stringify(nativeTokens[i])).length;
    out.push({
      name: `translation latency, beam 4, ${pairs.length} held-out sentences: wasm (node, 1 thread) vs native (1 thread)`,
      unit: 'ms/sentence',
      attnlab: Number(w.ms_per_sentence.toFixed(2)),
      peer: 'attnlab native, 1 thread (same model, same sentences)',
      peer_value: Number(nativeMs.toFixed(2)),
      ratio: Number((nativeMs / w.ms_per_sentence).toFixed(2)),
      same_tokens: `${same}/${pairs.length}`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await rows(), null, 2));
}
