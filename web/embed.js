// The embeddable widgets: one script that registers <attnlab-demo name="…">. Reference (every
// widget, attribute, method, event and file): docs/widgets.md.
//
// Settings come from the element's attributes (the same keys a demo keeps in the page's URL
// hash, e.g. <attnlab-demo name="sdpa" dk="64" scale="0">). Language is per widget: its `lang`
// attribute, else the nearest ancestor's (the host page's <html lang>), else the browser's
// language: "ko…" is Korean, any other English. Each language runs its own copy of the demo
// code (the widget build duplicates it, scripts/web/embed-build.mjs), so widgets in two
// languages on one page each render their own and the host page is never touched.
// Methods start(), pause() and reset() drive the demo's run; `progress` events carry
// {step, loss, total, done}; `ready` fires once mounted; `error` ({message, url}) when the widget
// cannot load what it needs, which it also says in its box (never a blank one).
//
// Files: this script (built to one file, dist/embed.js), the engine (engine/attnlab.mjs +
// attnlab.wasm; attnlab-relaxed.* and attnlab-mt.* optional) and the models a widget uses
// (models/index.json + models/<name>.safetensors), all resolved relative to this script's own
// URL. They may be served from another origin (a CDN, a course platform's file store) if that
// server sends Access-Control-Allow-Origin: the engine's Worker is an inline (same-origin Blob)
// module that loads the engine by absolute URL.
// Threads are opt-in: <attnlab-demo name="…" threads> trains in the pthread engine, which needs
// a cross-origin isolated host page (COOP: same-origin + COEP: require-corp headers, or
// Document-Isolation-Policy: isolate-and-require-corp; see docs/browser.md). Without isolation, or
// without the attribute, the single-thread engine runs; the element's data-engine attribute
// names the build its Worker loaded ('wasm', 'wasm-relaxed' or 'wasm-mt') and data-threads the
// thread count, and a `threads` element on a page that is not isolated logs why it runs on one
// thread.
import EngineWorker from './core/worker.js?worker&inline';
import { loadEngine, threadsAvailable } from './core/engine.js';
import { createEngine } from './core/client.js';
import { ensureWidgetStyles } from './viz/styles.js';
import { persistenceNote } from './core/storage.js';
import { softwareAdapter } from './gpu/adapter.js';
import { WIDGET_MODELS } from 'virtual:attnlab-widgets';

/* global __ATTNLAB_VERSION__ */
export const version = typeof __ATTNLAB_VERSION__ === 'string' ? __ATTNLAB_VERSION__ : 'dev';
const base = new URL(/* @vite-ignore */ './', import.meta.url).href;

// One module graph per language (see embed-lang.js).
const LANGUAGES = {
  ko: () => import('./embed-lang.js?lang=ko'),
  en: () => import('./embed-lang.js?lang=en'),
};

// What the widget itself says while it loads or when it cannot (the demos' own strings come
// with their language's graph, which may be what failed to load).
const MESSAGES = {
  en: {
    loading: 'Loading the attnlab widget…',
    unknown: 'Unknown widget “{name}”. The widgets are: {names}.',
    engine:
      'This widget could not load the attnlab engine: {file} is {why}. The engine files (engine/attnlab.mjs, engine/attnlab.wasm) must sit next to embed.js ({base}).',
    model:
      'This widget could not load its model: {file} is {why}. Copy models/index.json and the model files it uses next to embed.js ({base}).',
    missing: 'missing (HTTP {status})',
    blocked: 'blocked or unreachable (a server on another origin must send Access-Control-Allow-Origin)',
    failed: 'This widget could not start: {message}',
    storage:
      'This browser does not let the page keep anything (storage is blocked here): models trained in these widgets last only until the page closes.',
    gpu: 'Trains on the GPU: WebGPU · {adapter}.',
    software: 'Trains on WebGPU in a software renderer ({adapter}): the CPU computes it, not a GPU.',
    wasm: 'Trains in WebAssembly on the CPU.',
  },
  ko: {
    loading: 'attnlab 위젯을 불러오는 중…',
    unknown: '“{name}”이라는 위젯은 없습니다. 위젯: {names}.',
    engine:
      '이 위젯이 attnlab 엔진을 불러오지 못했습니다: {file} 파일이 {why}. 엔진 파일(engine/attnlab.mjs, engine/attnlab.wasm)은 embed.js와 같은 곳({base})에 있어야 합니다.',
    model:
      '이 위젯이 모델을 불러오지 못했습니다: {file} 파일이 {why}. models/index.json과 위젯이 쓰는 모델 파일을 embed.js와 같은 곳({base})에 두세요.',
    missing: '없습니다 (HTTP {status})',
    blocked: '차단되었거나 닿지 않습니다 (다른 출처의 서버는 Access-Control-Allow-Origin 헤더를 보내야 합니다)',
    failed: '이 위젯을 시작하지 못했습니다: {message}',
    storage:
      '이 브라우저에서는 페이지가 아무것도 저장할 수 없습니다(저장소 차단). 이 위젯들에서 학습한 모델은 페이지를 닫을 때까지만 유지됩니다.',
    gpu: 'GPU에서 학습: WebGPU · {adapter}.',
    software: '소프트웨어 렌더러의 WebGPU에서 학습 ({adapter}): GPU가 아니라 CPU가 계산합니다.',
    wasm: 'CPU의 WebAssembly에서 학습.',
  },
};
const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));

