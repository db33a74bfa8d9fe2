// Page entry: builds the sections of web/sections.js, in its order, from the content fragments
// of the current language, numbers them (headings, table of contents, cross-references),
// typesets their formulas, and mounts each demo into its placeholder when it nears the viewport
// or takes the keyboard's focus. The URL hash keeps the section being read (a bare key, first)
// beside the demos' settings, so a link opens where its sender was.
// A language switch swaps the prose only: live demo hosts (and any training in them) move over
// into the new fragment's placeholders.
// Long because: the page's start-up, read in the order it runs (sections, numbering, formulas,
// lazy mounting, the hash, the engine line and its backend menu).
import 'katex/dist/katex.min.css';
import './style.css';
import { SECTIONS, sectionKey, sectionLabel } from './sections.js';
import { applyI18n, getLang, setLang, t, onLangChange } from './i18n/index.js';
import { loadEngine, expectedEngine, engineLabel } from './core/engine.js';
import { crossOriginIsolate } from './core/coi.js';
import { createEngine, moduleWorker } from './core/client.js';
import { THREAD_SPLITS } from './core/protocol.js';
import workerUrl from './core/worker.js?worker&url';
import { mountDemo, demoNames } from './demos/registry.js';
import { makeContext } from './demos/common/context.js';
import { hashParams, writeHash } from './demos/common/store.js';
import { typeset, focusScrollers, texHtml } from './viz/tex.js';
import { fillFacts } from './demos/common/facts.js';
import { initTheme } from './theme.js';
import { local, persistenceNote } from './core/storage.js';
import { ensureWidgetStyles } from './viz/styles.js';
import { softwareAdapter } from './gpu/adapter.js';

const fragments = import.meta.glob('./i18n/content/*/*.html', { query: '?raw', import: 'default' });
const hosts = new Map(); // demo name -> host element (kept across language switches)
const handles = new Map(); // demo name -> {unmount, relabel?, ...}
let engine = null;
let engineError = null;
let workerClient = null;
// The Worker's engine (the one that trains): threaded when the page is cross-origin isolated.
// The engine line names it once it runs.
// (moduleWorker: in a sandboxed frame the script is imported by a Blob Worker of the frame's own.)
const startWorker = () => moduleWorker(new URL(workerUrl, import.meta.url));
// Where models train: the reader's choice in the engine line's menu (kept in localStorage):
// 'auto' times a step on WebGPU and WebAssembly per model and takes the faster (web/gpu/choose.js).
const BACKEND_KEY = 'attnlab:backend';
const BACKENDS = ['auto', 'webgpu', 'wasm'];
const storedBackend = () => {
  const v = local.get(BACKEND_KEY);
  return BACKENDS.includes(v) ? v : 'auto';
};
// How threads share a training step (the pthread build only): the reader's choice, kept in
// localStorage. 'kernels' (exact: every kernel call split, the same numbers on any number of
// cores) or 'auto' (fast: the engine's cost model, thread ranks for the guide's Transformers).
const THREADS_KEY = 'attnlab:thread-split';
const storedThreadSplit = () => {
  const v = local.get(THREADS_KEY);
  return THREAD_SPLITS.includes(v) ? v : 'kernels';
};
const worker = () =>
  (workerClient ??= createEngine({
    base: document.baseURI,
    worker: startWorker,
    backend: storedBackend(),
    threadSplit: storedThreadSplit(),
  }).then((w) => {
    showEngine({ ...w.info, poolSize: w.info.poolSize });
    w.on('engine', showBackend);
    return w;
  }));

// The page's engine client for the browser console and tests: `await attnlab.engine()`
// (e.g. `.loseGpu()` shows the fall back from a lost GPU to WebAssembly).
window.attnlab = { engine: () => worker() };

