// The machine a bench run measured, and the ceiling its "% peak" column is taken against.
// The ceiling is one core's FMA-chain rate measured natively (attnlab_bench peak: the best of
// 8..24 independent FMA accumulators), i.e. what the hardware's FMA pipes give, whatever
// language runs on them; wasm rows are put against it too, so their % says how far a SIMD128
// kernel is from the machine (their ratio to their own GEMM tile, "kernel efficiency", is a
// separate column). What the ceiling implies is written out from /proc/cpuinfo's clock: flops
// per cycle and f32 FMA lanes per cycle (lanes x pipes, e.g. 16 for two 256-bit pipes).
import { readFileSync } from 'node:fs';
import os from 'node:os';

// {cpu, isa, lanes (f32 lanes of the widest vector ISA), mhz (clock /proc/cpuinfo reports; a
// VM often shows the nominal one)}; text is /proc/cpuinfo's contents (a parameter for tests).
export function machineInfo(text = readCpuinfo()) {
  const flags =
    text
      .match(/^flags\s*:(.*)$/m)?.[1]
      .trim()
      .split(/\s+/) ?? [];
  const isa = flags.includes('avx512f')
    ? 'AVX-512'
    : flags.includes('avx2')
      ? 'AVX2'
      : flags.includes('asimd')
        ? 'NEON'
        : flags.includes('sse2')
          ? 'SSE2'
          : null;
  const lanes = { 'AVX-512': 16, AVX2: 8, NEON: 4, SSE2: 4 }[isa] ?? null;
  const mhz = Number(text.match(/^cpu MHz\s*:\s*([\d.]+)/m)?.[1]);
  const cpu = text.match(/^model name\s*:\s*(.+)$/m)?.[1].trim() ?? os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return { cpu, isa, lanes, mhz: Number.isFinite(mhz) && mhz > 0 ? mhz : null };
}

function readCpuinfo() {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
}

// The ceiling from one core's FMA-chain GFLOP/s on `machine`: {gflops, flop_per_cycle,
// lanes_per_cycle, text}. Without a clock the per-cycle figures are null.
export function ceiling(fmaGflops, machine) {
  if (!(fmaGflops > 0)) throw new Error(`ceiling: FMA-chain rate must be a positive number (got ${fmaGflops})`);
  const perCycle = machine.mhz ? (fmaGflops * 1e3) / machine.mhz : null;
  const r = (x, d) => (x == null ? null : Number(x.toFixed(d)));
  const lanesPerCycle = perCycle == null ? null : perCycle / 2;
  const implied =
    perCycle == null
      ? 'no clock reported'
      : `${r(perCycle, 1)} flop a cycle at the ${Math.round(machine.mhz)} MHz the kernel reports, ` +
        `i.e. ${r(lanesPerCycle, 1)} f32 FMA lanes a cycle` +
        (machine.lanes
          ? ` (${r(lanesPerCycle / machine.lanes, 2)} × the ${machine.lanes} lanes of ${machine.isa})`
          : '');
  return {
    gflops: r(fmaGflops, 2),
    flop_per_cycle: r(perCycle, 2),
    lanes_per_cycle: r(lanesPerCycle, 2),
    text: `one core's FMA-chain ceiling on ${machine.cpu}${machine.isa ? ` (${machine.isa})` : ''}: ${r(fmaGflops, 2)} GFLOP/s = ${implied}`,
  };
}

// % of `bound` (null when either is missing), one decimal.
export const pctOf = (gflops, bound) =>
  gflops == null || !(bound > 0) ? null : Number(((100 * gflops) / bound).toFixed(1));
