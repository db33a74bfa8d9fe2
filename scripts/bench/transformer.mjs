// Bench rows for Transformer training: ms per step (forward + backward + Adam) of the
// encoder-decoder at configs S, M and base (the paper's base model; the goal there is within
// 1.5x of PyTorch at the same threads, ratio >= 0.67), natively (`build/native/attn bench`)
// next to PyTorch's nn.Transformer on the CPU (scripts/bench/transformer_torch.py, Debian's
// /usr/bin/python3, OpenBLAS limited to the same threads), at 1 and 2 threads, in the same run.
// Rows follow build/bench.json's shape {name, unit, attnlab, peer, peer_value, ratio}; ratio =
// peer time / attnlab time (> 1: attnlab is faster). Run alone: `node scripts/bench/transformer.mjs`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';

function json(cmd, args, root, env) {
  const out = execFileSync(cmd, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  return JSON.parse(out.trim().split('\n').pop());
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
  for (const config of ['S', 'M', 'base']) {
    for (const t of [1, 2]) {
      const ours = json(attn, ['bench', '--config', config, '--threads', String(t), '--seconds', String(secondsFor(config))], root);
      let peer = null;
      try {
        peer = json(PYTHON, [path.join(here, 'transformer_torch.py'), '--config', config, '--threads', String(t),
          '--seconds', String(secondsFor(config))], root, { OMP_NUM_THREADS: String(t), OPENBLAS_NUM_THREADS: String(t) });
      } catch (e) {
        log(`transformer: PyTorch peer unavailable (${String(e.message).split('\n')[0]})`);
      }
      out.push({
        name: `Transformer training step (fwd+bwd+Adam), config ${config}, ${t} thread${t > 1 ? 's' : ''}`,
        unit: 'ms',
        attnlab: Number(ours.ms_per_step.toFixed(2)),
        peer: peer ? `PyTorch ${peer.torch} nn.Transformer CPU` : null,
        peer_value: peer ? Number(peer.ms_per_step.toFixed(2)) : null,
        ratio: peer ? Number((peer.ms_per_step / ours.ms_per_step).toFixed(2)) : null,
        // Process CPU time per step (all threads): steadier than wall time on a shared machine.
        attnlab_cpu_ms: Number(ours.cpu_ms_per_step.toFixed(2)),
        peer_cpu_ms: peer ? Number(peer.cpu_ms_per_step.toFixed(2)) : null,
      });
    }
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await rows(), null, 2));
}
