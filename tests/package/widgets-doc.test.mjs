// docs/widgets.md against the code, so the widget reference cannot drift:
//   - every widget the registry knows (web/demos/registry.js, loaded through Vite as the page
//     loads it) has a section, and every section names a registered widget;
//   - each section's attributes are exactly the keys the demo's code reads from its element,
//     its models exactly the models/ files the demo's code names, and its properties (when the
//     section lists them) exactly what the demo leaves on its element;
//   - the attributes of every widget, the methods and the events are those of web/embed.js (and
//     the demos' context);
//   - the files table names every file of the built widget bundle (dist/: embed.js, engine/,
//     models/) with its size (within 25 %), and embed-manifest.json agrees.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { widgetManifest, elementFacts } from '../../scripts/web/widgets-manifest.mjs';
import { SECTIONS, sectionLabel } from '../../web/sections.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const doc = readFileSync(path.join(root, 'docs', 'widgets.md'), 'utf8');
// Widgets documented ahead of their arrival in the registry (being added on another branch).
// Once registered they are checked like every other; a name here that is neither registered
// nor documented is an error.
const DOCUMENTED_AHEAD = [];

let registered;
before(async () => {
  const { createServer } = await import('vite');
  const server = await createServer({
    configFile: path.join(root, 'vite.config.js'),
    logLevel: 'silent',
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: 'custom',
    optimizeDeps: { noDiscovery: true },
  });
  try {
    registered = [...(await server.ssrLoadModule('/demos/registry.js')).demoNames];
  } finally {
    await server.close();
  }
});

