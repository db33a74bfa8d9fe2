// Bench rows for Transformer training: ms per step (forward + backward + Adam) of the
// encoder-decoder at configs S and M, natively (`build/native/attn bench`) next to PyTorch's
// nn.Transformer on the CPU (scripts/bench/transformer_torch.py, Debian's /usr/bin/python3),
// at 1 and 2 threads, in the same run. Rows follow build/bench.json's shape
// {name, unit, attnlab, peer, peer_value, ratio}; ratio = peer time / attnlab time (> 1: faster).
// Run alone: `node scripts/bench/transformer.mjs` prints the rows.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const json = (cmd, args) => JSON.parse(execFileSync(cmd, args, { cwd: root, encoding: 'utf8' }).trim());

export function transformerRows({ seconds = 2, threads = [1, 2], configs = ['S', 'M'] } = {}) {
  const attn = path.join(root, 'build', 'native', 'attn');
  if (!existsSync(attn)) throw new Error('build/native/attn is missing: build the native engine first');
  const rows = [];
  for (const config of configs) {
    for (const t of threads) {
      const ours = json(attn, ['bench', '--config', config, '--threads', String(t), '--seconds', String(seconds)]);
      const peer = json('/usr/bin/python3', ['scripts/bench/transformer_torch.py', '--config', config,
        '--threads', String(t), '--seconds', String(seconds)]);
      rows.push({
        name: `Transformer training step, config ${config}, ${t} thread${t > 1 ? 's' : ''}`,
        unit: 'ms',
        attnlab: Number(ours.ms_per_step.toFixed(2)),
        peer: `PyTorch ${peer.torch} nn.Transformer (CPU)`,
        peer_value: Number(peer.ms_per_step.toFixed(2)),
        ratio: Number((peer.ms_per_step / ours.ms_per_step).toFixed(2)),
      });
    }
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(transformerRows(), null, 2));
}
