// The UI string tables: the same keys in Korean and English, the same {placeholders} and
// {§section} references in each pair, no empty strings, every key the page's code asks for
// exists, and every section of web/sections.js has its strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ko from '../../web/i18n/ko.js';
import en from '../../web/i18n/en.js';
import { SECTIONS } from '../../web/sections.js';
import { root } from './harness.mjs';

test('ko and en have the same keys and placeholders', () => {
  assert.deepEqual(Object.keys(ko).sort(), Object.keys(en).sort());
  const vars = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  for (const k of Object.keys(ko)) {
    assert.ok(ko[k].trim() && en[k].trim(), `empty string for ${k}`);
    assert.deepEqual(vars(ko[k]), vars(en[k]), `placeholders of ${k}`);
  }
});

test('every section has its strings, and references name sections by key', () => {
  for (const s of SECTIONS)
    for (const f of ['nav', 'title', 'summary']) assert.ok(`section.${s.id}.${f}` in ko, `section.${s.id}.${f}`);
  const refs = (s) => [...s.matchAll(/\{§([^}]*)\}/g)].map((m) => m[1]).sort();
  for (const k of Object.keys(ko)) {
    assert.doesNotMatch(ko[k] + en[k], /§\s*\d/, `${k}: a section number written out; use {§key}`);
    assert.deepEqual(refs(ko[k]), refs(en[k]), `references of ${k}`);
    for (const r of refs(ko[k]))
      assert.ok(
        SECTIONS.some((s) => s.id === r),
        `${k}: no section '${r}'`
      );
  }
});

test('every literal key used by the page exists', () => {
  const files = [];
  const walk = (d) =>
    readdirSync(d).forEach((f) => {
      const p = path.join(d, f);
      if (statSync(p).isDirectory()) {
        if (f !== 'content' && f !== 'public') walk(p);
      } else if (/\.(js|html)$/.test(f)) files.push(p);
    });
  walk(path.join(root, 'web'));
  const used = new Set();
  for (const f of files) {
    const src = readFileSync(f, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    for (const m of src.matchAll(/\bt\('([\w.-]+)'/g)) used.add(m[1]);
    for (const m of src.matchAll(/data-i18n(?:-aria)?="([\w.-]+)"/g)) used.add(m[1]);
  }
  assert.ok(used.size > 40);
  for (const k of used) assert.ok(k in ko, `missing key ${k}`);
});
