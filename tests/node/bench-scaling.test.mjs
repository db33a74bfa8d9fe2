// The scaling model of bench/rows/scaling.mjs: Amdahl's serial share from the step times at 1
// and 2 threads, and the efficiency it predicts, against values worked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amdahl, PREDICT_AT } from '../../bench/rows/scaling.mjs';

const near = (got, want, what) => assert.ok(Math.abs(got - want) < 1e-12, `${what}: ${got}, want ${want}`);

test('scaling: serial share and predicted efficiency from 1T and 2T times', () => {
  // t1 100, t2 60: s = 2 * 60 / 100 - 1 = 0.2; t(4) = 100 (0.2 + 0.8 / 4) = 40, efficiency 100 / 160
  const { s, efficiency } = amdahl(100, 60);
  near(s, 0.2, 's');
  near(efficiency[4], 0.625, 'efficiency at 4');
  near(efficiency[8], 100 / (8 * 30), 'efficiency at 8');
  near(efficiency[16], 100 / (16 * 25), 'efficiency at 16');
  assert.deepEqual(Object.keys(efficiency).map(Number), PREDICT_AT);
});

test('scaling: perfect halving is s = 0, no gain is s = 1, and beyond either is clamped', () => {
  near(amdahl(100, 50).s, 0, 'halved');
  near(amdahl(100, 50).efficiency[16], 1, 'halved, 16 threads');
  near(amdahl(100, 100).s, 1, 'no gain');
  near(amdahl(100, 100).efficiency[8], 1 / 8, 'no gain, 8 threads');
  near(amdahl(100, 40).s, 0, 'superlinear');
  near(amdahl(100, 130).s, 1, 'slower with two');
});

test('scaling: times that are not positive are rejected', () => {
  assert.throws(() => amdahl(0, 1), /times must be positive/);
  assert.throws(() => amdahl(1, Number.NaN), /times must be positive/);
});
