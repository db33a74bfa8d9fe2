// The context a demo is mounted with: the engine, its settings store, and a progress channel.
// `progress(step, loss)` fires a bubbling `progress` event ({detail: {step, loss}}) on the host,
// which the page's status line and embedded widgets' listeners both read.
import { hashStore, attributeStore, reader } from './store.js';

// `worker()` starts (once) and returns the Worker-backed engine client for model sessions.
// `base` is the URL the page's static files (engine/, models/) are served under.
export function makeContext({ name, host, engine, worker, base, embedded = false }) {
  const store = embedded ? attributeStore(host) : hashStore(name);
  return {
    name, host, engine, worker, base, embedded, store,
    read: reader(store),
    progress(step, loss = null, extra = {}) {
      host.dispatchEvent(new CustomEvent('progress', { bubbles: true, detail: { step, loss, ...extra } }));
    },
  };
}
