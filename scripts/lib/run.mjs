// Small process helpers shared by the npm scripts: run a command with inherited or captured
// output, and fail with one clear line when it does not succeed.
import { spawn } from 'node:child_process';

export function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: opts.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', ...opts });
    let out = '';
    if (opts.capture) {
      child.stdout.on('data', (d) => { out += d; if (opts.echo) process.stdout.write(d); });
      child.stderr.on('data', (d) => { out += d; if (opts.echo) process.stderr.write(d); });
    }
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

export async function must(cmd, args, opts = {}) {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    if (opts.capture && !opts.echo) process.stderr.write(r.out);
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.code}`);
  }
  return r;
}
