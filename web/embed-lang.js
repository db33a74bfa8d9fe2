// One language's copy of the widget code, for web/embed.js. The widget build gives each language
// its own instance of this module and everything it reaches under demos/ and i18n/index.js
// (scripts/web/embed-build.mjs), so that language state is per widget: an English widget and a
// Korean one on the same page each render their own strings, and neither touches the host page.
import { mountDemo, demoNames } from './demos/registry.js';
import { makeContext } from './demos/common/context.js';
import { applyI18n, setLang, t } from './i18n/index.js';

export function widgetsIn(lang) {
  setLang(lang, { updateUrl: false, updateDocument: false });
  return { mountDemo, demoNames, makeContext, applyI18n, t };
}
