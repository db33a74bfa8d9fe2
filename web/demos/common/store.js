// Where a demo keeps its settings: the page's URL hash under "<demo>.<key>" (so a link
// reproduces the view), or, for an embedded widget, the element's attributes (read) and memory
// (written), leaving the host page's URL alone.
export function hashStore(prefix) {
  const params = () => new URLSearchParams(location.hash.slice(1));
  return {
    get: (key) => params().get(`${prefix}.${key}`),
    set(values) {
      const p = params();
      for (const [k, v] of Object.entries(values)) {
        if (v === null) p.delete(`${prefix}.${k}`);  // null: the key leaves the URL
        else p.set(`${prefix}.${k}`, typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
      }
      history.replaceState(history.state, '', `${location.pathname}${location.search}#${p}`);
    },
  };
}

export function attributeStore(host) {
  const mem = new Map();
  return {
    get: (key) => (mem.has(key) ? mem.get(key) : host.getAttribute(key)),
    set(values) {
      for (const [k, v] of Object.entries(values)) mem.set(k, v === null ? null : typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
    },
  };
}

// Typed reads with defaults and clamping, shared by the demos.
export function reader(store) {
  return {
    num(key, def, lo = -Infinity, hi = Infinity) {
      const raw = store.get(key);
      const x = raw === null || raw === '' ? NaN : Number(raw);
      return Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : def;
    },
    bool(key, def) {
      const raw = store.get(key);
      return raw === null ? def : raw === '1' || raw === 'true' || raw === '';
    },
    str(key, def, allowed) {
      const raw = store.get(key);
      return raw !== null && (!allowed || allowed.includes(raw)) ? raw : def;
    },
  };
}