// What the last model got: WebGPU and its adapter, or why WebAssembly runs.
let shownBackend = null;
function showBackend(ev) {
  // the GEMM note that follows a model's first chunk keeps what its verdict said about the CPU
  if (ev.gemm && !ev.reason && shownBackend?.backend === 'webgpu' && shownBackend.reason === 'wasm-failed')
    ev = { ...ev, reason: shownBackend.reason, detail: shownBackend.detail };
  shownBackend = ev;
  const el = document.getElementById('engine-gpu');
  if (!el) return;
  el.dataset.backend = ev.backend;
  el.dataset.reason = ev.reason ?? '';
  if (ev.backend === 'webgpu') {
    const name = Object.assign(document.createElement('span'), { lang: 'en', textContent: `WebGPU · ${ev.adapter}` });
    // SwiftShader is WebGPU drawn by the CPU: a software renderer, not a GPU
    el.replaceChildren(`— ${t(softwareAdapter(ev.adapter) ? 'engine.gpu.software' : 'engine.gpu.on')} `, name);
    // the GEMM kernel chosen for this adapter (web/gpu/table.js chooseGemm), once known
    if (ev.gemm) el.append(` · ${t('engine.gpu.gemm', { kernel: t(`engine.gpu.gemm.${ev.gemm}`) })}`);
    // Auto: the CPU side failed while timed, so WebGPU trains it (not "faster")
    if (ev.reason === 'wasm-failed')
      el.append(
        ` · ${t('engine.gpu.wasm-failed')} (`,
        Object.assign(document.createElement('span'), { lang: 'en', textContent: ev.detail ?? '' }),
        ')'
      );
    return;
  }
  const round = (x) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 1 : 0) : '?');
  const vars = { step: ev.step ?? 0, gpu: round(ev.ms?.webgpu), wasm: round(ev.ms?.wasm) };
  el.textContent = ev.reason ? `— ${t(`engine.gpu.${ev.reason}`, vars)}` : '';
  // the browser's own words (English), marked as such
  if (ev.detail && ev.reason !== 'chosen' && ev.reason !== 'slower')
    el.append(' (', Object.assign(document.createElement('span'), { lang: 'en', textContent: ev.detail }), ')');
}

// A menu of the engine line: <label class="engine-NAME"><span>word</span> <select id=
// "engine-NAME"></label>, its options' words from i18n keys engine.NAME.VALUE, its value kept
// in localStorage under `key` (where storage is refused the choice lasts for this page) and
// given to the Worker's client by `send(client, value)`.
function engineMenu(name, values, key, stored, send) {
  const label = document.createElement('label');
  label.className = `engine-${name}`;
  const select = Object.assign(document.createElement('select'), { id: `engine-${name}` });
  for (const v of values) {
    const o = Object.assign(document.createElement('option'), { value: v });
    o.dataset.i18n = `engine.${name}.${v}`;
    select.append(o);
  }
  select.value = stored();
  select.addEventListener('change', async () => {
    local.set(key, select.value);
    if (workerClient) await send(await workerClient, select.value);
  });
  const text = document.createElement('span');
  text.dataset.i18n = `engine.${name}`;
  label.append(text, ' ', select);
  return label;
}

const backendMenu = () =>
  engineMenu('backend', BACKENDS, BACKEND_KEY, storedBackend, (client, v) => client.setBackend(v));
// The threads menu, shown where the Worker runs the pthread build.
const threadsMenu = () =>
  engineMenu('threads', THREAD_SPLITS, THREADS_KEY, storedThreadSplit, (client, v) => client.setThreadSplit(v));

// Static hosts: our service worker (web/public/coi-sw.js) makes the page cross-origin isolated
// after one reload; where it cannot, `isolation.reason` says why and one thread runs.
const isolation = await crossOriginIsolate();

let shownEngine = null;
function showEngine(info) {
  shownEngine = info;
  const el = document.getElementById('engine-build');
  if (!el) return;
  el.dataset.build = info.build;
  // the build's label is the same technical English in both languages (lang=en); why one thread
  // runs follows in the page's language
  const label = Object.assign(document.createElement('span'), { lang: 'en', textContent: engineLabel(info) });
  el.replaceChildren(label);
  if (info.build !== 'wasm-mt' && !isolation.isolated) {
    el.dataset.reason = isolation.reason;
    el.append(` — ${t(`engine.single.${isolation.reason}`)}`);
  }
}

// A section's number (§N) comes from its place in SECTIONS; fragments carry none.
const num = (s) => `<span class="num">${sectionLabel(s.id) || '◆'}</span>`;
const heading = (s) => `<h2>${num(s)} ${t(`section.${s.id}.title`)}</h2>`;

function fallbackFragment(s) {
  const demos = s.demos.map((d) => `<div data-demo="${d}"></div>`).join('');
  return `${heading(s)}<p>${t(`section.${s.id}.summary`)}</p>${demos}`;
}

async function fragmentFor(s, lang) {
  const load = fragments[`./i18n/content/${lang}/${s.id}.html`];
  if (!load) return fallbackFragment(s);
  const html = await load();
  if (!/<h2[\s>]/i.test(html)) return `${heading(s)}${html}`;
  return sectionLabel(s.id) ? html.replace(/<h2>/i, `<h2>${num(s)} `) : html;
}

