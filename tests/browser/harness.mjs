// Browser-test harness: serves the built dist/ over loopback (Vite's preview server) and
// drives Debian's Chromium headless through playwright-core. Collects console errors per page.
// Screenshots go to test-results/screenshots/.
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { mkdtempSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const shots = path.join(root, 'test-results', 'screenshots');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function startServer({ isolated = false, dir = 'dist' } = {}) {
  if (!existsSync(path.join(root, dir, 'index.html'))) throw new Error(`${dir}/index.html is missing: run npm run build first`);
  const headers = isolated
    ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
    : {};
  const server = await preview({
    configFile: path.join(root, 'vite.config.js'), logLevel: 'silent',
    build: { outDir: path.join(root, dir) },
    preview: { port: 0, host: '127.0.0.1', strictPort: false, headers },
  });
  const url = server.resolvedUrls.local[0];
  return { url, close: () => new Promise((r) => server.httpServer.close(r)) };
}

export async function launch() {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS,
  });
  mkdirSync(shots, { recursive: true });
  return {
    context,
    async newPage({ width = 1280, height = 900 } = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      page.errors = [];
      page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
      page.on('pageerror', (e) => page.errors.push(String(e)));
      return page;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
