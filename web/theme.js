// Light / dark / follow-the-system colour scheme, remembered in localStorage (where the browser
// allows it: web/core/storage.js; elsewhere the choice lasts for the page).
import { t, onLangChange } from './i18n/index.js';
import { local } from './core/storage.js';

const ORDER = ['auto', 'dark', 'light'];

export function initTheme(button) {
  const stored = local.get('attnlab.theme');
  let mode = ORDER.includes(stored) ? stored : 'auto';
  const apply = () => {
    if (mode === 'auto') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = mode;
    button.textContent = t(`theme.${mode}`);
    button.setAttribute('aria-label', t('theme.label', { mode: t(`theme.${mode}`) }));
  };
  button.addEventListener('click', () => {
    mode = ORDER[(ORDER.indexOf(mode) + 1) % ORDER.length];
    local.set('attnlab.theme', mode);
    apply();
    window.dispatchEvent(new Event('attnlab-theme'));
  });
  onLangChange(apply);
  apply();
}
