// Colour-blind-safe sequential palette (viridis, 9 stops) and a lookup for values in [0, 1];
// Okabe–Ito's categorical colours; a diverging scale; and watchScheme, which tells a drawing
// drawn in the text colour (canvas labels, axes) that the page's light/dark scheme has changed.
const STOPS = [
  [68, 1, 84],
  [72, 40, 120],
  [62, 73, 137],
  [49, 104, 142],
  [38, 130, 142],
  [31, 158, 137],
  [53, 183, 121],
  [109, 205, 89],
  [180, 222, 44],
  [253, 231, 37],
];

export function viridis(t) {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const c = STOPS[i].map((v, k) => Math.round(v + f * (STOPS[i + 1][k] - v)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// Okabe & Ito's eight colours, distinguishable under the common colour-vision deficiencies.
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

// Diverging blue–white–orange for values in [-1, 1] (colour-blind safe end points).
export function diverging(v) {
  const x = Math.min(1, Math.max(-1, v));
  const lo = [0, 114, 178],
    mid = [247, 247, 247],
    hi = [230, 159, 0];
  const [a, b, f] = x < 0 ? [mid, lo, -x] : [mid, hi, x];
  const c = a.map((u, k) => Math.round(u + f * (b[k] - u)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// Calls fn after the page's colour scheme may have changed: the theme button (html[data-theme],
// web/theme.js; a host page's class on <html>) or the system's light/dark setting. Canvas text
// takes its colour when drawn, so its owner redraws. Returns a function that stops watching.
export function watchScheme(fn) {
  const attrs = new MutationObserver(() => fn());
  attrs.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class'] });
  const system = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
  const onSystem = () => fn();
  system?.addEventListener?.('change', onSystem);
  return () => {
    attrs.disconnect();
    system?.removeEventListener?.('change', onSystem);
  };
}
