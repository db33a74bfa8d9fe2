// The bench's goals and its comparison with the previous run (used by bench/bench.mjs; in
// peers/ so that the driver does not take it for a bench module).
//
// Goals, stated before measuring, against peers running at full strength (peers/env.mjs). Each
// row's ratio is "better than the peer" when > 1 (peer time / ours, or our rate / the peer's).
export const GOALS = [
  {
    id: 'native-gemm',
    text: 'native GEMM >= 1.0x PyTorch+OpenBLAS (full strength) at 1 and 2 threads',
    min: 1.0,
    match: (r) => /^gemm .* native \dT$/.test(r.name),
  },
  // Issue 43's goals at 2 threads (first: a row takes the first goal that matches it). The
  // PyTorch figure is its passive-wait one (OMP_WAIT_POLICY=PASSIVE, the note of the row).
  ...[
    ['S', 2.5],
    ['M', 2.0],
    ['base', 1.35],
  ].map(([config, min]) => ({
    id: `train-${config}-2T`,
    text: `native training step at 2 threads >= ${min}x PyTorch at 2 threads (passive waits), config ${config}`,
    min,
    match: (r) => r.name.startsWith('Transformer training step ') && r.name.endsWith(`config ${config}, 2 threads`),
    value: (r) => (r.peer_passive ? r.peer_passive / r.attnlab : null),
  })),
  {
    id: 'threads-2T',
    text: "native training step, 2 threads >= 1.8x 1 thread (the engine's own split), configs S, M, base and the translator's",
    min: 1.8,
    match: (r) => /^thread split of a training step, config .*: 2 threads \(auto\) \/ 1 thread$/.test(r.name),
    value: (r) => r.attnlab,
  },
  {
    id: 'mfu-2T',
    text: "model FLOP/s at 2 threads >= 60% of the two cores' peak, configs M and base",
    min: 60,
    unit: '%',
    match: (r) => /^model FLOP\/s, training config (M|base) .*native 2T$/.test(r.name),
    value: (r) => r.pct_peak,
  },
  {
    id: 'loaded-2T',
    text: 'under every load condition of the loaded rows, 2 threads >= 1.0x 1 thread',
    min: 1.0,
    match: (r) => /^loaded \(.*\): .*2T vs 1T/.test(r.name),
  },
  {
    id: 'train-S',
    text: 'native training step >= 2x PyTorch at config S',
    min: 2.0,
    match: (r) => /^Transformer training step .*config S,/.test(r.name),
  },
  {
    id: 'train-M',
    text: 'native training step >= 1.25x PyTorch at config M',
    min: 1.25,
    match: (r) => /^Transformer training step .*config M,/.test(r.name),
  },
  {
    id: 'train-base',
    text: 'native training step >= 1.1x PyTorch at config base',
    min: 1.1,
    match: (r) => /^Transformer training step .*config base,/.test(r.name),
  },
  {
    id: 'dp-2rank',
    text: 'data-parallel training, 2 ranks x 1 thread: tokens/s >= 1.5x PyTorch DDP (gloo)',
    min: 1.5,
    match: (r) => /^data-parallel training tokens\/s .*, 2 ranks x/.test(r.name),
  },
  {
    id: 'dp-scaling-base',
    text: 'data-parallel scaling efficiency (2 ranks / 2x 1 rank) >= 0.85 at config base',
    min: 0.85,
    match: (r) => /^data-parallel scaling efficiency, config base:/.test(r.name),
  },
  {
    id: 'wasm-gemm',
    text: 'wasm GEMM >= 1.1x TF.js wasm (XNNPACK) on every plain shape',
    min: 1.1,
    match: (r) => /^gemm [\d×]+ wasm$/.test(r.name),
  },
  {
    id: 'browser-threads',
    text: 'training config M in Chromium: 2 threads >= 1.8x 1 thread',
    min: 1.8,
    match: (r) => /^browser: train step config M, wasm-mt 2 threads (as ranks )?vs 1 thread/.test(r.name),
  },
];

// Marks every row a goal applies to (and that has its value: the goal's value(row), else the
// row's ratio) with goal, goal_id, goal_value and goal_met.
export function checkGoals(rows) {
  for (const r of rows) {
    const g = GOALS.find((x) => x.match(r));
    if (!g) continue;
    const v = g.value ? g.value(r) : r.ratio;
    if (v == null || !Number.isFinite(v)) continue;
    Object.assign(r, {
      goal: `>= ${g.min}${g.unit ?? 'x'}`,
      goal_id: g.id,
      goal_value: Number(v.toFixed(2)),
      goal_met: v >= g.min,
    });
  }
  return rows;
}

// Units where a smaller value is better.
const LOWER_IS_BETTER = new Set(['ms', 'KiB']);

// One line per current row: its value beside the same row's value in the latest earlier run
// of the history (lines of build/bench-history.jsonl), the change in %, better/worse.
export function compareRuns(history, rows) {
  const last = new Map();
  for (const h of history) last.set(h.name, h); // later lines win
  return rows.map((r) => {
    const h = last.get(r.name);
    if (!h || h.attnlab == null || r.attnlab == null) return `${r.name}: ${r.attnlab} ${r.unit} (new)`;
    const change = h.attnlab === 0 ? 0 : (100 * (r.attnlab - h.attnlab)) / h.attnlab;
    const better = LOWER_IS_BETTER.has(r.unit) ? change < 0 : change > 0;
    const word = Math.abs(change) < 0.05 ? 'same' : better ? 'better' : 'worse';
    const ratio = r.ratio != null && h.ratio != null ? `; ratio ${h.ratio} -> ${r.ratio}` : '';
    return (
      `${r.name}: ${h.attnlab} -> ${r.attnlab} ${r.unit} (${change >= 0 ? '+' : ''}${change.toFixed(1)}%, ${word}; ` +
      `then commit ${h.commit ?? '?'}, load ${Array.isArray(h.load) ? h.load[0] : (h.load ?? '?')}${ratio})`
    );
  });
}