// Cross-references in the prose, <a class="ref" href="#key"></a>: the referenced section's
// number, and a jump that keeps the demos' settings in the URL hash.
function fillReferences(main) {
  for (const a of main.querySelectorAll('a.ref')) {
    const key = sectionKey(a.getAttribute('href').slice(1));
    a.textContent = key ? sectionLabel(key) : a.getAttribute('href');
    a.dataset.section = key ?? '';
  }
}

function renderNav() {
  const nav = document.getElementById('toc');
  const label = (s) => [sectionLabel(s.id), t(`section.${s.id}.nav`)].filter(Boolean).join(' ');
  nav.innerHTML = SECTIONS.map((s) => `<a href="#${s.id}" data-section="${s.id}">${label(s)}</a>`).join('');
  nav.querySelectorAll('a').forEach((a) =>
    a.addEventListener('click', (e) => {
      e.preventDefault();
      scrollToSection(a.dataset.section);
    })
  );
}

// Demos mount as they come near the viewport and push the sections below them down while the
// page scrolls: a table-of-contents jump keeps its section at the top until the layout has been
// still for a moment, the reader scrolls on their own, or 10 s have passed. Anything that takes
// the page elsewhere once the section has arrived (find in page, a focused control, a script)
// also ends the hold: the section's top then lies more than a window's height away.
let anchoring = null;
function scrollToSection(id, behavior = 'smooth') {
  const target = document.getElementById(id);
  if (!target) return;
  anchoring?.stop();
  target.scrollIntoView({ behavior });
  const main = document.getElementById('sections');
  let still = null,
    first = true;
  const settle = () => {
    clearTimeout(still);
    still = setTimeout(stop, 1500);
  };
  const ro = new ResizeObserver(() => {
    if (first) {
      first = false;
      return;
    } // the call made by observe() itself
    target.scrollIntoView({ behavior: 'instant' });
    settle();
  });
  const quit = ['wheel', 'touchstart', 'keydown', 'mousedown'];
  const hard = setTimeout(stop, 10000);
  let arrived = false; // a smooth jump passes through far-away positions on its way
  const onScroll = () => {
    const away = Math.abs(target.getBoundingClientRect().top) > innerHeight;
    if (!away) arrived = true;
    else if (arrived) stop();
  };
  function stop() {
    ro.disconnect();
    clearTimeout(still);
    clearTimeout(hard);
    quit.forEach((ev) => removeEventListener(ev, stop, true));
    removeEventListener('scroll', onScroll);
    if (anchoring?.stop === stop) anchoring = null;
  }
  quit.forEach((ev) => addEventListener(ev, stop, { capture: true, passive: true }));
  addEventListener('scroll', onScroll, { passive: true });
  onScroll();
  ro.observe(main);
  settle();
  anchoring = { stop, id };
  showSection(id);
}

// The section being read: the last one whose top has passed a third of the way down the window
// (none above the first). It goes first in the hash, in place of any other section key, as the
// reader scrolls (at most every 300 ms, by replaceState: no history entries); while a jump holds
// its section at the top, that section.
function sectionInView() {
  const line = innerHeight / 3;
  let at = null;
  for (const s of SECTIONS) {
    const el = document.getElementById(s.id);
    if (el && el.getBoundingClientRect().top <= line) at = s.id;
  }
  return at;
}
function showSection(id) {
  const p = [...hashParams()].filter(([k, v]) => !(v === '' && sectionKey(k)));
  writeHash(id ? [[id, ''], ...p] : p);
}
let tracking = null;
function trackSection() {
  addEventListener(
    'scroll',
    () => {
      tracking ??= setTimeout(() => {
        tracking = null;
        showSection(anchoring?.id ?? sectionInView());
      }, 300);
    },
    { passive: true }
  );
}

const observer = new IntersectionObserver(
  (entries) => {
    for (const e of entries)
      if (e.isIntersecting) {
        observer.unobserve(e.target);
        mountHost(e.target);
      }
  },
  { rootMargin: '600px 0px' }
);

// A demo not yet mounted is a tab stop of its own, so the keyboard reaches every demo in page
// order: focusing it mounts the demo, and the focus moves on to the demo's first control (its
// last when the reader came backwards, with Shift+Tab) unless it went elsewhere meanwhile.
const waiting = new Set(); // hosts focused before the engine was there
function focusTarget(host) {
  host.tabIndex = 0;
  host.addEventListener('focusin', (e) => {
    if (e.target !== host || host.dataset.ready) return;
    const back =
      e.relatedTarget instanceof Node &&
      host.compareDocumentPosition(e.relatedTarget) & Node.DOCUMENT_POSITION_FOLLOWING;
    host.dataset.focusFrom = back ? 'after' : 'before';
    if (engine || engineError) mountHost(host);
    else waiting.add(host);
  });
}
const tabbable = (host) =>
  [...host.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')].filter(
    (el) =>
      el.tabIndex >= 0 && !el.disabled && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden'
  );
