// <al-heatmap>: draws a rows×cols matrix of values in [0, 1] on a canvas, with row/column
// labels, a hover/keyboard-focus readout of each cell, and the values kept on the element
// (`el.values`, `el.rows`, `el.cols`) so tests and other views read exactly what is drawn, and
// PNG / CSV download buttons under it.
// For assistive technology the element is a named group: the canvas is an image whose text
// alternative summarises the values (size, range, largest cell), the readout beside it is live.
// Under the map, a colour legend: the palette's gradient between its two ends. A map wider than
// its box is drawn scaled down to the box's width (no sideways scrolling on a phone); its labels
// take the text colour and are redrawn after a light/dark switch.
import { viridis, diverging, watchScheme } from './palette.js';
import { exportBar, heatmapTable } from './export.js';

// The few words the map says itself, in the language of the page around it.
const WORDS = {
  en: (r, c, lo, hi, top) => `${r} × ${c} map, values ${lo} to ${hi}, largest ${top}. Arrow keys read each cell.`,
  ko: (r, c, lo, hi, top) => `${r} × ${c} 지도, 값 ${lo}에서 ${hi}까지, 가장 큰 칸 ${top}. 화살표 키로 칸마다 읽기.`,
};
const ROLE = { en: 'heatmap', ko: '히트맵' };
const EMPTY = { en: 'no values yet', ko: '아직 값 없음' };

export class Heatmap extends HTMLElement {
  constructor() {
    super();
    this.values = new Float32Array(0);
    this.rows = 0;
    this.cols = 0;
    this.rowLabels = [];
    this.colLabels = [];
    this.focusCell = [0, 0];
  }

