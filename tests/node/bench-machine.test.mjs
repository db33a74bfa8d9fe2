// The bench's machine line and ceiling (bench/peers/machine.mjs): the ISA and lanes read from
// /proc/cpuinfo's flags, and what a measured FMA-chain rate implies per cycle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineInfo, ceiling, pctOf } from '../../bench/peers/machine.mjs';

const cpuinfo = (flags, mhz = '2445.404') =>
  `processor\t: 0\nmodel name\t: AMD EPYC 9R45\ncpu MHz\t\t: ${mhz}\nflags\t\t: fpu sse2 ${flags}\n\n` +
  `processor\t: 1\nmodel name\t: AMD EPYC 9R45\ncpu MHz\t\t: ${mhz}\nflags\t\t: fpu sse2 ${flags}\n`;

test('the widest vector ISA names the lanes', () => {
  assert.deepEqual(machineInfo(cpuinfo('avx avx2 fma avx512f avx512bw')), {
    cpu: 'AMD EPYC 9R45',
    isa: 'AVX-512',
    lanes: 16,
    mhz: 2445.404,
  });
  assert.equal(machineInfo(cpuinfo('avx avx2 fma')).isa, 'AVX2');
  assert.equal(machineInfo(cpuinfo('avx avx2 fma')).lanes, 8);
  assert.equal(machineInfo(cpuinfo('')).isa, 'SSE2');
  assert.equal(machineInfo(cpuinfo('avx2', 'n/a')).mhz, null);
});

test('the ceiling states flops and FMA lanes a cycle at the reported clock', () => {
  const m = machineInfo(cpuinfo('avx avx2 fma', '2500'));
  // 80 GFLOP/s at 2.5 GHz: 32 flop a cycle, 16 FMA lanes a cycle, two 8-lane pipes.
  const c = ceiling(80, m);
  assert.equal(c.gflops, 80);
  assert.equal(c.flop_per_cycle, 32);
  assert.equal(c.lanes_per_cycle, 16);
  assert.match(c.text, /AMD EPYC 9R45 \(AVX2\): 80 GFLOP\/s = 32 flop a cycle at the 2500 MHz/);
  assert.match(c.text, /2 × the 8 lanes of AVX2/);
  const noClock = ceiling(80, { ...m, mhz: null });
  assert.equal(noClock.flop_per_cycle, null);
  assert.match(noClock.text, /no clock reported/);
  assert.throws(() => ceiling(0, m), /positive/);
  assert.throws(() => ceiling(NaN, m), /positive/);
});

test('percent of a bound', () => {
  assert.equal(pctOf(30, 120), 25);
  assert.equal(pctOf(null, 120), null);
  assert.equal(pctOf(30, null), null);
  assert.equal(pctOf(30, 0), null);
});
