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
// key's default.
export function reader(store) {
  const note = (key, def) => store.defaults?.({ [key]: def });
  return {
    num(key, def, lo = -Infinity, hi = Infinity) {
      note(key, def);
      const raw = store.get(key);
      const x = raw === null || raw === '' ? NaN : Number(raw);
      return Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : def;
    },
    bool(key, def) {
      note(key, def);
      const raw = store.get(key);
      return raw === null ? def : raw === '1' || raw === 'true' || raw === '';
    },
    str(key, def, allowed) {
      note(key, def);
      const raw = store.get(key);
      return raw !== null && (!allowed || allowed.includes(raw)) ? raw : def;
    },
  };
}