  connectedCallback() {
    if (this.canvas) {
      this.#watchLang();
      this.#label();
      return;
    }
    this.tabIndex = 0;
    this.setAttribute('role', 'group');
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('role', 'img');
    this.legend = document.createElement('div');
    this.legend.className = 'heatmap-legend';
    this.legend.setAttribute('aria-hidden', 'true'); // the canvas's text gives the values
    this.legend.innerHTML = '<span class="lo"></span><span class="ramp"></span><span class="hi"></span>';
    this.readout = document.createElement('div');
    this.readout.className = 'heatmap-readout';
    this.readout.setAttribute('aria-live', 'polite');
    this.append(this.canvas, this.legend, this.readout);
    // PNG / CSV download buttons (web/viz/export.js)
    this.append(
      exportBar(this, {
        kind: 'heatmap',
        picture: () => (this.rows ? this.canvas : null),
        table: () => heatmapTable(this),
      })
    );
    this.canvas.addEventListener('mousemove', (e) => this.#hover(e));
    this.addEventListener('keydown', (e) => this.#key(e));
    // the keyboard's cell is outlined while the map has focus
    this.addEventListener('focus', () => {
      this.readout.textContent = this.rows ? this.describe(...this.focusCell) : '';
      this.draw();
    });
    this.addEventListener('blur', () => this.draw());
    this.resize = new ResizeObserver(() => {
      if (Math.abs(this.clientWidth - (this.lastWidth ?? 0)) > 4) this.draw();
    });
    this.resize.observe(this);
    this.langs = new MutationObserver(() => this.#label());
    this.#watchLang();
  }

  // the text alternative follows a language switch; watched only while in the document
  // (and the labels' colour a theme switch)
  #watchLang() {
    this.langs?.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
    this.unwatchScheme ??= watchScheme(() => this.draw());
  }
  disconnectedCallback() {
    this.langs?.disconnect();
    this.unwatchScheme?.();
    this.unwatchScheme = null;
  }

  // values: Float32Array of rows*cols, row-major
  // palette: 'viridis' for [0, 1] (weights), 'diverging' for [-1, 1] (signed values)
  set(values, rows, cols, { rowLabels = [], colLabels = [], palette = 'viridis', minCell = 8, maxWidth = 320 } = {}) {
    this.palette = palette === 'diverging' ? diverging : viridis;
    this.domain = palette === 'diverging' ? [-1, 1] : [0, 1];
    this.minCell = minCell;
    this.maxWidth = maxWidth;
    this.values = Float32Array.from(values);
    this.rows = rows;
    this.cols = cols;
    this.rowLabels = rowLabels;
    this.colLabels = colLabels;
    this.dataset.rows = rows;
    this.dataset.cols = cols;
    this.focusCell = [
      Math.max(0, Math.min(this.focusCell[0], rows - 1)),
      Math.max(0, Math.min(this.focusCell[1], cols - 1)),
    ];
    this.draw();
  }

  draw() {
    if (!this.canvas) return;
    this.lastWidth = this.clientWidth;
    const g = this.canvas.getContext('2d');
    const font = '11px system-ui, sans-serif';
    g.font = font;
    // label room from the labels themselves (long ones shortened), so none is cut off: row
    // labels right-aligned left of the map, column labels at 45° above it (they also reach
    // past the last column on the right)
    const short = (l) => {
      const x = String(l);
      return x.length > 16 ? `${x.slice(0, 15)}…` : x;
    };
    const rowText = this.rowLabels.map(short),
      colText = this.colLabels.map(short);
    const widest = (ls) => ls.reduce((m, l) => Math.max(m, g.measureText(l).width), 0);
    const pad = rowText.length ? Math.min(130, Math.ceil(widest(rowText)) + 8) : 4;
    const room = Math.min(this.maxWidth ?? 320, Math.max(120, (this.clientWidth || 320) - pad - 4));
    const cell = Math.max(
      this.minCell ?? 8,
      Math.min(
        40,
        Math.floor(room / Math.max(this.cols, 1)),
        Math.floor((this.maxWidth ?? 320) / Math.max(this.rows, 1))
      )
    );
    const diag = colText.map((l) => g.measureText(l).width * Math.SQRT1_2);
    const top = colText.length ? Math.ceil(Math.max(0, ...diag)) + 10 : 4;
    const over = colText.length ? Math.max(0, ...diag.map((d, j) => d + cell * 0.6 - (this.cols - j) * cell)) : 0;
    const dpr = globalThis.devicePixelRatio || 1;
    const w = pad + cell * this.cols + Math.ceil(over) + 2,
      h = top + cell * this.rows;
    this.canvas.width = w * dpr;
    this.canvas.height = h * dpr;
    const scale = Math.min(1, (this.clientWidth || w) / w); // shrink to fit the box
    this.canvas.style.width = `${w * scale}px`;
    this.canvas.style.height = `${h * scale}px`;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    for (let i = 0; i < this.rows; i++)
      for (let j = 0; j < this.cols; j++) {
        g.fillStyle = (this.palette ?? viridis)(this.values[i * this.cols + j]);
        g.fillRect(pad + j * cell, top + i * cell, cell > 6 ? cell - 1 : cell, cell > 6 ? cell - 1 : cell);
      }
    g.fillStyle = getComputedStyle(this).color;
    g.font = font;
    g.textAlign = 'right';
    rowText.forEach((l, i) => g.fillText(l, pad - 4, top + i * cell + cell * 0.65));
    colText.forEach((l, j) => {
      g.save();
      g.translate(pad + j * cell + cell * 0.6, top - 4);
      g.rotate(-Math.PI / 4);
      g.textAlign = 'left';
      g.fillText(l, 0, 0);
      g.restore();
    });
    this.geometry = { cell, pad, top, scale };
    this.#label();
    if (this.matches(':focus') && this.rows && this.cols) {
      // a black ring around the cell and a white one inside it: whatever the cell's, its
      // neighbours' and the page's colours (light or dark theme), one of the two stands out
      // from each of them by well over 3:1
      const [fi, fj] = this.focusCell;
      const x = pad + fj * cell,
        y = top + fi * cell,
        s = cell > 6 ? cell - 1 : cell;
      g.lineWidth = 2;
      g.strokeStyle = '#000';
      g.strokeRect(x - 1, y - 1, s + 2, s + 2);
      g.strokeStyle = '#fff';
      g.strokeRect(x + 1, y + 1, Math.max(0, s - 2), Math.max(0, s - 2));
      this.dataset.focusCell = `${fi},${fj}`;
    } else {
      delete this.dataset.focusCell;
    }
  }

  // The text alternative (canvas), the group's role description and the legend, kept current.
  #label() {
    if (!this.legend) return;
    const lang = this.closest('[lang]')?.lang === 'ko' ? 'ko' : 'en';
    this.setAttribute('aria-roledescription', ROLE[lang]);
    const [a, b] = this.domain ?? [0, 1];
    const pal = this.palette ?? viridis;
    const stops = Array.from({ length: 9 }, (_, k) => pal(a + ((b - a) * k) / 8));
    this.legend.querySelector('.ramp').style.background = `linear-gradient(to right, ${stops.join(', ')})`;
    this.legend.querySelector('.lo').textContent = String(a);
    this.legend.querySelector('.hi').textContent = String(b);
    if (!this.rows || !this.cols) {
      this.canvas.setAttribute('aria-label', EMPTY[lang]);
      return;
    }
    let lo = Infinity,
      hi = -Infinity,
      at = 0;
    this.values.forEach((v, k) => {
      if (v < lo) lo = v;
      if (v > hi) {
        hi = v;
        at = k;
      }
    });
    const top = this.describe(Math.floor(at / this.cols), at % this.cols);
    this.canvas.setAttribute('aria-label', WORDS[lang](this.rows, this.cols, lo.toFixed(3), hi.toFixed(3), top));
  }

  describe(i, j) {
    const v = this.values[i * this.cols + j];
    const r = this.rowLabels[i] ?? i,
      c = this.colLabels[j] ?? j;
    return `${r} → ${c}: ${v.toFixed(4)}`;
  }

  #hover(e) {
    if (!this.geometry) return;
    const { cell, pad, top, scale } = this.geometry;
    const rect = this.canvas.getBoundingClientRect();
    const j = Math.floor(((e.clientX - rect.left) / scale - pad) / cell);
    const i = Math.floor(((e.clientY - rect.top) / scale - top) / cell);
    if (i >= 0 && i < this.rows && j >= 0 && j < this.cols) {
      this.focusCell = [i, j];
      this.readout.textContent = this.describe(i, j);
      this.dispatchEvent(new CustomEvent('cell', { detail: { i, j } }));
    }
  }

  #key(e) {
    const [i, j] = this.focusCell;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const m = moves[e.key];
    if (!m || !this.rows) return;
    e.preventDefault();
    const ni = Math.min(this.rows - 1, Math.max(0, i + m[0]));
    const nj = Math.min(this.cols - 1, Math.max(0, j + m[1]));
    this.focusCell = [ni, nj];
    this.readout.textContent = this.describe(ni, nj);
    this.draw();
    this.dispatchEvent(new CustomEvent('cell', { detail: { i: ni, j: nj } }));
  }
}

if (!customElements.get('al-heatmap')) customElements.define('al-heatmap', Heatmap);
