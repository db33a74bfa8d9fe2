// The length curve of `npm run reproduce` as a standalone SVG (docs/reproduction.md shows it): exact-match
// accuracy by source length for each model, one thin line per seed and a thick line for their
// mean, on a white background so that it reads the same in light and dark viewers.
//   lengthCurveSvg([{label, runs: [per_length, ...]}, ...], {title})
// per_length: {"<length>": accuracy in [0, 1], ...} as `attn train --eval-samples` prints it.

import { COLORS, esc } from './line-chart.mjs';

export function lengthCurveSvg(series, { title = '', width = 640, height = 360 } = {}) {
  if (!series.length || series.some((s) => !s.runs.length))
    throw new Error('lengthCurveSvg: every series needs at least one run');
  const lengths = [...new Set(series.flatMap((s) => s.runs.flatMap((r) => Object.keys(r).map(Number))))]
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (!lengths.length) throw new Error('lengthCurveSvg: no lengths in the runs');
  const pad = { l: 56, r: 16, t: title ? 40 : 16, b: 70 };
  const w = width - pad.l - pad.r,
    h = height - pad.t - pad.b;
  const x0 = lengths[0],
    x1 = lengths.at(-1) === x0 ? x0 + 1 : lengths.at(-1);
  const X = (n) => pad.l + ((n - x0) / (x1 - x0)) * w;
  const Y = (v) => pad.t + (1 - v) * h;
  const line = (pts) => pts.map(([n, v], i) => `${i ? 'L' : 'M'}${X(n).toFixed(1)},${Y(v).toFixed(1)}`).join('');
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(title || 'accuracy by source length')}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  if (title)
    out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="14" fill="#111">${esc(title)}</text>`);
  for (let v = 0; v <= 1.0001; v += 0.25) {
    // horizontal grid and y labels
    out.push(
      `<line x1="${pad.l}" x2="${pad.l + w}" y1="${Y(v).toFixed(1)}" y2="${Y(v).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${pad.l - 6}" y="${(Y(v) + 4).toFixed(1)}" text-anchor="end" fill="#333">${Math.round(v * 100)}%</text>`
    );
  }
  const step = Math.max(1, Math.ceil(lengths.length / 15));
  lengths.forEach((n, i) => {
    if (i % step === 0 || i === lengths.length - 1)
      out.push(`<text x="${X(n).toFixed(1)}" y="${pad.t + h + 16}" text-anchor="middle" fill="#333">${n}</text>`);
  });
  out.push(
    `<line x1="${pad.l}" x2="${pad.l + w}" y1="${pad.t + h}" y2="${pad.t + h}" stroke="#555"/>`,
    `<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${pad.t + h}" stroke="#555"/>`,
    `<text x="${pad.l + w / 2}" y="${pad.t + h + 34}" text-anchor="middle" fill="#111">source length (words)</text>`,
    `<text transform="translate(14 ${pad.t + h / 2}) rotate(-90)" text-anchor="middle" fill="#111">exact match, held out</text>`
  );
  series.forEach((s, k) => {
    const color = COLORS[k % COLORS.length];
    const pts = (r) => lengths.filter((n) => r[String(n)] !== undefined).map((n) => [n, r[String(n)]]);
    for (const r of s.runs)
      out.push(`<path d="${line(pts(r))}" fill="none" stroke="${color}" stroke-opacity="0.35" stroke-width="1"/>`);
    const mean = lengths
      .map((n) => {
        const v = s.runs.map((r) => r[String(n)]).filter((x) => x !== undefined);
        return v.length ? [n, v.reduce((a, b) => a + b, 0) / v.length] : null;
      })
      .filter(Boolean);
    out.push(`<path d="${line(mean)}" fill="none" stroke="${color}" stroke-width="2.5"/>`);
    const lx = pad.l + k * 190,
      ly = height - 14;
    out.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2.5"/>`,
      `<text x="${lx + 30}" y="${ly}" fill="#111">${esc(s.label)}: mean of ${s.runs.length} seed${s.runs.length > 1 ? 's' : ''}</text>`
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
