// "Copy embed code" under a demo of the page: the <script> that loads the widgets and an
// <attnlab-demo> tag with the demo's current settings as attributes (ctx.settings(), the keys
// the demo reads and writes) and the page's language, so a course page can show this very view.
// The code goes to the clipboard where the browser allows it, and is always shown in a labelled,
// selectable text field. A shown field follows a language switch of the page (its lang="..").
import { t, getLang, onLangChange } from '../../i18n/index.js';

const attr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function embedCode(name, settings, { src = new URL('embed.js', document.baseURI).href, lang = getLang() } = {}) {
  const attrs = Object.entries(settings)
    .filter(([k]) => /^[A-Za-z][\w-]*$/.test(k) && k !== 'name' && k !== 'lang')
    .map(([k, v]) => ` ${k}="${attr(v)}"`)
    .join('');
  return `<script type="module" src="${attr(src)}"></script>\n<attnlab-demo name="${attr(name)}"${attrs} lang="${lang}"></attnlab-demo>`;
}

export function addShareBar(host, ctx) {
  const old = host.querySelector(':scope > .demo-share');
  old?.stopFollowingLang?.();
  old?.remove();
  const bar = document.createElement('div');
  bar.className = 'demo-share';
  const id = `embed-code-${ctx.name}`;
  bar.innerHTML = `
    <button type="button" name="embed-copy" data-i18n="share.copy"></button>
    <output class="demo-share-status" aria-live="polite"></output>
    <label hidden><span data-i18n="share.code"></span><textarea id="${id}" name="embed-code" readonly rows="4" spellcheck="false"></textarea></label>`;
  const button = bar.querySelector('button');
  const status = bar.querySelector('output');
  const label = bar.querySelector('label');
  const field = bar.querySelector('textarea');
  button.textContent = t('share.copy');
  label.querySelector('span').textContent = t('share.code');
  // the shown code names the page's language: rewrite it when the reader switches
  bar.stopFollowingLang = onLangChange(() => {
    if (!label.hidden) field.value = embedCode(ctx.name, ctx.settings());
  });
  button.addEventListener('click', async () => {
    field.value = embedCode(ctx.name, ctx.settings());
    label.hidden = false;
    field.focus();
    field.select();
    let copied = false;
    try {
      if (navigator.clipboard?.writeText) {
        await navigator.clipboard.writeText(field.value);
        copied = true;
      }
    } catch {
      /* no clipboard permission: the field is there to copy from */
    }
    status.dataset.i18n = copied ? 'share.copied' : 'share.select';
    status.textContent = t(status.dataset.i18n);
  });
  host.append(bar);
  return bar;
}