// "### `name`" sections, each with its table's first-column keys and its Models/Properties lines.
function sections(md) {
  const out = new Map();
  const parts = md.split(/^### `([^`]+)`\s*$/m);
  for (let i = 1; i < parts.length; i += 2) {
    const body = parts[i + 1].split(/^## /m)[0];
    const attributes = [...body.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    const line = (label) => body.match(new RegExp(`^${label}:(.*(?:\\n(?![A-Z][a-z]+:|\\n).*)*)`, 'm'))?.[1] ?? null;
    const models = line('Models');
    const props = line('Properties');
    out.set(parts[i], {
      attributes: attributes.sort(),
      models: models === null ? null : [...models.matchAll(/`(models\/[^`]+)`/g)].map((m) => m[1]).sort(),
      properties:
        props === null
          ? null
          : [...withoutParentheses(props).matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1]).sort(),
    });
  }
  return out;
}

// Text outside (...) groups: "`a` (`{x, y}`), `b`" -> "`a` , `b`".
function withoutParentheses(text) {
  let depth = 0,
    out = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

// The rows of the table under "## heading": first-column key and the second cell.
function table(md, heading) {
  const body = md.split(new RegExp(`^## ${heading}\\s*$`, 'm'))[1]?.split(/^## /m)[0];
  assert.ok(body, `docs/widgets.md has no "## ${heading}" section`);
  return [...body.matchAll(/^\| `([^`]+)` \|(.*)$/gm)].map((m) => ({
    key: m[1],
    cell: m[2].split(/(?<!\\)\|/)[0].trim(),
  }));
}

test('every registered widget is documented, and every documented one is registered', () => {
  const documented = [...sections(doc).keys()];
  assert.ok(registered.length >= 16, `the registry lists ${registered.length} widgets`);
  const undocumented = registered.filter((n) => !documented.includes(n));
  assert.deepEqual(undocumented, [], `docs/widgets.md lacks a "### \`name\`" section for: ${undocumented.join(', ')}`);
  const unknown = documented.filter((n) => !registered.includes(n) && !DOCUMENTED_AHEAD.includes(n));
  assert.deepEqual(unknown, [], `docs/widgets.md documents widgets the registry does not have: ${unknown.join(', ')}`);
  for (const n of DOCUMENTED_AHEAD)
    assert.ok(documented.includes(n) || registered.includes(n), `${n}: neither documented nor registered`);
});

test("each widget's section label is the number the page gives its section", () => {
  const parts = doc.split(/^### `([^`]+)`\s*$/m);
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i];
    const label = parts[i + 1].trim().match(/^(§\d+):/)?.[1];
    const section = SECTIONS.find((s) => s.demos.includes(name));
    assert.ok(section, `widget ${name} is in no section of web/sections.js`);
    assert.equal(label ?? '', sectionLabel(section.id), `widget ${name} (section ${section.id})`);
  }
});

test("each widget's attributes, models and properties are those its code uses", () => {
  const docs = sections(doc);
  const code = widgetManifest(root, registered);
  for (const name of registered) {
    const d = docs.get(name);
    const c = code[name];
    assert.deepEqual(
      d.attributes,
      c.attributes,
      `${name}: documented attributes ${JSON.stringify(d.attributes)}, the code reads ${JSON.stringify(c.attributes)}`
    );
    assert.notEqual(d.models, null, `${name}: no "Models:" line`);
    assert.deepEqual(
      d.models,
      c.models.map((m) => m.file).sort(),
      `${name}: documented models ${JSON.stringify(d.models)}, the code loads ${JSON.stringify(c.models.map((m) => m.file))}`
    );
    if (d.properties !== null)
      assert.deepEqual(
        d.properties,
        c.properties,
        `${name}: documented properties ${JSON.stringify(d.properties)}, the code sets ${JSON.stringify(c.properties)}`
      );
  }
});

test("the element's own attributes, methods and events are documented", () => {
  const facts = elementFacts(root);
  assert.deepEqual(
    table(doc, 'Attributes of every widget')
      .map((r) => r.key)
      .sort(),
    facts.attributes
  );
  assert.deepEqual(
    table(doc, 'Methods')
      .map((r) => r.key.replace(/\(\)$/, ''))
      .sort(),
    facts.methods
  );
  assert.deepEqual(
    table(doc, 'Events')
      .map((r) => r.key)
      .sort(),
    facts.events
  );
});

test('the files table lists every file of the widget bundle with its size', () => {
  const dist = path.join(root, 'dist');
  assert.ok(existsSync(path.join(dist, 'embed.js')), 'dist/embed.js is missing: run npm run build');
  const rows = table(doc, 'Files a teacher copies');
  const listed = new Map(rows.map((r) => [r.key, r.cell]));
  const built = [
    'embed.js',
    ...readdirSync(path.join(dist, 'engine')).map((f) => `engine/${f}`),
    ...readdirSync(path.join(dist, 'models')).map((f) => `models/${f}`),
  ];
  const missing = built.filter((f) => !listed.has(f));
  assert.deepEqual(missing, [], `docs/widgets.md does not list: ${missing.join(', ')}`);
  for (const [file, cell] of listed) {
    const full = path.join(dist, file);
    const size = cell.match(/^(\d+(?:\.\d+)?) (KB|MB)$/);
    if (!existsSync(full)) {
      // a model of a widget documented ahead of its arrival
      assert.ok(
        !size && DOCUMENTED_AHEAD.some((n) => sections(doc).get(n)?.models?.includes(file)),
        `${file} is listed but not built`
      );
      continue;
    }
    if (!size) {
      assert.match(cell, /models\/index\.json/, `${file}: no size`);
      continue;
    }
    const kb = Number(size[1]) * (size[2] === 'MB' ? 1024 : 1);
    const real = statSync(full).size / 1024;
    assert.ok(
      Math.abs(kb - real) <= Math.max(1, 0.25 * real),
      `${file}: documented ${cell}, built ${real.toFixed(0)} KB`
    );
  }
  const manifest = JSON.parse(readFileSync(path.join(dist, 'embed-manifest.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest.files).sort(), built.sort(), 'embed-manifest.json lists the built files');
  for (const [f, { bytes }] of Object.entries(manifest.files))
    assert.equal(bytes, statSync(path.join(dist, f)).size, f);
});
