// `code` section demo: the engine's own source for attention, the causal mask, the multi-head split and
// the positional encoding, as cut from cpp/ when this page was built
// (scripts/web/code-extract.mjs), so what is shown is what runs. A snippet whose code is not in
// this build says so.
import snippets from 'virtual:attnlab-code';
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';

function highlight(code) {
  return escapeHtml(code)
    .split('\n')
    .map((line) => {
      const c = line.indexOf('//');
      return c < 0 ? line : `${line.slice(0, c)}<span class="cm">${line.slice(c)}</span>`;
    })
    .join('\n');
}

export function mount(el) {
  el.snippets = snippets;
  function render() {
    el.innerHTML = snippets
      .map(
        (s) => `
      <figure class="code-snippet" data-snippet="${s.id}">
        <figcaption><strong>${escapeHtml(t(`code.${s.id}`))}</strong>
          ${s.line ? `<code>${escapeHtml(s.file)}:${s.line}</code>` : ''}</figcaption>
        ${s.line ? `<pre tabindex="0"><code>${highlight(s.code)}</code></pre>` : `<p class="note">${escapeHtml(t('code.missing', { file: s.file }))}</p>`}
      </figure>`
      )
      .join('');
  }
  render();
  return {
    relabel: render,
    unmount() {
      el.innerHTML = '';
    },
  };
}
