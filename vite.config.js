// The guide page: sources in web/, static output in dist/ (relative URLs, so any static host
// or a plain folder serves it). The dev server sends COOP/COEP so the threaded engine can load.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: './',
  publicDir: 'public',
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
  },
  worker: { format: 'es' },
  server: { headers: isolation, host: '127.0.0.1' },
  preview: { headers: isolation, host: '127.0.0.1' },
});
