// Page entry: language, then the engine, then each demo mounted into its placeholder.
import { applyI18n, getLang, setLang, t } from './i18n/index.js';
import { loadEngine } from './core/engine.js';
import { mount as mountSdpa } from './demos/sdpa/index.js';

const demos = { sdpa: mountSdpa };

applyI18n();
document.getElementById('lang-toggle').addEventListener('click', () => setLang(getLang() === 'ko' ? 'en' : 'ko'));

try {
  const engine = await loadEngine();
  for (const el of document.querySelectorAll('[data-demo]')) {
    demos[el.dataset.demo](el, engine);
    applyI18n(el);
  }
  document.body.dataset.ready = '1';
} catch (e) {
  for (const el of document.querySelectorAll('[data-demo]')) el.textContent = t('engine.error', { message: e.message });
  throw e;
}
