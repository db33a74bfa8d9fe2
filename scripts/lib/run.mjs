// Small process helpers shared by the npm scripts: run a command with inherited or captured
// output, and fail with one clear line when it does not succeed.
import { spawn } from 'node:child_process';

// opts.timeoutMs: past it the command's whole process group is killed and the result has
// code 124 and timedOut: true (a hung test process must fail its stage, not stall the run).
export function run(cmd, args, opts = {}) {
  const { timeoutMs, ...spawnOpts } = opts;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: opts.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      ...(timeoutMs ? { detached: true } : {}),
      ...spawnOpts,
    });
    let out = '',
      timedOut = false;
    const timer =
      timeoutMs &&
      setTimeout(() => {
        timedOut = true;
        const line = `attnlab: ${cmd} ${args.slice(0, 3).join(' ')} ... did not finish within ${Math.round(timeoutMs / 1000)} s: killed\n`;
        out += line;
        process.stderr.write(line);
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, timeoutMs);
    if (opts.capture) {
      child.stdout.on('data', (d) => {
        out += d;
        if (opts.echo) process.stdout.write(d);
      });
      child.stderr.on('data', (d) => {
        out += d;
        if (opts.echo) process.stderr.write(d);
      });
    }
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: timedOut ? 124 : code, out, timedOut });
    });
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
