// The guide page: sources in web/, static output in dist/ (relative URLs, so any static host
// or a plain folder serves it). The embeddable widget script (dist/embed.js, one file) has its
// own build, scripts/web/embed-build.mjs, run after this one. The dev server sends COOP/COEP so the
// threaded engine can load (and serves web/embed.js too).
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { codePlugin } from './scripts/web/code-extract.mjs';
import { embedExamplePlugin } from './scripts/web/embed-example.mjs';
import { widgetsPlugin } from './scripts/web/widgets-manifest.mjs';
import { engineHashes } from './scripts/web/engine-hashes.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// A build puts each engine file's content hash in its URL (scripts/web/engine-hashes.mjs); the dev
// server, whose engine files change under it, asks for them by name.
export default defineConfig(({ command }) => ({
  define: { __ATTNLAB_ENGINE_HASHES__: JSON.stringify(command === 'build' ? engineHashes(root) : {}) },
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: './',
  publicDir: 'public',
  plugins: [codePlugin(root), embedExamplePlugin(root), widgetsPlugin(root)],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      input: { index: fileURLToPath(new URL('./web/index.html', import.meta.url)) },
    },
  },
  worker: { format: 'es' },
  server: { headers: isolation, host: '127.0.0.1' },
  preview: { headers: isolation, host: '127.0.0.1' },
}));
