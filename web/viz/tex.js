// Typesets the content's LaTeX with KaTeX: <span class="tex"> inline, <div class="tex-block">
// display, as HTML for the eye and MathML for screen readers. Bad input is shown in red by KaTeX
// rather than thrown. focusScrollers: wide formula blocks and tables that scroll sideways (on a
// phone) take keyboard focus, so they can be scrolled without a mouse.
import katex from 'katex';

// Each formula is laid out by KaTeX once per page and copied after that: a language switch
// writes the same formulas again (the notation is the same in both languages), and many recur
// within the guide.
const typesetNodes = new Map(); // (display ? 'D' : 'I') + LaTeX source -> a typeset element
export function typeset(root) {
  for (const el of root.querySelectorAll('.tex, .tex-block')) {
    if (el.dataset.typeset) continue;
    const displayMode = el.classList.contains('tex-block');
    const key = `${displayMode ? 'D' : 'I'}${el.textContent}`;
    let done = typesetNodes.get(key);
    if (!done) {
      done = document.createElement('span');
      katex.render(el.textContent, done, { displayMode, throwOnError: false, output: 'htmlAndMathml' });
      typesetNodes.set(key, done);
    }
    el.replaceChildren(...done.cloneNode(true).childNodes);
    el.dataset.typeset = '1';
  }
}

// Each `.tex-block` and `table` under root: focusable (tabindex 0) while it overflows its width;
// a formula block is then a group named `label` (a table keeps its own role and caption).
// Re-checked whenever one changes size and when web fonts arrive (KaTeX's fonts widen a
// formula without resizing its block); returns a function that stops watching.
export function focusScrollers(root, label) {
  const check = (el) => {
    if (el.scrollWidth > el.clientWidth + 1) {
      el.tabIndex = 0;
      if (el.tagName !== 'TABLE') {
        el.setAttribute('role', 'group');
        el.setAttribute('aria-label', label);
      }
      el.dataset.scrolls = '1';
    } else if (el.dataset.scrolls) {
      el.removeAttribute('tabindex');
      el.removeAttribute('role');
      el.removeAttribute('aria-label');
      delete el.dataset.scrolls;
    }
  };
  const els = [...root.querySelectorAll('.tex-block, table')];
  const all = () => els.forEach(check);
  const ro = new ResizeObserver((entries) => entries.forEach((e) => check(e.target)));
  els.forEach((el) => {
    check(el);
    ro.observe(el);
  });
  document.fonts?.addEventListener('loadingdone', all);
  document.fonts?.ready.then(all);
  return () => {
    ro.disconnect();
    document.fonts?.removeEventListener('loadingdone', all);
  };
}

// One inline formula's HTML (for a demo's prose set at run time: viz/inline-tex.js).
export const texHtml = (tex) => katex.renderToString(tex, { throwOnError: false, output: 'htmlAndMathml' });
