// The translator page's line chart (experiments/lib/line-chart.mjs, the translator sweep's BLEU against
// training time): points land where their values say, axes end at a round number above the
// largest value, each series is in the legend; bad input is an Error, not an empty picture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineChartSvg, niceStep } from '../../experiments/lib/line-chart.mjs';

test('line chart: a line and a marker per point, y placed by value', () => {
  const svg = lineChartSvg(
    [
      {
        label: 'big',
        points: [
          [10, 1.5],
          [50, 4],
          [100, 6.2],
        ],
      },
      {
        label: 'small',
        points: [
          [100, 3],
          [20, 1],
        ],
      },
    ],
    { title: 't', xLabel: 'minutes', yLabel: 'BLEU' }
  );
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(paths.length, 2);
  assert.equal([...svg.matchAll(/<circle /g)].length, 5);
  // the y axis ends at a round number at or above the largest value
  const grid = [...svg.matchAll(/<line x1="\d+" x2="[\d.]+" y1="([\d.]+)" y2="[\d.]+" stroke="#ddd"\/>/g)].map((m) =>
    Number(m[1])
  );
  const bottom = grid[0],
    top = grid.at(-1);
  const yMax = Number([...svg.matchAll(/text-anchor="end" fill="#333">([\d.]+)</g)].at(-1)[1]);
  assert.ok(yMax >= 6.2 && yMax < 12, `y axis ends at ${yMax}`);
  const pts = (d) => [...d.matchAll(/[ML]([\d.]+),([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  const big = pts(paths[0]);
  assert.ok(Math.abs(big[1][1] - (bottom - (4 / yMax) * (bottom - top))) < 0.2, `y of 4: ${big[1][1]}`);
  const small = pts(paths[1]);
  assert.ok(small[0][0] < small[1][0], 'points are drawn in x order');
  assert.match(svg, />big</);
  assert.match(svg, />small</);
  assert.match(svg, />minutes</);
});

test('line chart: round steps, and errors for empty or bad points', () => {
  assert.equal(niceStep(6), 1);
  assert.equal(niceStep(110), 20);
  assert.equal(niceStep(0.3), 0.05);
  assert.throws(() => niceStep(0), /positive/);
  assert.throws(() => lineChartSvg([]), /at least one point/);
  assert.throws(() => lineChartSvg([{ label: 'a', points: [] }]), /at least one point/);
  assert.throws(() => lineChartSvg([{ label: 'a', points: [[1, NaN]] }]), /finite/);
});
