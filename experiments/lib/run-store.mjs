// Where a long training run lives, so that it survives the checkout it was started from: a named
// folder under the user's cache ($ATTNLAB_RUNS, else $XDG_CACHE_HOME/attnlab/runs, else
// ~/.cache/attnlab/runs), holding the run's checkpoints, wall.json, its log, the training file
// it reads, and its own copy of the `attn` binary (every sitting runs the same code, whatever
// the checkout has become). The checkout's build/ only links to it. Starting the same command
// again continues the newest checkpoint; a lost folder costs only time (the run starts over).
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export function runsRoot(env = process.env) {
  if (env.ATTNLAB_RUNS) return path.resolve(env.ATTNLAB_RUNS);
  const cache = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache');
  return path.join(cache, 'attnlab', 'runs');
}

// A run's name becomes a folder name: letters, digits, '.', '-', '_' only.
export function checkName(name) {
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name))
    throw new Error(`run name ${JSON.stringify(name)}: letters, digits, '.', '-' and '_' (at most 100)`);
  return name;
}

export const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

// The CPU a sitting ran on: its model name and widest vector extension.
export function cpuName() {
  let flags = '';
  try {
    flags = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? '';
  } catch {
    /* not Linux: the model name alone */
  }
  const isa = / avx512f( |$)/.test(flags) ? 'AVX-512' : / avx2( |$)/.test(flags) ? 'AVX2' : '';
  const model = os.cpus()[0]?.model?.trim() || 'unknown CPU';
  return `${model}${isa ? `, ${isa}` : ''}, ${os.cpus().length} cores`;
}

// The run's folder (made if missing) and its attn binary: the run's own copy, taken from
// `binary` the first time (or again with replace: after a copy that cannot run on this CPU).
// link: a path in the checkout made a symbolic link to the folder (an existing real folder
// there is left alone).
export function openRun({ name, binary, link, env = process.env, replace = false }) {
  const dir = path.join(runsRoot(env), checkName(name));
  const kept = keepBinary(dir, binary, { replace });
  if (link) linkTo(link, dir);
  return { dir, ...kept };
}

// DIR/bin/attn: a run folder's own copy of `binary`, taken the first time (or again with replace:
// after a copy that cannot run on this CPU), and its sha256.
export function keepBinary(dir, binary, { replace = false } = {}) {
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  const attn = path.join(dir, 'bin', 'attn');
  if (replace || !existsSync(attn)) {
    if (!existsSync(binary)) throw new Error(`${binary} is missing: build it first (npm run build:engine)`);
    const tmp = `${attn}.tmp.${process.pid}`;
    copyFileSync(binary, tmp);
    chmodSync(tmp, 0o755);
    renameSync(tmp, attn);
  }
  return { attn, binarySha256: sha256(attn) };
}

// `link` made a symbolic link to `dir` (made if missing); an existing real folder at `link` is
// left alone (and used as it is).
export function linkRun(link, dir) {
  mkdirSync(dir, { recursive: true });
  linkTo(link, dir);
}

function linkTo(link, dir) {
  let st = null;
  try {
    st = lstatSync(link);
  } catch {
    /* nothing there yet */
  }
  if (st && !st.isSymbolicLink()) return;
  if (st && readlinkSync(link) === dir) return;
  if (st) unlinkSync(link);
  mkdirSync(path.dirname(link), { recursive: true });
  symlinkSync(dir, link);
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
};

// One sitting at a time per run: DIR/pid holds the live driver's process id. Throws naming the
// other process when one holds it; a stale file (its process gone) is taken over. Returns a
// release function (also called at exit).
export function lockRun(dir) {
  const file = path.join(dir, 'pid');
  for (let tries = 0; tries < 2; ++tries) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      const release = () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid))
        throw new Error(`run ${dir} is already training (process ${pid}); its log: ${path.join(dir, 'log.txt')}`);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`cannot lock ${file}`);
}

export function runningPid(dir) {
  try {
    const pid = Number(readFileSync(path.join(dir, 'pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

// Starts `node script args` detached at the lowest priority (nice 19), its output appended to
// DIR/log.txt, and returns its process id; the caller exits at once while the run goes on.
export function detach({ dir, script, args, cwd }) {
  const log = openSync(path.join(dir, 'log.txt'), 'a');
  writeFileSync(log, `\n== ${new Date().toISOString()} nice -n 19 node ${script} ${args.join(' ')}\n`);
  const p = spawn('nice', ['-n', '19', process.execPath, script, ...args], {
    cwd,
    detached: true,
    stdio: ['ignore', log, log],
  });
  p.unref();
  closeSync(log);
  lowerGroup(p.pid);
  return p.pid;
}

// A detached process leads a session of its own, and where the kernel groups sessions for
// scheduling (autogroup), nice acts only inside the group: the run would still take a whole share
// of the machine beside an interactive session's builds. The group's own nice value is what
// yields to them (best effort: no /proc, or another kernel, leaves nice alone).
export function lowerGroup(pid, value = 19) {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(value));
    return true;
  } catch {
    return false;
  }
}
