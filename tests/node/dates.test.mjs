// The engine's date strings (cpp/data/date_task.cpp, through the Embind module) against
// node's Intl.DateTimeFormat for the same locale and style, over dates across 1950..2049;
// and the hull / TSP labels on small cases checked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeEngine } from './engine.mjs';

const engine = await loadNodeEngine();

function* dates() {
  // every month of a few years, plus a stride through the whole range (all weekdays)
  for (const y of [1950, 1999, 2000, 2021, 2024, 2049])
    for (let m = 1; m <= 12; m++) for (const d of [1, 9, 10, 28]) yield [y, m, d];
  for (let t = Date.UTC(1950, 0, 1); t <= Date.UTC(2049, 11, 31); t += 86400000 * 97) {
    const x = new Date(t);
    yield [x.getUTCFullYear(), x.getUTCMonth() + 1, x.getUTCDate()];
  }
}

test('formatDate matches Intl.DateTimeFormat in every format', () => {
  const formats = engine.dateFormats();
  assert.equal(formats.length, 13);
  formats.forEach(({ locale, style }, f) => {
    const intl = new Intl.DateTimeFormat(locale, { dateStyle: style, timeZone: 'UTC' });
    for (const [y, m, d] of dates()) {
      const ours = engine.formatDate(y, m, d, f);
      assert.equal(ours.locale, locale);
      assert.equal(ours.text, intl.format(new Date(Date.UTC(y, m - 1, d))), `${locale} ${style} ${y}-${m}-${d}`);
      assert.equal(ours.iso, `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
    }
  });
});

test('formatDate rejects impossible dates and formats', () => {
  assert.throws(() => engine.formatDate(2021, 2, 30, 0), /not a date/);
  assert.throws(() => engine.formatDate(2021, 1, 1, 13), /format/);
});

test('convexHull and tspOptimal label small cases', () => {
  // unit square plus its centre: hull = corners CCW from the lowest index
  assert.deepEqual(engine.convexHull([0.5, 0.5, 1, 1, 0, 1, 0, 0, 1, 0]), [1, 2, 3, 4]);
  assert.throws(() => engine.convexHull([0, 0, 1, 1]), /at least 3 points/);
  assert.throws(() => engine.convexHull([0, 0, 1, 1, NaN, 2]), /finite/);
  // four corners given in crossing order: the optimal tour walks the perimeter
  assert.deepEqual(engine.tspOptimal([0, 0, 1, 1, 1, 0, 0, 1]), [0, 2, 1, 3]);
});
