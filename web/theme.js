// Light / dark / follow-the-system colour scheme, remembered in localStorage.
import { t, onLangChange } from './i18n/index.js';

const ORDER = ['auto', 'dark', 'light'];

export function initTheme(button) {
  let mode = ORDER.includes(localStorage.getItem('attnlab.theme')) ? localStorage.getItem('attnlab.theme') : 'auto';
  const apply = () => {
    if (mode === 'auto') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = mode;
    button.textContent = t(`theme.${mode}`);
    button.setAttribute('aria-label', t('theme.label', { mode: t(`theme.${mode}`) }));
  };
  button.addEventListener('click', () => {
    mode = ORDER[(ORDER.indexOf(mode) + 1) % ORDER.length];
    localStorage.setItem('attnlab.theme', mode);
    apply();
    window.dispatchEvent(new Event('attnlab-theme'));
  });
  onLangChange(apply);
  apply();
}
