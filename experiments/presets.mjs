// The reproduction recipes as data (presets.json): one named set of `attn train` flags per row of
// `npm run reproduce`. A flag's value is a string, or true for a flag without a value.
//   presetFlags('hull5')                      -> { model: 'pointer', ..., 'eval-seed': '12345' }
//   presetArgs('hull5', { seed: '2' })        -> ['--model', 'pointer', ..., '--seed', '2']
// Flags given in `overrides` win over the preset's (a value of false or null drops the flag), as
// flags typed after a preset used to. Used by reproduce.mjs, the benchmarks' background load
// (bench/) and the shipped pointer model (scripts/models.mjs).
import { readFileSync } from 'node:fs';

export const PRESETS = JSON.parse(readFileSync(new URL('./presets.json', import.meta.url), 'utf8')).presets;

export function presetFlags(name) {
  const p = Object.hasOwn(PRESETS, name) ? PRESETS[name] : null;
  if (!p) throw new Error(`unknown preset "${name}" (presets: ${Object.keys(PRESETS).join(', ')})`);
  return { ...p.flags };
}

// flags: { name: value } -> ['--name', 'value', '--flag-without-value', ...], in the object's order.
export function flagArgs(flags) {
  const out = [];
  for (const [k, v] of Object.entries(flags)) {
    if (v === false || v === null || v === undefined) continue;
    if (v === true) out.push(`--${k}`);
    else out.push(`--${k}`, String(v));
  }
  return out;
}

export function presetArgs(name, overrides = {}) {
  return flagArgs({ ...presetFlags(name), ...overrides });
}

// What `attn train --show-recipe` prints for these flags: every flag, sorted by name, a flag
// without a value as "" (the engine's Args::all()).
export function resolvedRecipe(flags) {
  const out = {};
  for (const k of Object.keys(flags).sort()) {
    const v = flags[k];
    if (v === false || v === null || v === undefined) continue;
    out[k] = v === true ? '' : String(v);
  }
  return out;
}
