// Bench rows for Transformer training: ms per step (forward + backward + Adam) of the
// encoder-decoder at configs S, M and base (the paper's base model; goals in
// peers/report.mjs: >= 2x PyTorch at S, >= 1.25x at M, >= 1.1x at base), natively (`build/native/attn bench`)
// next to PyTorch's nn.Transformer on the CPU (bench/rows/transformer_torch.py, Debian's
// /usr/bin/python3, at full strength: peers/env.mjs's environment, OpenBLAS kernel named in the
// row; its OpenMP spinning bounded like our pool's, the passive-wait figure in the note at 2
// threads), at 1 and 2 threads (2 threads split as the engine plans them: attn bench's default
// --thread-split auto, as attn train's), in the same run; and each step's model FLOP/s and % of
// the peak.
// Rows follow build/bench.json's shape {name, unit, attnlab, peer, peer_value, ratio}; ratio =
// peer time / attnlab time (> 1: attnlab is faster). Run alone: `node bench/rows/transformer.mjs`.
// Also the thread split of the native step (threadSplitRows, alone: `node
// bench/rows/transformer.mjs --thread-split`): per config S, M, base and de-en (the translator's), the 1-thread step and
// the 2-thread step with each --thread-split mode (kernels: every kernel call split; ranks: two
// replicas on halves of the batch, parallel/thread_ranks.hpp; auto: the engine's cost model),
// measured in turn in one run; each row's value is the speedup 1T ms / 2T ms and names the mode
// auto chose.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerEnv, blasCore, trainStepFlops, BENCH_CONFIGS } from '../peers/env.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';

function json(cmd, args, root, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env });
  if (r.status !== 0)
    throw new Error(`${path.basename(cmd)} exited with ${r.status}: ${(r.stderr || '').trim().split('\n').pop()}`);
  const res = JSON.parse(r.stdout.trim().split('\n').pop());
  res.stderr = r.stderr;
  return res;
}

export async function rows(ctx = {}) {
  const root = ctx.root ?? path.resolve(here, '..', '..');
  const log = ctx.log ?? ((line) => console.log(line));
  const seconds = ctx.quick ? 0.5 : 2;
  // A base step takes seconds: the 5-step minimum (plus 3 warm-up steps) already fills this.
  const secondsFor = (config) => (config === 'base' ? 1 : seconds);
  const attn = path.join(root, 'build', 'native', 'attn');
  if (!existsSync(attn)) throw new Error('build/native/attn is missing: build the native engine first');
  const out = [];
  // Model FLOP utilisation: peers/env.mjs trainStepFlops (6 x weights x tokens + attention
  // 12 B C (Nenc S^2 + Ndec (T^2 + T S))), against threads x the measured one-core peak.
  const nativePeak = ctx.peak ? await ctx.peak('native') : null;
  const r2 = (x) => (x == null ? null : Number(x.toFixed(2)));
  for (const config of ['S', 'M', 'base']) {
    for (const t of [1, 2]) {
      const ours = json(
        attn,
        ['bench', '--config', config, '--threads', String(t), '--seconds', String(secondsFor(config))],
        root
      );
      let peer = null;
      try {
        peer = json(
          PYTHON,
          [
            path.join(here, 'transformer_torch.py'),
            '--config',
            config,
            '--threads',
            String(t),
            '--seconds',
            String(secondsFor(config)),
          ],
          root,
          peerEnv(t)
        );
        peer.core = peer.openblas?.corename ?? blasCore(peer.stderr);
      } catch (e) {
        log(`transformer: PyTorch peer unavailable (${String(e.message).split('\n')[0]})`);
      }
      // At 2 threads the peer also with passive OpenMP waits (the row's figure has its spinning
      // bounded like our pool's: peers/env.mjs).
      let passive = null;
      if (peer && t > 1) {
        try {
          passive = json(
            PYTHON,
            [
              path.join(here, 'transformer_torch.py'),
              '--config',
              config,
              '--threads',
              String(t),
              '--seconds',
              String(secondsFor(config)),
            ],
            root,
            peerEnv(t, process.env, { wait: 'passive' })
          ).ms_per_step;
        } catch (e) {
          log(`transformer: PyTorch with passive waits failed (${String(e.message).split('\n')[0]})`);
        }
      }
      out.push({
        name: `Transformer training step (fwd+bwd+Adam), config ${config}, ${t} thread${t > 1 ? 's' : ''}`,
        unit: 'ms',
        attnlab: Number(ours.ms_per_step.toFixed(2)),
        peer: peer ? `PyTorch ${peer.torch} nn.Transformer CPU (OpenBLAS ${peer.core ?? 'kernel unknown'})` : null,
        peer_value: peer ? Number(peer.ms_per_step.toFixed(2)) : null,
        ratio: peer ? Number((peer.ms_per_step / ours.ms_per_step).toFixed(2)) : null,
        // Process CPU time per step (all threads): steadier than wall time on a shared machine.
        attnlab_cpu_ms: Number(ours.cpu_ms_per_step.toFixed(2)),
        peer_cpu_ms: peer ? Number(peer.cpu_ms_per_step.toFixed(2)) : null,
        peer_blas_core: peer?.core ?? null,
        // The same ratio in process CPU time: what the wall ratio would be on an idle machine
        // when both sides keep their threads busy (a shared machine stretches wall time).
        cpu_ratio: peer ? r2(peer.cpu_ms_per_step / ours.cpu_ms_per_step) : null,
        peer_passive: r2(passive),
        note:
          passive != null
            ? `PyTorch with passive waits ${r2(passive)} ms (ratio ${r2(passive / ours.ms_per_step)})`
            : null,
      });
      const gflop = trainStepFlops(BENCH_CONFIGS[config]) * 1e-9;
      const mine = gflop / (ours.ms_per_step * 1e-3);
      const theirs = peer ? gflop / (peer.ms_per_step * 1e-3) : null;
      out.push({
        name: `model FLOP/s, training config ${config} (${gflop.toFixed(2)} GFLOP/step), native ${t}T`,
        unit: 'GFLOP/s',
        attnlab: r2(mine),
        pct_peak: nativePeak ? Number(((100 * mine) / (t * nativePeak)).toFixed(1)) : null,
        peer: peer ? `PyTorch ${peer.torch} (same formula)` : null,
        peer_value: r2(theirs),
        ratio: theirs ? r2(mine / theirs) : null,
        peer_pct_peak: theirs && nativePeak ? Number(((100 * theirs) / (t * nativePeak)).toFixed(1)) : null,
        // Per CPU-second (model FLOPs / process CPU time) against one core's peak: steadier than
        // wall time on a shared machine.
        cpu_pct_peak: nativePeak
          ? Number(((100 * gflop) / (ours.cpu_ms_per_step * 1e-3) / nativePeak).toFixed(1))
          : null,
        peer_cpu_pct_peak:
          peer && nativePeak ? Number(((100 * gflop) / (peer.cpu_ms_per_step * 1e-3) / nativePeak).toFixed(1)) : null,
      });
    }
  }
  return out.concat(await threadSplitRows({ ...ctx, root }));
}

