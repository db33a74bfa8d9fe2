// Language state for the page: Korean by default, English by `?lang=en` or the toggle.
// Every visible string comes from the tables in ko.js / en.js; elements carry
// data-i18n="key" (text) or data-i18n-aria="key" (aria-label) and are refilled on a switch,
// without a reload; the document's <title> follows `site.title`. A string refers to a guide
// section by its key, `{§bahdanau}`, which t() fills in with the section's number from
// web/sections.js.
import ko from './ko.js';
import en from './en.js';
import { sectionLabel } from '../sections.js';

const tables = { ko, en };
const listeners = new Set();
let lang = new URLSearchParams(globalThis.location?.search ?? '').get('lang') === 'en' ? 'en' : 'ko';

export function getLang() {
  return lang;
}

export function t(key, vars = {}) {
  const s = tables[lang][key] ?? tables.ko[key];
  if (s === undefined) throw new Error(`i18n: no string for key '${key}'`);
  return s
    .replace(/\{§([a-z][a-z-]*)\}/g, (_, id) => sectionLabel(id))
    .replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

// A large count in the page's language, to two significant digits: "4.2 million" in English,
// "420만" in Korean (만/억 units, not millions).
export function compactCount(n) {
  return new Intl.NumberFormat(lang, {
    notation: 'compact',
    compactDisplay: 'long',
    maximumSignificantDigits: 2,
  }).format(n);
}

export function applyI18n(root = document, { updateDocument = true } = {}) {
  // Written only when they change: setting <html lang>, even to the value it has, makes the
  // browser restyle the whole guide (a tenth of a second or more), and every demo's mount comes
  // here.
  if (updateDocument) {
    if (document.documentElement.lang !== lang) document.documentElement.lang = lang;
    const title = t('site.title');
    if (document.title !== title) document.title = title;
  }
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', t(el.dataset.i18nAria));
}

export function setLang(next, { updateUrl = true, updateDocument = true } = {}) {
  const changed = (next === 'en' ? 'en' : 'ko') !== lang;
  lang = next === 'en' ? 'en' : 'ko';
  if (updateUrl) {
    const url = new URL(location.href);
    if (lang === 'en') url.searchParams.set('lang', 'en');
    else url.searchParams.delete('lang');
    history.replaceState(history.state, '', url);
  }
  if (updateDocument) applyI18n();
  if (changed || updateDocument) for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export const languages = Object.keys(tables);
