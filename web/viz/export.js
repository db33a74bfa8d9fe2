// Download buttons under a figure: "PNG" saves the picture as drawn, "CSV" the numbers it shows
// with their row and column labels. `exportBar(owner, {kind, picture, table})` returns the bar:
// `picture()` gives the canvas to save, `table()` the rows of the CSV (first row the header).
// The buttons' spoken labels follow the language of the page (or widget) around them, like the
// heatmap's own words (web/viz/ is shared by both languages of the embedded widgets).
const WORDS = {
  en: {
    group: 'Download',
    png: (what) => `PNG: download this ${what} as an image`,
    csv: (what) => `CSV: download the numbers of this ${what}`,
    heatmap: 'map',
    chart: 'chart',
  },
  ko: {
    group: '내려받기',
    png: (what) => `PNG: 이 ${what}을 이미지로 내려받기`,
    csv: (what) => `CSV: 이 ${what}의 숫자를 내려받기`,
    heatmap: '지도',
    chart: '그래프',
  },
};
const langOf = (el) => (el.closest('[lang]')?.lang === 'ko' ? 'ko' : 'en');

// Bars relabel themselves when the page's language changes (one observer for all of them).
const bars = new Set();
let watcher = null;
function watch(bar) {
  bars.add(new WeakRef(bar));
  if (watcher || typeof MutationObserver === 'undefined') return;
  watcher = new MutationObserver(() => {
    for (const ref of bars) {
      const b = ref.deref();
      if (!b) bars.delete(ref);
      else if (b.isConnected) b.relabel();
    }
  });
  watcher.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
}

// One CSV field: quoted when it holds a comma, quote or line break.
const field = (v) => {
  const s =
    v === null || v === undefined
      ? ''
      : typeof v === 'number'
        ? Number.isFinite(v)
          ? String(+v.toPrecision(7))
          : ''
        : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
export const csvText = (rows) => `${rows.map((r) => r.map(field).join(',')).join('\r\n')}\r\n`;

// The page's background behind an element (the first opaque one up the tree), so a PNG of
// light-on-dark labels stays readable outside the page.
function background(el) {
  for (let e = el; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (c && c !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(c)) return c;
  }
  return '#ffffff';
}

export function pngBlob(canvas, el) {
  const out = document.createElement('canvas');
  out.width = canvas.width;
  out.height = canvas.height;
  const g = out.getContext('2d');
  g.fillStyle = background(el);
  g.fillRect(0, 0, out.width, out.height);
  g.drawImage(canvas, 0, 0);
  return new Promise((resolve, reject) =>
    out.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png')
  );
}

export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// File names: the demo the figure sits in, the kind of figure, its place among its kind.
function fileName(owner, kind, ext) {
  const demo = owner.closest('[data-demo], attnlab-demo');
  const name = demo?.dataset.demo ?? demo?.getAttribute('name') ?? 'attnlab';
  const all = demo ? [...demo.querySelectorAll(kind === 'heatmap' ? 'al-heatmap' : '.chart')] : [];
  const k = all.indexOf(owner);
  return `attnlab-${name}-${kind}${k > 0 ? `-${k + 1}` : ''}.${ext}`;
}

export function exportBar(owner, { kind, picture, table }) {
  const bar = document.createElement('div');
  bar.className = 'export-bar';
  bar.setAttribute('role', 'group');
  bar.innerHTML =
    '<button type="button" name="export-png">PNG</button><button type="button" name="export-csv">CSV</button>';
  const [png, csv] = bar.querySelectorAll('button');
  bar.relabel = () => {
    const w = WORDS[langOf(owner)];
    bar.setAttribute('aria-label', w.group);
    png.setAttribute('aria-label', w.png(w[kind]));
    csv.setAttribute('aria-label', w.csv(w[kind]));
    png.title = png.getAttribute('aria-label');
    csv.title = csv.getAttribute('aria-label');
  };
  // the arrow keys belong to the figure, not to these buttons
  bar.addEventListener('keydown', (e) => e.stopPropagation());
  png.addEventListener('click', async () => {
    const canvas = picture();
    if (canvas) download(await pngBlob(canvas, owner), fileName(owner, kind, 'png'));
  });
  csv.addEventListener('click', () => {
    download(new Blob([`\ufeff${csvText(table())}`], { type: 'text/csv;charset=utf-8' }), fileName(owner, kind, 'csv'));
  });
  bar.picture = picture; // what the PNG button saves
  bar.relabel();
  watch(bar);
  return bar;
}

// The CSV of a heatmap: column labels across, row labels down, the values as drawn.
export function heatmapTable(hm) {
  const cols = Array.from({ length: hm.cols }, (_, j) => hm.colLabels[j] ?? j);
  const rows = [['', ...cols]];
  for (let i = 0; i < hm.rows; i++)
    rows.push([hm.rowLabels[i] ?? i, ...Array.from(hm.values.subarray(i * hm.cols, (i + 1) * hm.cols))]);
  return rows;
}

// The CSV of a line chart: the x values down the first column, one column per series.
export function chartTable({ xLabel, labels, data }) {
  const rows = [[xLabel || 'x', ...labels]];
  for (let k = 0; k < (data[0]?.length ?? 0); k++) rows.push(data.map((col) => col[k] ?? null));
  return rows;
}
