// Bench rows under background load: the same measurements quiet and beside one other process,
// to see whether 2 threads still beat 1 when a core is taken (`npm run bench -- --only loaded`).
// Conditions: quiet; (a) our own single-thread training job at `nice -n 19` (`attn train` with
// the hull5 reproduction recipe, experiments/presets.json: a pointer network at hidden 256,
// cache- and memory-hungry); (b) a plain busy
// loop; (c) the same training job at normal priority. In each: native GEMM 256×128×128 A·Bᵀ
// and 512³ A·Bᵀ, and the native training step of config M, at 1 and 2 threads, with PyTorch at
// 2 threads (peers/env.mjs: bounded spin, the passive figure in the note), and, when dist/ is
// built, the Chromium training step of config M on wasm-mt at 1 and 2 threads (splitting kernels,
// and on 2 thread ranks: a session of train.thread_split 'ranks'). Each row prints
// attnlab 2T beside its own 1T (ratio = 2T speed-up over 1T) and beside PyTorch 2T.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerEnv } from '../peers/env.mjs';
import { presetArgs } from '../../experiments/presets.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';
const SHAPES = [
  [256, 128, 128],
  [512, 512, 512],
]; // M, K, N; B transposed (A·Bᵀ)
const r2 = (x) => (x == null ? null : Number(x.toFixed(2)));

