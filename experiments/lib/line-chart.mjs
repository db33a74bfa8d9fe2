// A small standalone SVG line chart for the docs' figures (the translator sweep's BLEU against
// training time): one line per series with its points marked, axes from 0 to a round number
// above the largest value, a legend under the plot, on a white background.
//   lineChartSvg([{label, points: [[x, y], ...]}, ...], {title, xLabel, yLabel})

export const COLORS = ['#1f5fbf', '#c4461b', '#2e7d32', '#6a1b9a'];
export const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// a round step (1, 2 or 5 times a power of ten) that cuts [0, max] into at most 6 parts
export function niceStep(max) {
  if (!(max > 0) || !Number.isFinite(max))
    throw new Error(`niceStep: the range must be positive and finite, got ${max}`);
  const raw = max / 6;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
}

export function lineChartSvg(series, { title = '', xLabel = '', yLabel = '', width = 640, height = 360 } = {}) {
  if (!series.length || series.some((s) => !s.points?.length))
    throw new Error('lineChartSvg: every series needs at least one point');
  const all = series.flatMap((s) => s.points);
  if (all.some((p) => !Number.isFinite(p[0]) || !Number.isFinite(p[1]) || p[0] < 0 || p[1] < 0))
    throw new Error('lineChartSvg: points must be finite and not negative');
  const xs = niceStep(Math.max(...all.map((p) => p[0])) || 1),
    ys = niceStep(Math.max(...all.map((p) => p[1])) || 1);
  const xMax = Math.ceil(Math.max(...all.map((p) => p[0])) / xs) * xs || xs;
  const yMax = Math.ceil(Math.max(...all.map((p) => p[1])) / ys) * ys || ys;
  const rows = Math.ceil(series.length / 2);
  const pad = { l: 56, r: 16, t: title ? 40 : 16, b: 48 + 18 * rows };
  const w = width - pad.l - pad.r,
    h = height - pad.t - pad.b;
  const X = (v) => pad.l + (v / xMax) * w;
  const Y = (v) => pad.t + (1 - v / yMax) * h;
  const f = (v) => v.toFixed(1);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(title || yLabel)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  if (title)
    out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="14" fill="#111">${esc(title)}</text>`);
  for (let v = 0; v <= yMax + ys / 2; v += ys)
    out.push(
      `<line x1="${pad.l}" x2="${pad.l + w}" y1="${f(Y(v))}" y2="${f(Y(v))}" stroke="#ddd"/>`,
      `<text x="${pad.l - 6}" y="${f(Y(v) + 4)}" text-anchor="end" fill="#333">${+v.toFixed(6)}</text>`
    );
  for (let v = 0; v <= xMax + xs / 2; v += xs)
    out.push(`<text x="${f(X(v))}" y="${pad.t + h + 16}" text-anchor="middle" fill="#333">${+v.toFixed(6)}</text>`);
  out.push(
    `<line x1="${pad.l}" x2="${pad.l + w}" y1="${pad.t + h}" y2="${pad.t + h}" stroke="#555"/>`,
    `<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${pad.t + h}" stroke="#555"/>`,
    `<text x="${pad.l + w / 2}" y="${pad.t + h + 34}" text-anchor="middle" fill="#111">${esc(xLabel)}</text>`,
    `<text transform="translate(14 ${pad.t + h / 2}) rotate(-90)" text-anchor="middle" fill="#111">${esc(yLabel)}</text>`
  );
  series.forEach((s, k) => {
    const color = COLORS[k % COLORS.length];
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    out.push(
      `<path d="${pts.map(([x, y], i) => `${i ? 'L' : 'M'}${f(X(x))},${f(Y(y))}`).join('')}" fill="none" stroke="${color}" stroke-width="2"/>`
    );
    for (const [x, y] of pts) out.push(`<circle cx="${f(X(x))}" cy="${f(Y(y))}" r="2.5" fill="${color}"/>`);
    const lx = pad.l + (k % 2) * 290,
      ly = pad.t + h + 56 + 18 * Math.floor(k / 2);
    out.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${lx + 30}" y="${ly}" fill="#111">${esc(s.label)}</text>`
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