class WidgetError extends Error {
  constructor(message, url = null) {
    super(message);
    this.url = url;
  }
}

// The language of one widget: its own or the nearest ancestor's lang attribute, else the
// browser's (navigator.language): "ko…" is Korean, anything else English.
export function widgetLang(el) {
  const l = (el.closest('[lang]')?.getAttribute('lang') ?? '').trim().toLowerCase() || browserLang();
  return l.startsWith('ko') ? 'ko' : 'en';
}
const browserLang = () => (globalThis.navigator?.language ?? '').trim().toLowerCase();

// null when `url` can be fetched from here, else why not ({status} or {blocked: true}).
async function probe(url) {
  try {
    const r = await fetch(url, { method: 'HEAD', cache: 'no-store' });
    return r.ok ? null : { status: r.status };
  } catch {
    return { blocked: true };
  }
}
const why = (p, text) => (p.blocked ? text.blocked : fill(text.missing, { status: p.status }));

// The main-thread engine (small computations), once per page; a failure is explained by the
// first engine file that cannot be fetched.
let mainEngine = null;
function engineFor(text) {
  mainEngine ??= loadEngine(base);
  return mainEngine.catch(async (e) => {
    for (const file of ['engine/attnlab.mjs', 'engine/attnlab.wasm']) {
      const url = new URL(file, base).href;
      const p = await probe(url);
      if (p) throw new WidgetError(fill(text.engine, { file, why: why(p, text), base }), url);
    }
    throw new WidgetError(fill(text.failed, { message: e.message }));
  });
}

// The models a widget loads must be there before it mounts (a demo without its model would
// otherwise say only that this build has none).
async function checkModels(name, text) {
  const files = WIDGET_MODELS[name] ?? [];
  if (!files.length) return;
  for (const file of ['models/index.json', ...files]) {
    const url = new URL(file, base).href;
    const p = await probe(url);
    if (p) throw new WidgetError(fill(text.model, { file, why: why(p, text), base }), url);
  }
}

// The inline engine Worker. Its module is a Blob; a sandboxed frame (an opaque origin, self.origin
// 'null') cannot start a Blob module Worker, so there the inline Worker takes the data: URL that
// it falls back to when no Blob URL is made.
function startWorker() {
  if (globalThis.origin !== 'null') return new EngineWorker();
  const make = URL.createObjectURL;
  URL.createObjectURL = () => '';
  try {
    return new EngineWorker();
  } finally {
    URL.createObjectURL = make;
  }
}

// The Worker that trains, one per page and threads and backend setting, started when a demo
// first needs it.
const workerClients = new Map();
const workerFor = (threads, backend) => {
  const key = `${threads} ${backend}`;
  if (!workerClients.has(key)) workerClients.set(key, createEngine({ base, threads, backend, worker: startWorker }));
  return workerClients.get(key);
};
const BACKENDS = ['auto', 'webgpu', 'wasm'];

class AttnlabDemo extends HTMLElement {
  static get observedAttributes() {
    return ['name', 'lang'];
  }
  static get version() {
    return version;
  }

  connectedCallback() {
    if (!this.mounted) this.#mount();
  }

  // A new name or language remounts the widget.
  attributeChangedCallback(_attr, before, now) {
    if (this.mounted && before !== now) {
      this.#unmount();
      this.#mount();
    }
  }

  disconnectedCallback() {
    this.#unmount();
  }