// 2 threads against 1 for each --thread-split mode, the configs' steps measured in turn.
export async function threadSplitRows(ctx = {}) {
  const root = ctx.root ?? path.resolve(here, '..', '..');
  const attn = path.join(root, 'build', 'native', 'attn');
  if (!existsSync(attn)) throw new Error('build/native/attn is missing: build the native engine first');
  const seconds = (config) => (config === 'base' ? 1 : ctx.quick ? 0.5 : 2);
  const r2 = (x) => (x == null ? null : Number(x.toFixed(2)));
  const out = [];
  // de-en: the guide's translator (2+2 layers, d_model 256, vocab 3000 tied, 2,048-token batches)
  for (const config of ['S', 'M', 'base', 'de-en']) {
    const step = (threads, split) =>
      json(
        attn,
        [
          'bench',
          '--config',
          config,
          '--threads',
          String(threads),
          '--thread-split',
          split,
          '--seconds',
          String(seconds(config)),
        ],
        root
      );
    const one = step(1, 'kernels');
    for (const split of ['kernels', 'ranks', 'auto']) {
      const two = step(2, split);
      out.push({
        name: `thread split of a training step, config ${config}: 2 threads (${split}) / 1 thread`,
        unit: 'x',
        attnlab: r2(one.ms_per_step / two.ms_per_step),
        // the peer is the engine itself at 1 thread: its value in ms, the ratio the speedup
        peer: '1 thread (same engine)',
        peer_value: r2(one.ms_per_step),
        ratio: r2(one.ms_per_step / two.ms_per_step),
        ms_1t: r2(one.ms_per_step),
        ms_2t: r2(two.ms_per_step),
        // the same speedup in process CPU time would hide the split's gain: wall time only
        mode: two.split,
        thread_ranks: two.thread_ranks,
        kernel_threads: two.kernel_threads,
        note: split === 'auto' ? `auto chose ${two.split}: ${two.plan.why}` : null,
      });
    }
  }
  return out;
}

if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) &&
  process.argv.includes('--thread-split')
) {
  console.log(JSON.stringify(await threadSplitRows(), null, 2));
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await rows(), null, 2));
}
