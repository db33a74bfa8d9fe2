// Browser-test harness: serves the built dist/ over loopback (Vite's preview server) and
// drives Debian's Chromium headless through playwright-core. Collects console errors per page.
// Screenshots go to test-results/screenshots/.
// A run of scripts/test.mjs starts these once and hands them to every test file it starts:
// ATTNLAB_DIST_URL, the URL of a preview server of dist/ (startServer() with no options answers
// it instead of starting one), and ATTNLAB_CHROMIUM_WS, the endpoint of a Chromium started by
// chromium.launchServer() (launch() connects to it and opens a fresh browser context, with its
// own storage, cache and service workers, instead of starting a browser with a fresh profile).
// A file run alone (node --test tests/browser/x.test.mjs) starts its own.
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, existsSync, rmSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS } from '../../scripts/lib/chromium-flags.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const shots = path.join(root, 'test-results', 'screenshots');

export { CHROMIUM_ARGS };

export const SHARED_SERVER_ENV = 'ATTNLAB_DIST_URL';
export const SHARED_CHROMIUM_ENV = 'ATTNLAB_CHROMIUM_WS';

export async function startServer({ isolated = false, dir = 'dist' } = {}) {
  if (!existsSync(path.join(root, dir, 'index.html')))
    throw new Error(`${dir}/index.html is missing: run npm run build first`);
  const shared = process.env[SHARED_SERVER_ENV];
  if (shared && !isolated && dir === 'dist') return { url: shared, close: async () => {} };
  const { preview } = await import('vite'); // a second or more of a file's start: only when used
  const headers = isolated
    ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
    : {};
  const server = await preview({
    configFile: path.join(root, 'vite.config.js'),
    logLevel: 'silent',
    build: { outDir: path.join(root, dir) },
    preview: { port: 0, host: '127.0.0.1', strictPort: false, headers },
  });
  const url = server.resolvedUrls.local[0];
  return { url, close: () => new Promise((r) => server.httpServer.close(r)) };
}

// bypassCSP: the page's Content-Security-Policy (web/index.html) refuses inline scripts and string
// evaluation, which tests use to reach into the page; tests/browser/csp.test.mjs runs under it
// (bypassCSP false), as do the Firefox and WebKit lanes.
const CHROMIUM = { executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS };

// The Chromium a run shares (its wsEndpoint() goes in ATTNLAB_CHROMIUM_WS); close() ends it.
export function launchSharedChromium() {
  return chromium.launchServer(CHROMIUM);
}

export async function launch({ bypassCSP = true } = {}) {
  const ws = process.env[SHARED_CHROMIUM_ENV];
  let context, release;
  if (ws) {
    const browser = await chromium.connect(ws);
    context = await browser.newContext({ bypassCSP });
    release = async () => {
      await context.close();
      await browser.close(); // disconnects; the shared Chromium runs on
    };
  } else {
    const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, { ...CHROMIUM, bypassCSP });
    release = async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    };
  }
  mkdirSync(shots, { recursive: true });
  return {
    context,
    async newPage({ width = 1280, height = 900 } = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      page.errors = [];
      page.on('console', (m) => {
        if (m.type() === 'error') page.errors.push(m.text());
      });
      page.on('pageerror', (e) => page.errors.push(String(e)));
      return page;
    },
    close: release,
  };
}

// The usual set-up of a browser test file, as node:test before/after hooks: the guide served
// (startServer with `isolated` and `dir`; `server: false` serves nothing) and one Chromium
// (launch with `bypassCSP`), both closed when the file's tests end. Returns `server` and
// `browser` handles that reach the ones started by the hook once it has run (server.url,
// browser.newPage, browser.context), so a file names them as it would its own variables.
export function usePage({ isolated = false, dir = 'dist', bypassCSP = true, server: serve = true } = {}) {
  const state = { server: null, browser: null };
  const started = (what) => {
    if (!state[what]) throw new Error(`usePage: the ${what} is used before its before() hook ran`);
    return state[what];
  };
  before(async () => {
    if (serve) state.server = await startServer({ isolated, dir });
    state.browser = await launch({ bypassCSP });
  });
  after(async () => {
    await state.browser?.close();
    await state.server?.close();
  });
  return {
    server: {
      get url() {
        return started('server').url;
      },
    },
    browser: {
      get context() {
        return started('browser').context;
      },
      newPage: (opts) => started('browser').newPage(opts),
    },
  };
}

