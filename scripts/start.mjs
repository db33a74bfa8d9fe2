// `npm start`: installs what is missing, builds the engine incrementally, and serves the guide
// with Vite's dev server (COOP/COEP on, so the threaded engine can load). Prints the URL;
// Ctrl-C stops it. PORT=… picks the port (default 5173, the next free one if taken).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { must } from './lib/run.mjs';
import { buildEngine } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
try {
  await must('bash', [path.join(root, 'scripts', 'setup.sh')]);
  await buildEngine({ pageOnly: true });
} catch (e) {
  console.error(`attnlab: build failed: ${e.message}`);
  process.exit(1);
}
const { createServer } = await import('vite');
const server = await createServer({
  configFile: path.join(root, 'vite.config.js'),
  server: { port: Number(process.env.PORT || 5173) },
});
await server.listen();
console.log(`\nattnlab guide: ${server.resolvedUrls.local[0]}\n(Ctrl-C stops the server)`);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close().then(() => process.exit(0)));
