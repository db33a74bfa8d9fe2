// The length curve `npm run reproduce` writes (experiments/lib/length-curve.mjs): one thin line per
// seed and one mean line per model, at the lengths the runs measured, with a legend; bad input
// is an Error, not an empty picture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lengthCurveSvg } from '../../experiments/lib/length-curve.mjs';

test('length curve: per-seed and mean lines for each model, y from the accuracies', () => {
  const search = [
    { 2: 1, 10: 0.9, 30: 0.8 },
    { 2: 1, 10: 1, 30: 0.6 },
  ];
  const encdec = [{ 2: 0.5, 10: 0.1, 30: 0 }];
  const svg = lengthCurveSvg(
    [
      { label: 'RNNsearch', runs: search },
      { label: 'RNNencdec', runs: encdec },
    ],
    { title: 't' }
  );
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(paths.length, 2 + 1 + 2, 'a line per seed plus a mean line per model');
  // the mean of RNNsearch at length 30 is 0.7: 30% of the plot height below the top grid line
  const ys = (d) => [...d.matchAll(/[ML]([\d.]+),([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  const mean = ys(paths[2]);
  assert.equal(mean.length, 3);
  const top = Number(
    svg
      .match(/y1="([\d.]+)"[^>]*stroke="#ddd"/g)
      .map((l) => l.match(/y1="([\d.]+)"/)[1])
      .at(-1)
  );
  const bottom = Number(svg.match(/y1="([\d.]+)"[^>]*stroke="#ddd"/)[1]);
  assert.ok(Math.abs(mean[2][1] - (bottom - 0.7 * (bottom - top))) < 0.2, `mean at 30: ${mean[2][1]}`);
  assert.ok(mean[0][0] < mean[1][0] && mean[1][0] < mean[2][0], 'x grows with length');
  assert.match(svg, /RNNsearch: mean of 2 seeds/);
  assert.match(svg, /RNNencdec: mean of 1 seed</);
});

test('length curve: no series, a series without runs or runs without lengths are errors', () => {
  assert.throws(() => lengthCurveSvg([]), /at least one run/);
  assert.throws(() => lengthCurveSvg([{ label: 'a', runs: [] }]), /at least one run/);
  assert.throws(() => lengthCurveSvg([{ label: 'a', runs: [{}] }]), /no lengths/);
});
