// Bench rows for the guide page, measured in headless Chromium on the built dist/ (served
// by Vite's preview server on loopback, one cold load per sample, median of 3):
//   first contentful paint; time until the first engine-backed demo (§5 sdpa, page opened at
//   #dot-product) is interactive; total bytes transferred by then (HTML, JS, CSS, fonts, wasm).
// Rows follow build/bench.json's shape {name, unit, attnlab, peer, peer_value, ratio}; there is
// no peer for these, so peer fields are null. Run alone: `node bench/rows/page.mjs` prints
// the rows and merges them into build/bench.json.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launch, root } from '../../tests/browser/harness.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function sample(browser, url) {
  const page = await browser.newPage({ width: 1280, height: 900 });
  const client = await page.context().newCDPSession(page);
  await client.send('Network.enable');
  await client.send('Network.setCacheDisabled', { cacheDisabled: true });
  let bytes = 0;
  client.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
  });
  await page.goto(url);
  await page.waitForSelector('[data-demo=sdpa][data-ready="1"]', { timeout: 60000 });
  const t = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    demo: performance.getEntriesByName('attnlab:ready:sdpa')[0]?.startTime ?? NaN,
  }));
  await page.close();
  return { ...t, bytes };
}

export async function pageRows({ samples = 3 } = {}) {
  if (!existsSync(path.join(root, 'dist', 'index.html'))) throw new Error('dist/ is missing: run npm run build first');
  const server = await startServer();
  const browser = await launch();
  try {
    const runs = [];
    for (let i = 0; i < samples; i++) runs.push(await sample(browser, `${server.url}#dot-product`));
    const row = (name, unit, value) => ({
      name,
      unit,
      attnlab: Number(value.toFixed(unit === 'KiB' ? 0 : 1)),
      peer: null,
      peer_value: null,
      ratio: null,
    });
    return [
      row('page: first contentful paint (headless Chromium, loopback)', 'ms', median(runs.map((r) => r.fcp))),
      row('page: first engine demo interactive (§5 sdpa)', 'ms', median(runs.map((r) => r.demo))),
      row('page: bytes transferred until then', 'KiB', median(runs.map((r) => r.bytes)) / 1024),
    ];
  } finally {
    await browser.close();
    await server.close();
  }
}

// The bench driver's entry (bench/bench.mjs).
export const rows = (ctx = {}) => pageRows({ samples: ctx.quick ? 1 : 3 });

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await pageRows();
  for (const r of rows) console.log(`${r.name.padEnd(62)} ${String(r.attnlab).padStart(9)} ${r.unit}`);
  const file = path.join(root, 'build', 'bench.json');
  mkdirSync(path.dirname(file), { recursive: true });
  const old = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
  const names = new Set(rows.map((r) => r.name));
  writeFileSync(file, `${JSON.stringify([...old.filter((r) => !names.has(r.name)), ...rows], null, 2)}\n`);
}
