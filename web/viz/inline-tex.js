// A line of prose with inline TeX between $…$ (a demo's caption that names symbols, e.g. §4's
// score notes): the prose as text, each formula in a <span class="tex" data-tex="…">. `render`
// (the page's KaTeX, ctx.tex) gives a formula's HTML; without it (a widget, whose one-file bundle
// leaves KaTeX out) subscripts, superscripts and accents are set in plain HTML instead.
import { escapeHtml } from './bars.js';

const WORDS = { top: 'ᵀ', tanh: 'tanh', cdot: '·', sum: '∑', exp: 'exp', softmax: 'softmax' };

export function plainTex(tex) {
  return escapeHtml(tex)
    .replace(/\\bar\{(\w)\}/g, '$1\u0304')
    .replace(/\\tilde\{(\w)\}/g, '$1\u0303')
    .replace(/\\([a-z]+)/g, (m, w) => WORDS[w] ?? w)
    .replace(/\\[,;!]/g, ' ')
    .replace(/\^ᵀ/g, 'ᵀ')
    .replace(/_\{([^}]*)\}/g, (_, x) => `<sub>${x.replace(/-/g, '−')}</sub>`)
    .replace(/_(\w)/g, '<sub>$1</sub>')
    .replace(/\^\{([^}]*)\}/g, '<sup>$1</sup>')
    .replace(/\^(\w)/g, '<sup>$1</sup>');
}

export function setTexText(el, text, render = null) {
  el.replaceChildren(
    ...String(text)
      .split('$')
      .map((part, i) => {
        if (i % 2 === 0) return document.createTextNode(part);
        const span = Object.assign(document.createElement('span'), { className: render ? 'tex' : 'tex tex-plain' });
        span.dataset.tex = part;
        span.innerHTML = render ? render(part) : plainTex(part);
        return span;
      })
  );
}