function json(cmd, args, { cwd, env = process.env } = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env, maxBuffer: 1 << 24 });
  if (r.status !== 0)
    throw new Error(`${path.basename(cmd)} exited with ${r.status}: ${(r.stderr || '').trim().split('\n').pop()}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// The background process of a condition: started before its measurements, killed after.
function conditions(attn, tmp) {
  const train = [
    'train',
    ...presetArgs('hull5', {
      threads: '1',
      steps: '100000000',
      'log-every': '100000000',
      out: path.join(tmp, 'bg.safetensors'),
    }),
  ];
  return [
    { id: 'quiet', label: 'quiet', cmd: null },
    {
      id: 'nice-train',
      label: 'beside nice -n 19 attn train (ptr-net, hidden 256, 1 thread)',
      cmd: ['nice', ['-n', '19', attn, ...train]],
    },
    { id: 'busy', label: 'beside a busy loop', cmd: [process.execPath, ['-e', 'for (;;) {}']] },
    { id: 'train', label: 'beside attn train at normal priority (ptr-net, hidden 256, 1 thread)', cmd: [attn, train] },
  ];
}

async function withBackground(cond, f) {
  if (!cond.cmd) return f();
  const child = spawn(cond.cmd[0], cond.cmd[1], { stdio: 'ignore', detached: true });
  await new Promise((r) => setTimeout(r, 1500)); // let it start and fill its caches
  try {
    return await f();
  } finally {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
}

function torchGemm(root, threads, wait, seconds) {
  const cases = SHAPES.map(([M, K, N]) => ({ M, K, N, ta: false, tb: true, batch: 1, seconds }));
  try {
    return json(PYTHON, [path.join(here, '..', 'peers', 'torch_gemm.py'), String(threads), JSON.stringify(cases)], {
      cwd: root,
      env: peerEnv(threads, process.env, { wait }),
    }).results.map((r) => r.gflops);
  } catch {
    return null;
  }
}

function torchStep(root, threads, wait, seconds) {
  try {
    return json(
      PYTHON,
      [
        path.join(here, 'transformer_torch.py'),
        '--config',
        'M',
        '--threads',
        String(threads),
        '--seconds',
        String(seconds),
      ],
      { cwd: root, env: peerEnv(threads, process.env, { wait }) }
    ).ms_per_step;
  } catch {
    return null;
  }
}

// One condition's measurements: {gemm: [{t1, t2, torch, passive}], step: {...}, browser: {...}}.
async function measure(ctx, root, attn, cond, browserStep) {
  const seconds = ctx.quick ? 0.3 : 1;
  const bench = path.join(root, 'build', 'native', 'attnlab_bench');
  const gemm = SHAPES.map(([M, K, N]) => {
    const at = (t) => json(bench, ['gemm', M, N, K, 0, 1, 1, t, seconds].map(String)).gflops;
    return { t1: at(1), t2: at(2) };
  });
  const torch = torchGemm(root, 2, 'spin', seconds),
    passive = torchGemm(root, 2, 'passive', seconds);
  gemm.forEach((g, i) => Object.assign(g, { torch: torch?.[i] ?? null, passive: passive?.[i] ?? null }));
  const stepAt = (t) =>
    json(attn, ['bench', '--config', 'M', '--threads', String(t), '--seconds', String(seconds * 2)]).ms_per_step;
  const step = {
    t1: stepAt(1),
    t2: stepAt(2),
    torch: torchStep(root, 2, 'spin', seconds * 2),
    passive: torchStep(root, 2, 'passive', seconds * 2),
  };
  const browser = browserStep ? await browserStep() : null;
  return { gemm, step, browser };
}

function condRows(cond, m) {
  const out = [];
  const tag = `loaded (${cond.label})`;
  const pair = (name, unit, v2, v1, t, p, faster) => {
    const ratio = (a, b) => (a && b ? r2(faster(a, b)) : null);
    out.push({
      name: `${tag}: ${name}, attnlab 2T vs 1T`,
      unit,
      attnlab: r2(v2),
      peer: 'attnlab 1T',
      peer_value: r2(v1),
      ratio: ratio(v2, v1),
      condition: cond.id,
    });
    if (t != null || p != null)
      out.push({
        name: `${tag}: ${name}, attnlab 2T vs PyTorch 2T`,
        unit,
        attnlab: r2(v2),
        peer: 'PyTorch 2T (GOMP_SPINCOUNT=30000)',
        peer_value: r2(t),
        ratio: ratio(v2, t),
        peer_passive: r2(p),
        note:
          p != null ? `PyTorch 2T with passive waits ${r2(p)}${p && v2 ? `, ratio ${r2(faster(v2, p))}` : ''}` : null,
        condition: cond.id,
      });
  };
  const rate = (mine, theirs) => mine / theirs,
    time = (mine, theirs) => theirs / mine;
  SHAPES.forEach(([M, K, N], i) => {
    const g = m.gemm[i];
    pair(`gemm ${M}×${K}×${N} A·Bᵀ native`, 'GFLOP/s', g.t2, g.t1, g.torch, g.passive, rate);
  });
  pair('train step config M native', 'ms', m.step.t2, m.step.t1, m.step.torch, m.step.passive, time);
  if (m.browser)
    out.push({
      name: `${tag}: browser train step config M, wasm-mt 2T vs 1T (Chromium)`,
      unit: 'ms',
      attnlab: r2(m.browser[2]),
      peer: 'wasm-mt 1T',
      peer_value: r2(m.browser[1]),
      ratio: r2(m.browser[1] / m.browser[2]),
      condition: cond.id,
    });
  if (m.browser?.ranks2)
    out.push({
      name: `${tag}: browser train step config M, wasm-mt 2T as ranks vs 1T (Chromium)`,
      unit: 'ms',
      attnlab: r2(m.browser.ranks2),
      peer: 'wasm-mt 1T',
      peer_value: r2(m.browser[1]),
      ratio: r2(m.browser[1] / m.browser.ranks2),
      note: `2T splitting kernels ${r2(m.browser[2])} ms`,
      condition: cond.id,
    });
  return out;
}

export async function rows(ctx) {
  const root = ctx.root;
  const attn = path.join(root, 'build', 'native', 'attn');
  if (!existsSync(attn)) throw new Error('build/native/attn is missing: build the native engine first');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'attnlab-loaded-'));
  let browserStep = null,
    close = async () => {};
  if (existsSync(path.join(root, 'dist', 'index.html'))) {
    const b = await import('./browser.mjs');
    ({ measure: browserStep, close } = await b.threadTimer({ quick: ctx.quick }));
  } else ctx.log('loaded: dist/ is missing (npm run build): no Chromium rows');
  const out = [];
  try {
    for (const cond of conditions(attn, tmp)) {
      ctx.log(`loaded: ${cond.label}`);
      const m = await withBackground(cond, () => measure(ctx, root, attn, cond, browserStep));
      out.push(...condRows(cond, m));
    }
  } finally {
    await close();
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}
