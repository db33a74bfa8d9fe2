// The two browser engines besides Chromium, behind one small interface, so one suite runs in
// each: Firefox ESR through puppeteer-core over WebDriver BiDi, and WebKitGTK (Safari's engine)
// through WebKitWebDriver and MiniBrowser under xvfb-run, over classic WebDriver (HTTP).
//   const b = await openBrowser('firefox' | 'webkit', { env });
//   await b.goto(url); await b.evaluate(fn, ...args); await b.waitFor(fn, ms, ...args);
//   await b.reload(); await b.close(); b.logs() (the page's last console lines, Firefox only)
// evaluate() runs fn in the page (its source is sent, so it closes over nothing) and awaits a
// returned promise. A browser that is not installed gives null from openBrowser (a skip).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const FIREFOX = '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const XVFB_RUN = '/usr/bin/xvfb-run';

// What is missing to run an engine ('' when it can run).
export function missing(name) {
  const need = name === 'firefox' ? [FIREFOX] : [WEBKIT_DRIVER, MINIBROWSER, XVFB_RUN];
  return need.filter((f) => !existsSync(f)).join(', ');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls fn in the page until it returns a truthy value; the error names what was awaited.
async function poll(evaluate, fn, ms, args) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await evaluate(fn, ...args);
      if (last) return last;
    } catch (e) {
      last = e; // a page between documents (a reload) answers with an error for a moment
    }
    if (Date.now() > end)
      throw new Error(
        `waited ${ms} ms for ${String(fn).slice(0, 160)}${args.length ? ` with ${JSON.stringify(args)}` : ''}${last instanceof Error ? ` (${last.message})` : ''}`
      );
    await sleep(250);
  }
}

async function openFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = mkdtempSync(path.join(os.tmpdir(), 'attnlab-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
    protocol: 'webDriverBiDi',
    extraPrefsFirefox: { 'intl.accept_languages': 'en-US, en' },
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const evaluate = (fn, ...args) => page.evaluate(fn, ...args);
  // the page's console and uncaught errors, the last 40 lines, for a failure's message
  const lines = [];
  const log = (s) => lines.push(s) > 40 && lines.shift();
  page.on('console', (m) => log(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log(`uncaught: ${e.message}`));
  return {
    name: 'firefox',
    logs: () => lines.slice(),
    version: await browser.version(),
    goto: (url) => page.goto(url, { waitUntil: 'load', timeout: 120000 }),
    reload: () => page.reload({ waitUntil: 'load', timeout: 120000 }),
    evaluate,
    waitFor: (fn, ms, ...args) => poll(evaluate, fn, ms, args),
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function openWebKit({ env = {} } = {}) {
  const port = await freePort();
  // its own process group, so close() ends Xvfb, the driver and the browser together
  const child = spawn(XVFB_RUN, ['-a', '-s', '-screen 0 1280x900x24', WEBKIT_DRIVER, `--port=${port}`], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, url, body) => {
    const res = await fetch(base + url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${json.value?.error ?? res.status}: ${json.value?.message ?? ''}`);
    return json.value;
  };
  let session;
  for (let i = 0; ; i++) {
    try {
      session = await call('POST', '/session', {
        capabilities: {
          alwaysMatch: {
            'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
            timeouts: { script: 300000, pageLoad: 120000 },
          },
        },
      });
      break;
    } catch (e) {
      if (i > 80 || child.exitCode !== null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {}
        throw new Error(`WebKitWebDriver did not start a session: ${e.message} ${stderr.slice(-400)}`);
      }
      await sleep(250);
    }
  }
  const sid = `/session/${session.sessionId}`;
  await call('POST', `${sid}/window/rect`, { width: 1280, height: 900 }).catch(() => {});
  // The function's source runs in the page; its result (or its error's message) comes back.
  const evaluate = async (fn, ...args) => {
    const script = `const done = arguments[arguments.length - 1];
      const args = Array.prototype.slice.call(arguments, 0, -1);
      Promise.resolve().then(() => (${String(fn)}).apply(null, args))
        .then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ error: String(e && e.message || e) }));`;
    const r = await call('POST', `${sid}/execute/async`, { script, args });
    if (r && typeof r === 'object' && 'error' in r) throw new Error(r.error);
    return r?.ok;
  };
  return {
    name: 'webkit',
    logs: () => [],
    version: session.capabilities.browserVersion,
    goto: (url) => call('POST', `${sid}/url`, { url }),
    reload: () => call('POST', `${sid}/refresh`, {}),
    evaluate,
    waitFor: (fn, ms, ...args) => poll(evaluate, fn, ms, args),
    close: async () => {
      await call('DELETE', sid).catch(() => {});
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
    },
  };
}

export async function openBrowser(name, opts) {
  if (missing(name)) return null;
  return name === 'firefox' ? openFirefox(opts) : openWebKit(opts);
}
