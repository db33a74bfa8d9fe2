// The browser's language as a locale Intl accepts. navigator.language is not always a BCP 47 tag:
// WebKit under the system locale C says 'C', on which every Intl constructor throws a RangeError
// (the chart library formats its axes with new Intl.NumberFormat(navigator.language) as it
// loads). Imported before that library: where the browser's tag is not one Intl takes, the page
// reads 'en' (English number formats) from navigator.language and navigator.languages.
function valid(tag) {
  try {
    return typeof tag === 'string' && Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

const nav = globalThis.navigator;
if (nav && !valid(nav.language)) {
  try {
    Object.defineProperty(nav, 'language', { value: 'en', configurable: true });
    const others = [...(nav.languages ?? [])].filter(valid);
    Object.defineProperty(nav, 'languages', {
      value: Object.freeze(others.length ? others : ['en']),
      configurable: true,
    });
  } catch {
    /* a navigator that cannot be changed: browserLocale() still answers */
  }
}

// navigator.language if Intl takes it, else 'en'.
export function browserLocale() {
  return valid(nav?.language) ? nav.language : 'en';
}
