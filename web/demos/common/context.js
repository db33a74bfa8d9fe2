// The context a demo is mounted with: the engine, its settings store, and a progress channel.
// `progress(step, loss)` fires a bubbling `progress` event ({detail: {step, loss}}) on the host,
// which the page's status line and embedded widgets' listeners both read.
// The store is wrapped so that the keys a demo reads or writes are remembered: `settings()`
// returns their current values (those set), the attributes of an equivalent <attnlab-demo>.
// A value from the link or the attributes that the demo cannot use as given (store.js's reader)
// is named in a note at the top of the host, with what is used instead; `adjustments()` lists
// them (an embedded widget's start() rejects with them).
import { hashStore, attributeStore, reader, adjustedText } from './store.js';
import { t, onLangChange } from '../../i18n/index.js';

function adjustmentNote(host, list) {
  let note = null;
  const render = () => {
    if (!list.length) return;
    if (!note || !host.contains(note)) {
      note = document.createElement('p');
      note.className = 'settings-note note';
      note.setAttribute('role', 'status');
      host.prepend(note);
    }
    note.replaceChildren(...list.flatMap((a, i) => [...(i ? [document.createElement('br')] : []), adjustedText(t, a)]));
  };
  onLangChange(render);
  return render;
}

// `worker()` starts (once) and returns the Worker-backed engine client for model sessions.
// `tex(formula)` (the page's KaTeX; null in a widget) gives an inline formula's HTML.
// `base` is the URL the page's static files (engine/, models/) are served under.
export function makeContext({ name, host, engine, worker, base, embedded = false, tex = null }) {
  const inner = embedded ? attributeStore(host) : hashStore(name);
  const keys = new Set();
  const store = {
    ...inner,
    get(key, ...rest) {
      keys.add(key);
      return inner.get(key, ...rest);
    },
    set(values, ...rest) {
      Object.keys(values).forEach((k) => keys.add(k));
      return inner.set(values, ...rest);
    },
  };
  const adjusted = [];
  const showAdjusted = adjustmentNote(host, adjusted);
  return {
    name,
    host,
    engine,
    worker,
    base,
    embedded,
    tex,
    store,
    read: reader(store, (a) => {
      adjusted.push(a);
      showAdjusted();
    }),
    adjustments: () => adjusted.map((a) => ({ ...a, text: adjustedText(t, a) })),
    showAdjusted,
    settings() {
      const out = {};
      for (const k of keys) {
        const v = inner.get(k);
        if (v !== null && v !== undefined) out[k] = v;
      }
      return out;
    },
    progress(step, loss = null, extra = {}) {
      host.dispatchEvent(new CustomEvent('progress', { bubbles: true, detail: { step, loss, ...extra } }));
    },
  };
}