// A download's bytes. Not download.path(): it throws in a browser reached by connect() (the
// shared Chromium of a scripts/test.mjs run); the stream works in both.
export async function downloadBytes(download) {
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

// The guide opened on one demo, scrolled to it and mounted: `lang` 'en' or the page's default
// (Korean), `hash` the share-link state, `width` the viewport. page.pending: the engine build
// lacks what the demo needs (it shows a placeholder).
export async function openDemo(browser, server, name, { lang = 'en', hash = '', width = 1280 } = {}) {
  const page = await browser.newPage({ width, height: 900 });
  await page.goto(`${server.url}${lang === 'en' ? '?lang=en' : ''}#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator(`[data-demo=${name}]`).scrollIntoViewIfNeeded();
  await page.waitForSelector(`[data-demo=${name}][data-ready="1"]`, { timeout: 60000 });
  page.pending = (await page.locator(`[data-demo=${name}]`).getAttribute('data-pending')) === '1';
  return page;
}

// A plain static file server for `dir` on a free loopback port (no Vite): `headers` go on every
// response (e.g. Access-Control-Allow-Origin for a second origin serving the widget files), or
// headers(urlPath) gives each response's;
// `deny(urlPath)` true answers 404 (a file the host lacks). requests lists the paths asked for.
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.safetensors': 'application/octet-stream',
};
// `dir` may be a function giving the folder to serve now (a host that switches releases); urls
// lists the whole URLs asked for, queries included.
export async function serveDir(dir, { headers = {}, deny = () => false } = {}) {
  const http = await import('node:http');
  const { createReadStream, statSync } = await import('node:fs');
  const requests = [];
  const urls = [];
  const server = http.createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(p);
    urls.push(req.url);
    const hdrs = typeof headers === 'function' ? headers(p) : headers;
    const here = typeof dir === 'function' ? dir() : dir;
    const file = path.join(here, p.endsWith('/') ? `${p}index.html` : p);
    let ok = file.startsWith(path.resolve(here)) && !deny(p);
    try {
      ok = ok && statSync(file).isFile();
    } catch {
      ok = false;
    }
    if (!ok) {
      res.writeHead(404, hdrs);
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'no-store',
      ...hdrs,
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    requests,
    urls,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(r);
      }),
  };
}

// axe-core (WCAG 2.0/2.1 A and AA; `tags` to add others, e.g. 'wcag22aa' for target size) on one
// demo of the page: its serious and critical violations, one line each ("rule selector"); the
// script is added to the page once.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export async function axeDemo(page, name, { tags = [] } = {}) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE); // not a script tag: the page's CSP allows no inline script
  return page.evaluate(
    async ({ sel, tags }) => {
      const r = await window.axe.run(
        { include: [[sel]] },
        {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', ...tags] },
          resultTypes: ['violations'],
        }
      );
      return r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .flatMap((v) => v.nodes.map((n) => `${v.id} ${n.target.join(' ')}`));
    },
    { sel: `[data-demo=${name}]`, tags }
  );
}

// Until the store holds demo `name`'s run at the step its progress bar shows (data-kept, set once
// IndexedDB has it): a reload before that would restore an older save.
export async function waitKept(page, name, timeout = 60000) {
  await page.waitForFunction(
    (n) => {
      const run = document.querySelector(`[data-demo=${n}] .run`);
      return run?.dataset.kept !== undefined && run.dataset.kept === String(run.querySelector('progress')?.value);
    },
    name,
    { timeout }
  );
}
