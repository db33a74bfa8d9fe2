// The embeddable widgets: one script that registers <attnlab-demo name="…">. Settings come
// from the element's attributes (the same keys a demo keeps in the page's URL hash, e.g.
// <attnlab-demo name="sdpa" dk="64" scale="0">); `lang="en"` picks English. Methods start() and
// pause() drive the demo's run; `progress` events carry {step, loss}; `ready` fires once mounted.
// The engine and the demo chunks load relative to this script, so a static folder serves it.
// Threads are opt-in: <attnlab-demo name="…" threads> trains in the pthread engine, which needs
// a cross-origin isolated host page (COOP: same-origin + COEP: require-corp headers, or
// Document-Isolation-Policy: isolate-and-require-corp; see the README). Without isolation, or
// without the attribute, the single-thread engine runs; the element's data-engine attribute
// names the build its Worker loaded ('wasm' or 'wasm-mt') and data-threads the thread count, and
// a `threads` element on a page that is not isolated logs why it runs on one thread.
import { loadEngine, threadsAvailable } from './core/engine.js';
import { createEngine } from './core/client.js';
import { mountDemo, demoNames } from './demos/registry.js';
import { makeContext } from './demos/common/context.js';
import { applyI18n, setLang, t } from './i18n/index.js';
import { ensureWidgetStyles } from './viz/styles.js';

const base = new URL('./', import.meta.url).href;
const workerClients = new Map();  // threads wanted (true/false) -> Worker engine client
const workerFor = (threads) => () => {
  if (!workerClients.has(threads)) workerClients.set(threads, createEngine({ base, threads }));
  return workerClients.get(threads);
};

class AttnlabDemo extends HTMLElement {
  connectedCallback() {
    if (this.mounted) return;
    ensureWidgetStyles();
    const lang = (this.closest('[lang]')?.getAttribute('lang') ?? 'ko').startsWith('en') ? 'en' : 'ko';
    setLang(lang, { updateUrl: false, updateDocument: false });
    const name = this.getAttribute('name');
    this.classList.add('demo-host', 'attnlab-widget');
    this.textContent = t('engine.loading');
    const threads = this.hasAttribute('threads') && this.getAttribute('threads') !== 'false';
    if (threads && !threadsAvailable())
      console.info('attnlab-demo: threads asked for, but this page is not cross-origin isolated (no COOP/COEP headers): one thread');
    // The Worker starts when a demo first needs it (training), as before; it then labels us.
    const worker = () => {
      const p = workerFor(threads)();
      p.then((w) => {
        this.dataset.engine = w.info.build;
        this.dataset.threads = String(w.info.build === 'wasm-mt' ? w.info.poolSize ?? w.info.kernelThreads : 1);
      }, () => {});
      return p;
    };
    this.mounted = (async () => {
      if (!demoNames.includes(name)) throw new Error(t('demo.unknown', { name }));
      const engine = await loadEngine(base);
      this.textContent = '';
      this.handle = await mountDemo(name, this, makeContext({ name, host: this, engine, worker, base, embedded: true }));
      applyI18n(this, { updateDocument: false });
      this.dataset.ready = '1';
      this.dispatchEvent(new CustomEvent('ready'));
      return this.handle;
    })().catch((e) => { this.textContent = t('engine.error', { message: e.message }); throw e; });
  }

  disconnectedCallback() {
    this.mounted?.then((h) => h.unmount?.()).catch(() => {});
    this.mounted = null;
  }

  async start() { (await this.mounted)?.start?.(); }
  async pause() { (await this.mounted)?.pause?.(); }
  async reset() { (await this.mounted)?.reset?.(); }
}

if (!customElements.get('attnlab-demo')) customElements.define('attnlab-demo', AttnlabDemo);
