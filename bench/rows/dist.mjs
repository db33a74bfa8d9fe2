// Bench rows for data-parallel training: target tokens/s over all ranks at 1 and 2 ranks (one
// thread each) for configs M and base, attnlab next to PyTorch DistributedDataParallel in the
// same run, and each engine's 2-rank scaling efficiency (tokens/s at 2 ranks / 2x tokens/s at 1).
//   attnlab: `mpirun -np N --oversubscribe build/native/attn bench --config X --threads 1`; under
//            mpirun the bench step is data-parallel (cli/cmd_bench.cpp): each rank its own batch,
//            the bucketed all-reduce started during backward, finished before Adam; at 1 rank it
//            is the single-process step.
//   peer:    bench/peers/torch_ddp.py: the same model as transformer_torch.py in DDP,
//            gloo backend, N processes from torch.multiprocessing, peers/env.mjs's environment.
// Both time the same thing: zero_grad + forward + backward + all-reduce + Adam per step, the
// median over the timed steps after 3 warm-up steps, with the same per-rank batch (config M: 32
// pairs of length 32; base: 16). Goals (peers/report.mjs): attnlab's 2-rank tokens/s >= 1.5x
// DDP's, and attnlab's scaling efficiency >= 0.85 at base. The 1-minute load average is kept in
// each row: on a shared 2-core machine a second rank competes with whatever else runs, so each
// row also gives its ratio (or efficiency) in process CPU time per step (cpu_ratio).
// Run alone: `node bench/rows/dist.mjs`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerEnv, blasCore } from '../peers/env.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';

function json(cmd, args, root, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env, timeout: 600e3 });
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || '').trim().split('\n').pop();
    throw new Error(`${path.basename(cmd)} exited with ${r.status}: ${why}`);
  }
  const res = JSON.parse(r.stdout.trim().split('\n').pop());
  res.stderr = r.stderr;
  return res;
}

function mpirunArgs(ranks) {
  const args = ['-np', String(ranks), '--oversubscribe'];
  if (process.getuid && process.getuid() === 0) args.push('--allow-run-as-root');
  return args;
}

export async function rows(ctx = {}) {
  const root = ctx.root ?? path.resolve(here, '..', '..');
  const log = ctx.log ?? ((line) => console.log(line));
  const attn = path.join(root, 'build', 'native', 'attn');
  if (!existsSync(attn)) throw new Error('build/native/attn is missing: build the native engine first');
  const mpirun = spawnSync('mpirun', ['--version'], { encoding: 'utf8' });
  if (mpirun.status !== 0) {
    log('dist: mpirun not found (Debian openmpi-bin): no data-parallel rows');
    return [];
  }
  // A base step takes seconds: the 5-step minimum already fills this.
  const seconds = (config) => (config === 'base' ? 1 : ctx.quick ? 0.5 : 3);
  const r2 = (x) => (x == null ? null : Number(x.toFixed(2)));
  const load1 = () => Number(os.loadavg()[0].toFixed(2));
  const out = [];
  for (const config of ['M', 'base']) {
    const tps = { ours: {}, peer: {} },
      cpu = { ours: {}, peer: {} };
    let torchName = null;
    for (const n of [1, 2]) {
      const ours = json(
        'mpirun',
        [...mpirunArgs(n), attn, 'bench', '--config', config, '--threads', '1', '--seconds', String(seconds(config))],
        root
      );
      if (ours.ranks !== n) throw new Error(`attn bench under mpirun -np ${n} ran ${ours.ranks} ranks`);
      let peer = null;
      try {
        peer = json(
          PYTHON,
          [
            path.join(here, '..', 'peers', 'torch_ddp.py'),
            '--config',
            config,
            '--ranks',
            String(n),
            '--threads',
            '1',
            '--seconds',
            String(seconds(config)),
          ],
          root,
          peerEnv(1)
        );
        peer.core = peer.openblas?.corename ?? blasCore(peer.stderr);
        torchName = `PyTorch ${peer.torch} DDP (gloo, CPU, OpenBLAS ${peer.core ?? 'kernel unknown'})`;
      } catch (e) {
        log(`dist: PyTorch DDP peer unavailable (${String(e.message).split('\n')[0]})`);
      }
      tps.ours[n] = ours.tokens_per_s;
      tps.peer[n] = peer?.tokens_per_s ?? null;
      out.push({
        name: `data-parallel training tokens/s (fwd+bwd+all-reduce+Adam), config ${config}, ${n} rank${n > 1 ? 's' : ''} x 1 thread`,
        unit: 'tokens/s',
        attnlab: Math.round(ours.tokens_per_s),
        peer: peer ? torchName : null,
        peer_value: peer ? Math.round(peer.tokens_per_s) : null,
        ratio: peer ? r2(ours.tokens_per_s / peer.tokens_per_s) : null,
        attnlab_ms_per_step: r2(ours.ms_per_step),
        attnlab_reduce_ms: r2(ours.reduce_ms),
        peer_ms_per_step: peer ? r2(peer.ms_per_step) : null,
        // Process CPU time per step: what a rank itself spent, less disturbed by other work.
        attnlab_cpu_ms: r2(ours.cpu_ms_per_step),
        peer_cpu_ms: peer ? r2(peer.cpu_ms_per_step) : null,
        // The ratio in process CPU time per step (rank 0's): what the wall ratio would be with a
        // free core per rank, the ranks' waits for each other (spun, so counted) aside.
        cpu_ratio: peer ? r2(peer.cpu_ms_per_step / ours.cpu_ms_per_step) : null,
        load_1min: load1(),
      });
      cpu.ours[n] = ours.cpu_ms_per_step;
      cpu.peer[n] = peer?.cpu_ms_per_step ?? null;
    }
    const eff = (t) => (t[1] && t[2] ? t[2] / (2 * t[1]) : null);
    const cpuEff = (c) => (c[1] && c[2] ? c[1] / c[2] : null);
    const mine = eff(tps.ours),
      theirs = eff(tps.peer);
    out.push({
      name: `data-parallel scaling efficiency, config ${config}: tokens/s at 2 ranks / (2 x 1 rank)`,
      unit: 'efficiency',
      attnlab: r2(mine),
      peer: theirs != null ? torchName : null,
      peer_value: r2(theirs),
      // The goal is on attnlab's own efficiency (not a comparison): ratio is that efficiency.
      ratio: r2(mine),
      // The same efficiency in CPU time per step (1 rank / 2 ranks, each rank the same batch):
      // the efficiency with a free core per rank, which a machine busy with other work hides.
      cpu_ratio: r2(cpuEff(cpu.ours)),
      peer_cpu_efficiency: r2(cpuEff(cpu.peer)),
      load_1min: load1(),
    });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await rows(), null, 2));
}
