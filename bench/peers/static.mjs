// A plain static file server over loopback, as a static host serves dist/: files with their
// MIME types and no other headers (no COOP/COEP), unless `headers` adds some. Used by the
// threads browser test and bench (a Vite preview server adds its configured headers). `pages`
// adds in-memory HTML pages by path (e.g. a host page that frames the guide).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.safetensors': 'application/octet-stream',
};

export async function staticServer(dir, { headers = {}, pages = {} } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let file = decodeURIComponent(url.pathname);
    if (pages[file]) {
      res.writeHead(200, { 'Content-Type': TYPES['.html'], ...headers });
      res.end(pages[file]);
      return;
    }
    if (file.endsWith('/')) file += 'index.html';
    const full = path.join(dir, path.normalize(file));
    if (!full.startsWith(path.resolve(dir))) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (!(await stat(full)).isFile()) throw new Error('not a file');
      const body = await readFile(full);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(full)] ?? 'application/octet-stream', ...headers });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}