  // Where its models train, as data-backend and, for a widget that names a backend or got the
  // GPU, in a line under it (a software renderer such as SwiftShader is named as one).
  #showBackend(ev) {
    this.dataset.backend = ev.backend;
    if (!this.hasAttribute('backend') && ev.backend !== 'webgpu') return;
    const text = MESSAGES[this.dataset.lang === 'ko' ? 'ko' : 'en'];
    let line = this.querySelector(':scope > .widget-backend');
    if (!line) {
      line = Object.assign(document.createElement('p'), { className: 'widget-backend note' });
      this.append(line);
    }
    line.textContent =
      ev.backend === 'webgpu'
        ? fill(softwareAdapter(ev.adapter) ? text.software : text.gpu, { adapter: ev.adapter ?? 'WebGPU' })
        : text.wasm;
  }

  #mount() {
    ensureWidgetStyles();
    const lang = widgetLang(this);
    const text = MESSAGES[lang];
    const name = this.getAttribute('name');
    const token = {};
    this.token = token;
    this.classList.add('demo-host', 'attnlab-widget');
    this.dataset.lang = lang;
    delete this.dataset.ready;
    delete this.dataset.error;
    this.textContent = text.loading;
    const threads = this.hasAttribute('threads') && this.getAttribute('threads') !== 'false';
    if (threads && !threadsAvailable())
      console.info(
        'attnlab-demo: threads asked for, but this page is not cross-origin isolated (no COOP/COEP headers): one thread'
      );
    // backend="webgpu" | "wasm" | "auto" (the default: the faster, timed per model)
    let backend = (this.getAttribute('backend') ?? 'auto').trim().toLowerCase() || 'auto';
    if (!BACKENDS.includes(backend)) {
      console.warn(`attnlab-demo: backend "${backend}" is not one of ${BACKENDS.join(', ')}: auto`);
      backend = 'auto';
    }
    // The Worker starts when a demo first needs it (training); it then labels us.
    const worker = () => {
      const p = workerFor(threads, backend);
      p.then(
        (w) => {
          if (!this.backendLabel) this.backendLabel = w.on('engine', (ev) => this.#showBackend(ev));
          this.dataset.engine = w.info.build;
          this.dataset.threads = String(w.info.build === 'wasm-mt' ? (w.info.poolSize ?? w.info.kernelThreads) : 1);
        },
        () => {}
      );
      return p;
    };
    this.mounted = (async () => {
      const widgets = (await LANGUAGES[lang]()).widgetsIn(lang);
      if (!widgets.demoNames.includes(name))
        throw new WidgetError(fill(text.unknown, { name, names: widgets.demoNames.join(', ') }));
      const [engine] = await Promise.all([engineFor(text), checkModels(name, text)]);
      if (this.token !== token) return null; // renamed or removed meanwhile
      this.textContent = '';
      const ctx = widgets.makeContext({ name, host: this, engine, worker, base, embedded: true });
      const handle = await widgets.mountDemo(name, this, ctx);
      ctx.showAdjusted(); // an attribute the demo could not use, and what it used instead
      this.adjustments = ctx.adjustments;
      if (this.token !== token) {
        handle.unmount?.();
        return null;
      }
      widgets.applyI18n(this, { updateDocument: false });
      this.handle = handle;
      // where the browser refuses storage, the first widget to mount says so (once per page)
      if (await persistenceNote()) {
        const note = Object.assign(document.createElement('p'), {
          className: 'storage-note note',
          textContent: text.storage,
        });
        note.setAttribute('role', 'status');
        this.prepend(note);
      }
      if (this.token !== token) return null;
      this.dataset.ready = '1';
      this.dispatchEvent(new CustomEvent('ready'));
      return handle;
    })().catch((e) => {
      if (this.token === token)
        this.#fail(e instanceof WidgetError ? e : new WidgetError(fill(text.failed, { message: e.message })));
      return null;
    });
  }

  #unmount() {
    const mounted = this.mounted;
    this.mounted = null;
    this.token = null;
    this.handle = null;
    mounted?.then((h) => h?.unmount?.()).catch(() => {});
  }

  // Says in the box what is missing, and tells the host page through an `error` event.
  #fail(e) {
    this.dataset.error = '1';
    const box = document.createElement('p');
    box.className = 'attnlab-error';
    box.setAttribute('role', 'alert');
    box.textContent = e.message;
    this.replaceChildren(box);
    console.warn(`attnlab-demo ${this.getAttribute('name')}: ${e.message}`);
    this.dispatchEvent(new CustomEvent('error', { detail: { message: e.message, url: e.url ?? null } }));
  }

  // Rejects with an Error naming the attributes the widget could not use as given (the box says
  // which value it uses instead; the reader's Start button trains with it), or why the run could
  // not start.
  async start() {
    const handle = await this.mounted;
    if (!handle) throw new Error(`attnlab-demo ${this.getAttribute('name')}: not mounted`);
    const adjusted = this.adjustments?.() ?? [];
    if (adjusted.length)
      throw new Error(`attnlab-demo ${this.getAttribute('name')}: ${adjusted.map((a) => a.text).join(' ')}`);
    // resolves once training runs (its first progress event), or when there is nothing to start
    const run = handle.start?.();
    const progress = new Promise((resolve) => this.addEventListener('progress', resolve, { once: true }));
    await Promise.race([run, progress]);
  }
  async pause() {
    (await this.mounted)?.pause?.();
  }
  async reset() {
    (await this.mounted)?.reset?.();
  }
}

if (!customElements.get('attnlab-demo')) customElements.define('attnlab-demo', AttnlabDemo);
