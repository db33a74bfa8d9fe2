// Build-time (Node) facts about the <attnlab-demo> widgets, read from the demos' own code so the
// widget script, its manifest and the widget reference (docs/widgets.md, checked by
// tests/package/widgets-doc.test.mjs) cannot drift from it:
//   attributes  every key a demo reads from its element (ctx.read.num/numIn/int/str/bool('key', ...),
//               ctx.store.get('key')); a key built from a template (`s${i}`) is reported as
//               its pattern ('s${i}'); a demo that asks the reader to predict
//               (predict(ctx, ...), web/demos/common/predict.js) reads `guess`
//   properties  what a demo leaves on its element for the host page (el.result = ..., ...)
//   models      the files under models/ a demo loads (the keys of models/index.json its code
//               names)
// plus the attributes and events of the element itself (web/embed.js).
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';

// Element properties a demo sets on its host that are not results for the page.
const DOM_PROPERTIES = new Set(['innerHTML', 'textContent', 'className', 'hidden', 'value', 'disabled', 'title']);

function sources(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => readFileSync(path.join(dir, f), 'utf8'));
}

function uniqueSorted(xs) {
  return [...new Set(xs)].sort();
}

const sizeOf = (file) => (existsSync(file) ? statSync(file).size : null);

// The attribute keys read by one demo's code.
export function attributeKeys(code) {
  const keys = [];
  // a call may be split across lines before its dot (`read\n  .str('mute', '')`, as Prettier writes a chain)
  for (const m of code.matchAll(/\bread\s*\.(?:num|numIn|int|str|bool)\(\s*(['"`])((?:(?!\1).)+)\1/g)) keys.push(m[2]);
  for (const m of code.matchAll(/\bstore\s*\.get\(\s*(['"`])((?:(?!\1).)+)\1\s*\)/g)) keys.push(m[2]);
  if (/\bpredict\(\s*ctx\b/.test(code)) keys.push('guess');
  return uniqueSorted(keys);
}

export function elementProperties(code) {
  const props = [];
  for (const m of code.matchAll(/\bel\.([A-Za-z_$][\w$]*)\s*(?:\?\?)?=(?!=)/g))
    if (!DOM_PROPERTIES.has(m[1])) props.push(m[1]);
  return uniqueSorted(props);
}

export function modelIndex(root) {
  const file = path.join(root, 'web', 'public', 'models', 'index.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
}

// {name: {attributes, properties, models: [{key, file, bytes}]}} for every demo folder (and
// every name in `names`, so a name without a folder of its own is listed with nothing).
export function widgetManifest(root, names = null) {
  const demos = path.join(root, 'web', 'demos');
  const folders = readdirSync(demos).filter(
    (d) => statSync(path.join(demos, d)).isDirectory() && existsSync(path.join(demos, d, 'index.js'))
  );
  const index = modelIndex(root);
  const out = {};
  for (const name of uniqueSorted([...(names ?? folders.filter((d) => d !== 'common' && d !== 'pending'))])) {
    const code = sources(path.join(demos, name)).join('\n');
    // a model's checkpoint, and the files that travel with it (held-out examples, licence, words)
    const models = Object.entries(index)
      .filter(([key]) => new RegExp(`['"\`]${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"\`]`).test(code))
      .flatMap(([key, meta]) =>
        [meta.file, meta.examples, meta.licenceFile, meta.words].filter(Boolean).map((file) => ({
          key,
          file,
          bytes: file === meta.file ? (meta.bytes ?? null) : sizeOf(path.join(root, 'web', 'public', file)),
        }))
      );
    out[name] = { attributes: attributeKeys(code), properties: elementProperties(code), models };
  }
  return out;
}

// The attributes <attnlab-demo> itself reads (name, lang, threads), its public methods and the
// events it and its demos' context fire.
export function elementFacts(root) {
  const code = readFileSync(path.join(root, 'web', 'embed.js'), 'utf8');
  const attributes = uniqueSorted(
    [...code.matchAll(/\b(?:getAttribute|hasAttribute)\(\s*'([^']+)'\s*\)/g)].map((m) => m[1])
  );
  const context = readFileSync(path.join(root, 'web', 'demos', 'common', 'context.js'), 'utf8');
  const events = uniqueSorted([...`${code}\n${context}`.matchAll(/new CustomEvent\(\s*'([^']+)'/g)].map((m) => m[1]));
  const methods = uniqueSorted(
    [...code.matchAll(/^ {2}(?:async )?([a-z][A-Za-z]*)\([^)]*\)\s*{/gm)]
      .map((m) => m[1])
      .filter((m) => !m.endsWith('Callback') && m !== 'constructor' && !m.startsWith('_'))
  );
  return { attributes, events, methods };
}

// Vite plugin: `virtual:attnlab-widgets` gives the widget script each demo's model files.
export function widgetsPlugin(root) {
  const id = 'virtual:attnlab-widgets';
  return {
    name: 'attnlab-widgets',
    resolveId: (source) => (source === id ? `\0${id}` : null),
    load(resolved) {
      if (resolved !== `\0${id}`) return null;
      const models = Object.fromEntries(
        Object.entries(widgetManifest(root)).map(([name, w]) => [name, w.models.map((m) => m.file)])
      );
      return `export const WIDGET_MODELS = ${JSON.stringify(models)};`;
    },
  };
}
