// The guide page: sources in web/, static output in dist/ (relative URLs, so any static host
// or a plain folder serves it). Two entries: the page (index.html) and the embeddable widget
// script (embed.js, fixed name). The dev server sends COOP/COEP so the threaded engine can load.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { codePlugin } from './web/demos/code/extract.mjs';
import { embedExamplePlugin } from './web/embed-example.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: './',
  publicDir: 'public',
  plugins: [codePlugin(root), embedExamplePlugin(root)],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      input: {
        index: fileURLToPath(new URL('./web/index.html', import.meta.url)),
        embed: fileURLToPath(new URL('./web/embed.js', import.meta.url)),
      },
      output: { entryFileNames: (chunk) => (chunk.name === 'embed' ? 'embed.js' : 'assets/[name]-[hash].js') },
    },
  },
  worker: { format: 'es' },
  server: { headers: isolation, host: '127.0.0.1' },
  preview: { headers: isolation, host: '127.0.0.1' },
});
