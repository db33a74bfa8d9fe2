// Where a demo keeps its settings: the page's URL hash under "<demo>.<key>" (so a link
// reproduces the view), or, for an embedded widget, the element's attributes (read) and memory
// (written), leaving the host page's URL alone.
// The hash holds only what differs from a demo's defaults: `reader` tells the store each key's
// default as the demo reads it (a demo whose defaults follow another setting restates them with
// store.defaults), and set() drops a key whose value is its default. Old links that spell out
// defaults read the same settings. A bare key in the hash (#bahdanau) names the section the
// reader is at (web/main.js keeps it first and current).

// The hash's pairs in order, and the hash written back from them (a bare key stays bare).
export function hashParams() {
  return new URLSearchParams(location.hash.slice(1));
}
export function writeHash(params) {
  const pairs = [...params].map(([k, v]) => {
    const kv = new URLSearchParams([[k, v]]).toString();
    return v === '' ? kv.replace(/=$/, '') : kv;
  });
  const hash = pairs.length ? `#${pairs.join('&')}` : '';
  if (hash === location.hash || (!hash && !location.hash)) return;
  history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
}

const text = (v) => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));

export function hashStore(prefix) {
  const defaults = new Map(); // key -> its default, as set() would write it
  return {
    get: (key) => hashParams().get(`${prefix}.${key}`),
    defaults(values) {
      for (const [k, v] of Object.entries(values)) defaults.set(k, text(v));
    },
    set(values) {
      const p = hashParams();
      for (const [k, v] of Object.entries(values)) {
        // null: the key leaves the URL; so does a value equal to its default
        if (v === null || defaults.get(k) === text(v)) p.delete(`${prefix}.${k}`);
        else p.set(`${prefix}.${k}`, text(v));
      }
      writeHash(p);
    },
  };
}

export function attributeStore(host) {
  const mem = new Map();
  return {
    get: (key) => (mem.has(key) ? mem.get(key) : host.getAttribute(key)),
    defaults() {}, // an attribute stands until set() overrides it, default or not
    set(values) {
      for (const [k, v] of Object.entries(values)) mem.set(k, v === null ? null : text(v));
    },
  };
}

// Typed reads with defaults and clamping, shared by the demos; each read tells the store the
// key's default. Every value from outside (a share link's hash, a widget's attribute) passes
// here: num() a finite number in [lo, hi], int() also a whole one (a step count, a length, a
// seed), str() one of `allowed`. A value that is not is replaced (the default, the bound, the
// nearest whole number), and `adjusted({key, value, used, why, lo, hi, allowed})` is told once per
// key and value, so the demo's host can say what was used instead.
export function reader(store, adjusted = () => {}) {
  const note = (key, def) => store.defaults?.({ [key]: def });
  const told = new Set();
  const tell = (key, value, used, why, extra = {}) => {
    const id = `${key}=${value}`;
    if (told.has(id)) return;
    told.add(id);
    adjusted({ key, value, used, why, ...extra });
  };
  const number = (key, def, lo, hi, whole) => {
    note(key, def);
    const raw = store.get(key);
    if (raw === null || raw === undefined) return def;
    const x = raw === '' ? NaN : Number(raw);
    if (!Number.isFinite(x)) {
      tell(key, raw, def, 'nan');
      return def;
    }
    const y = whole ? Math.round(x) : x;
    const used = Math.min(hi, Math.max(lo, y));
    if (used !== x) tell(key, raw, used, used !== y ? 'range' : 'int', { lo, hi });
    return used;
  };
  return {
    num: (key, def, lo = -Infinity, hi = Infinity) => number(key, def, lo, hi, false),
    int: (key, def, lo = -Infinity, hi = Infinity) => number(key, def, lo, hi, true),
    // a number that must be one of `list` (a width, a head count the model offers)
    numIn(key, def, list) {
      const x = number(key, def, -Infinity, Infinity, false);
      if (list.includes(x)) return x;
      tell(key, store.get(key), def, 'choice', { allowed: list });
      return def;
    },
    bool(key, def) {
      note(key, def);
      const raw = store.get(key);
      return raw === null ? def : raw === '1' || raw === 'true' || raw === '';
    },
    str(key, def, allowed) {
      note(key, def);
      const raw = store.get(key);
      if (raw === null || raw === undefined) return def;
      if (allowed && !allowed.includes(raw)) {
        tell(key, raw, def, 'choice', { allowed });
        return def;
      }
      return raw;
    },
  };
}

// One line per adjusted value, in the page's words (t from the demo's i18n).
export function adjustedText(t, a) {
  const why =
    a.why === 'range'
      ? t('settings.range', { lo: a.lo, hi: a.hi })
      : a.why === 'choice'
        ? t('settings.choice', { allowed: a.allowed.join(', ') })
        : t(`settings.${a.why}`);
  const shown = (v) => (String(v).length > 40 ? `${String(v).slice(0, 40)}…` : String(v));
  // a setting whose default is no value at all (an unanswered question) is left unset
  if (a.used === '') return t('settings.unset', { key: a.key, value: shown(a.value), why });
  return t('settings.adjusted', { key: a.key, value: shown(a.value), why, used: shown(a.used) });
}