function passFocus(host) {
  const from = host.dataset.focusFrom;
  delete host.dataset.focusFrom;
  host.removeAttribute('tabindex');
  const lost = document.activeElement === host || document.activeElement === document.body || !document.activeElement;
  if (!from || !lost) return;
  const stops = tabbable(host);
  (from === 'after' ? stops.at(-1) : stops[0])?.focus();
}

async function mountHost(host) {
  const name = host.dataset.demo;
  if (handles.has(name)) return;
  handles.set(name, {});
  if (engineError) {
    host.textContent = t('engine.error', { message: engineError.message });
    passFocus(host);
    return;
  }
  try {
    const ctx = makeContext({ name, host, engine, worker, base: document.baseURI, tex: texHtml });
    const handle = await mountDemo(name, host, ctx);
    ctx.showAdjusted(); // a link's value the demo could not use, and what it used instead
    handles.set(name, handle);
    applyI18n(host);
    host.dataset.ready = '1';
    passFocus(host);
    performance.mark(`attnlab:ready:${name}`, { detail: { pending: host.dataset.pending === '1' } });
  } catch (e) {
    host.textContent = t('engine.error', { message: e.message });
    throw e;
  }
}

async function renderSections() {
  const lang = getLang();
  const html = await Promise.all(SECTIONS.map((s) => fragmentFor(s, lang)));
  const main = document.getElementById('sections');
  for (const host of hosts.values()) host.remove();
  main.innerHTML = SECTIONS.map(
    (s, i) => `
    <section id="${s.id}" class="guide-section">
      ${html[i]}
    </section>`
  ).join('');
  for (const ph of main.querySelectorAll('[data-demo]')) {
    const name = ph.dataset.demo;
    if (!demoNames.includes(name)) {
      ph.textContent = t('demo.unknown', { name });
      continue;
    }
    const live = hosts.get(name);
    if (live) {
      ph.replaceWith(live);
      continue;
    }
    ph.classList.add('demo-host');
    ph.innerHTML = `<p class="demo-loading">${t('engine.loading')}</p>`;
    focusTarget(ph);
    hosts.set(name, ph);
    if (engine || engineError) observer.observe(ph);
  }
  fillReferences(main);
  fillFacts(main, document.baseURI).catch(() => {}); // model figures in the prose, from the models
  typeset(main);
  stopScrollers?.();
  stopScrollers = focusScrollers(main, t('a11y.formula'));
}
let stopScrollers = null;

