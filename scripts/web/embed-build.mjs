// The widget script's build (run after the page's, scripts/build.mjs): web/embed.js into one
// file, dist/embed.js, with a fixed name and no chunks (and dist/embed-manifest.json, which
// lists the files and the widgets), so a course page needs only
//   embed.js + engine/attnlab.{mjs,wasm} (+ the optional flavours) + the models its widgets use
// (docs/widgets.md lists them with their sizes). The engine's Worker is inlined (a Blob module
// Worker, which browsers allow whatever origin embed.js came from); the stylesheets are inlined
// by viz/styles.js.
//
// Language graphs: web/embed.js imports './embed-lang.js?lang=ko' and '?lang=en'. The plugin
// below carries that tag to every module the tagged one reaches under web/demos/ and to
// web/i18n/index.js, so each language gets its own instances of the demos and of the i18n
// state (the language tables, the engine client, the charts and the styles stay shared).
import { readFileSync, writeFileSync, existsSync, statSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { codePlugin } from './code-extract.mjs';
import { widgetsPlugin, widgetManifest } from './widgets-manifest.mjs';
import { engineHashes } from './engine-hashes.mjs';

const TAG = /[?&]lang=(ko|en)(?=&|$)/;

export function languageGraphs(root) {
  const web = path.join(root, 'web');
  const demos = path.join(web, 'demos') + path.sep;
  const tagged = (file) =>
    file.startsWith(demos) || file === path.join(web, 'i18n', 'index.js') || file === path.join(web, 'embed-lang.js');
  return {
    name: 'attnlab-language-graphs',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      const own = TAG.exec(source)?.[1];
      const inherited = importer ? TAG.exec(importer)?.[1] : undefined;
      const lang = own ?? inherited;
      if (!lang) return null;
      const bare = own ? source.replace(TAG, '').replace(/\?$/, '') : source;
      const from = importer?.replace(TAG, '').replace(/\?$/, '');
      const r = await this.resolve(bare, from, { ...options, skipSelf: true });
      if (!r || r.external) return r;
      const file = r.id.split('?')[0];
      if (!tagged(file) || r.id.includes('?')) return r;
      return { ...r, id: `${file}?lang=${lang}` };
    },
    load(id) {
      if (!TAG.test(id)) return null;
      return readFileSync(id.replace(TAG, '').replace(/\?$/, ''), 'utf8');
    },
  };
}

export function embedConfig(root) {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return {
    configFile: false,
    root: path.join(root, 'web'),
    base: './',
    publicDir: false,
    logLevel: 'warn',
    plugins: [languageGraphs(root), widgetsPlugin(root), codePlugin(root)],
    define: {
      __ATTNLAB_VERSION__: JSON.stringify(version),
      __ATTNLAB_ENGINE_HASHES__: JSON.stringify(engineHashes(root)),
    },
    worker: { format: 'es' },
    build: {
      outDir: path.join(root, 'dist'),
      emptyOutDir: false,
      copyPublicDir: false,
      target: 'es2022',
      minify: true,
      rolldownOptions: {
        input: path.join(root, 'web', 'embed.js'),
        preserveEntrySignatures: 'strict',
        output: {
          format: 'es',
          entryFileNames: 'embed.js',
          codeSplitting: false,
          postBanner: `/*! attnlab ${version} widget script (<attnlab-demo>). Loads engine/attnlab*.{mjs,wasm} and models/ relative to its own URL; reference: docs/widgets.md. MIT licence; includes uPlot (MIT). */`,
        },
      },
    },
  };
}

// dist/embed-manifest.json: what a course page copies (every file beside embed.js, its size,
// whether it is needed) and, per widget, the attributes it reads and the models it loads.
export function writeEmbedManifest(root) {
  const dist = path.join(root, 'dist');
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const files = {};
  const add = (rel, need) => {
    if (existsSync(path.join(dist, rel))) files[rel] = { bytes: statSync(path.join(dist, rel)).size, need };
  };
  add('embed.js', 'always');
  add('engine/attnlab.mjs', 'always');
  add('engine/attnlab.wasm', 'always');
  for (const f of ['attnlab-relaxed.mjs', 'attnlab-relaxed.wasm'])
    add(`engine/${f}`, 'optional: fused multiply-add where the browser has relaxed SIMD');
  for (const f of ['attnlab-mt.mjs', 'attnlab-mt.wasm', 'attnlab-mt.worker.js'])
    add(`engine/${f}`, 'optional: the threads attribute on a cross-origin isolated page');
  const widgets = widgetManifest(root);
  const users = (file) => Object.keys(widgets).filter((w) => widgets[w].models.some((m) => m.file === file));
  if (existsSync(path.join(dist, 'models'))) {
    add('models/index.json', 'widgets with a model');
    for (const f of readdirSync(path.join(dist, 'models'))
      .filter((x) => x !== 'index.json')
      .sort())
      add(`models/${f}`, `widgets: ${users(`models/${f}`).join(', ') || 'none'}`);
  }
  const manifest = {
    name: 'attnlab',
    version,
    script: 'embed.js',
    element: 'attnlab-demo',
    reference: 'docs/widgets.md',
    files,
    widgets: Object.fromEntries(
      Object.entries(widgets).map(([n, w]) => [n, { attributes: w.attributes, models: w.models.map((m) => m.file) }])
    ),
  };
  writeFileSync(path.join(dist, 'embed-manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
