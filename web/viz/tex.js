// Typesets the content's LaTeX with KaTeX: <span class="tex"> inline, <div class="tex-block">
// display. Bad input is shown in red by KaTeX rather than thrown.
import katex from 'katex';

export function typeset(root) {
  for (const el of root.querySelectorAll('.tex, .tex-block')) {
    if (el.dataset.typeset) continue;
    katex.render(el.textContent, el, { displayMode: el.classList.contains('tex-block'), throwOnError: false, output: 'html' });
    el.dataset.typeset = '1';
  }
}