document.getElementById('sections').addEventListener('click', (e) => {
  const ref = e.target.closest?.('a.ref');
  if (!ref?.dataset.section) return;
  e.preventDefault();
  scrollToSection(ref.dataset.section);
});
// A language switch keeps the reader's place in the text. Landmarks both languages share (each
// section's top and heading, each demo's top and bottom, in document coordinates) are measured
// before the switch; the line under the header is put back at the same fraction of the way
// between the two landmarks around it (between a demo's top and bottom that is the same pixel),
// and held there while demos relabel, redraw or mount, until the layout has been still for a
// moment, the reader scrolls, or 5 s have passed.
const readingLine = () => {
  const header = document.querySelector('.site-header');
  return header && getComputedStyle(header).position === 'sticky' ? header.getBoundingClientRect().bottom : 0;
};
function landmarks() {
  const marks = [];
  const at = (key, y) => marks.push([key, y + scrollY]);
  for (const s of document.querySelectorAll('#sections > section')) {
    at(s.id, s.getBoundingClientRect().top);
    const h = s.querySelector('h2');
    if (h) at(`${s.id} h2`, h.getBoundingClientRect().top);
    for (const d of s.querySelectorAll('[data-demo]')) {
      const r = d.getBoundingClientRect();
      at(`demo ${d.dataset.demo}`, r.top);
      at(`demo ${d.dataset.demo} end`, r.bottom);
    }
  }
  return marks.sort((p, q) => p[1] - q[1]);
}
function readingPlace() {
  if (scrollY <= 0) return null;
  const y = scrollY + readingLine();
  const marks = landmarks();
  if (!marks.length) return null;
  const k = Math.max(
    0,
    marks.findLastIndex(([, m]) => m <= y)
  );
  const [a, ya] = marks[k];
  const next = marks[k + 1];
  return { a, b: next?.[0], frac: next ? (y - ya) / Math.max(1, next[1] - ya) : 0, offset: y - ya };
}
function restorePlace(place) {
  const marks = new Map(landmarks());
  const ya = marks.get(place.a),
    yb = marks.get(place.b);
  if (ya === undefined) return;
  const y = yb === undefined ? ya + place.offset : ya + place.frac * (yb - ya);
  window.scrollTo({ top: y - readingLine(), behavior: 'instant' });
}
function holdPlace(place) {
  if (!place) return;
  restorePlace(place);
  let still = null;
  const ro = new ResizeObserver(() => {
    restorePlace(place);
    clearTimeout(still);
    still = setTimeout(stop, 1000);
  });
  const quit = ['wheel', 'touchstart', 'keydown', 'mousedown'];
  const hard = setTimeout(stop, 5000);
  function stop() {
    ro.disconnect();
    clearTimeout(still);
    clearTimeout(hard);
    quit.forEach((ev) => removeEventListener(ev, stop, true));
  }
  quit.forEach((ev) => addEventListener(ev, stop, { capture: true, passive: true }));
  ro.observe(document.getElementById('sections'));
  still = setTimeout(stop, 1000);
}
// measured before setLang, which retranslates the static text at once
let placeBeforeSwitch = null;
// the language button names the other language, in that language (its lang says which)
const langToggle = document.getElementById('lang-toggle');
const markToggle = () => {
  langToggle.lang = getLang() === 'ko' ? 'en' : 'ko';
};
markToggle();
onLangChange(markToggle);
langToggle.addEventListener('click', () => {
  placeBeforeSwitch = readingPlace();
  setLang(getLang() === 'ko' ? 'en' : 'ko');
});
// body[data-lang] names the language once a switch is complete: prose re-rendered, demos relabelled
let switches = 0;
onLangChange(async () => {
  const seq = ++switches;
  delete document.body.dataset.lang;
  const place = placeBeforeSwitch ?? readingPlace();
  placeBeforeSwitch = null;
  renderNav();
  await renderSections();
  for (const h of handles.values()) h.relabel?.();
  applyI18n();
  if (shownEngine) showEngine(shownEngine);
  if (shownBackend) showBackend(shownBackend);
  holdPlace(place);
  if (seq === switches) document.body.dataset.lang = getLang();
});
ensureWidgetStyles();
initTheme(document.getElementById('theme-toggle'));
// Where the browser refuses storage, one note under the engine line says that nothing is kept.
persistenceNote().then((show) => {
  if (!show) return;
  const note = Object.assign(document.createElement('p'), { id: 'storage-note', className: 'storage-note note' });
  note.dataset.i18n = 'storage.none';
  note.setAttribute('role', 'status');
  note.textContent = t('storage.none');
  document.getElementById('engine-line')?.after(note);
});
const enginePromise = loadEngine();
enginePromise.catch(() => {});
applyI18n();
renderNav();
await renderSections();
try {
  engine = await enginePromise;
  await engine.info();
  // one line: what the engine is, then the build that runs (and, on one thread, why)
  const line = document.getElementById('engine-line');
  const expected = expectedEngine();
  delete line.dataset.i18n;
  line.innerHTML =
    '<span data-i18n="engine.ready"></span> <span id="engine-build" class="engine-build"></span> <span id="engine-gpu" class="engine-gpu"></span> ';
  line.append(backendMenu());
  if (expected.build === 'wasm-mt') line.append(threadsMenu());
  applyI18n(line, { updateDocument: false });
  showEngine(expected);
  if (shownBackend) showBackend(shownBackend);
} catch (e) {
  engineError = e;
  console.error(e);
}
performance.mark('attnlab:engine');
for (const host of hosts.values()) observer.observe(host);
for (const host of waiting) mountHost(host);
waiting.clear();
document.body.dataset.ready = '1';
if (!switches) document.body.dataset.lang = getLang();
// A section named in the hash (#bahdanau, beside any demo settings) is scrolled to and held at
// the top while the demos around it mount; the hash then names it by its key, first (one of the
// old positional anchors, #s04, becomes #bahdanau). From then on the hash follows the reader's
// scrolling.
const anchor = [...hashParams()].find(([k, v]) => v === '' && sectionKey(k));
if (anchor) scrollToSection(sectionKey(anchor[0]), 'instant');
trackSection();
