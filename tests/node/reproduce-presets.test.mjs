// The reproduction recipes moved from C++ (cpp/cli/cmd_train.cpp's table behind `attn train
// --preset NAME`) into experiments/presets.json: every row of `npm run reproduce` must train with
// the same flags as before. tests/fixtures/reproduce-presets.json holds what the old engine's
// `attn train --preset NAME --show-recipe` printed for each preset; here the data file, the rows
// `experiments/reproduce.mjs --list --json` runs, and today's engine reading those flags
// (`attn train <flags> --show-recipe`) must all give that recipe (the name aside).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { root, nativeCli } from './engine.mjs';
import { PRESETS, flagArgs, presetArgs, presetFlags, resolvedRecipe } from '../../experiments/presets.mjs';

const expected = JSON.parse(
  readFileSync(path.join(root, 'tests', 'fixtures', 'reproduce-presets.json'), 'utf8')
).recipes;
// The old recipe named its preset; the flags are what the run depends on.
const withoutName = (recipe) => Object.fromEntries(Object.entries(recipe).filter(([k]) => k !== 'preset'));

test('presets.json holds exactly the presets the engine had', () => {
  assert.deepEqual(Object.keys(PRESETS).sort(), Object.keys(expected).sort());
});

test('each preset resolves to the recipe the engine resolved', () => {
  for (const [name, recipe] of Object.entries(expected)) {
    assert.deepEqual(resolvedRecipe(presetFlags(name)), withoutName(recipe), name);
  }
});

test('every row of npm run reproduce trains from its preset or its own flags', () => {
  const rows = JSON.parse(
    execFileSync(process.execPath, [path.join(root, 'experiments', 'reproduce.mjs'), '--list', '--json'], {
      encoding: 'utf8',
    })
  );
  for (const name of Object.keys(expected)) {
    assert.ok(rows[name], `no reproduce row for preset ${name}`);
    assert.deepEqual(rows[name], flagArgs(presetFlags(name)), name);
  }
  for (const [id, args] of Object.entries(rows)) {
    assert.ok(args.includes('--model') && args.includes('--task'), `${id}: ${args.join(' ')}`);
  }
});

test('flags given win over the preset, false drops one, and an unknown preset is named', () => {
  const args = presetArgs('hull5', { 'eval-seed': 424242, seed: 2, glimpse: false });
  assert.equal(args[args.indexOf('--eval-seed') + 1], '424242');
  assert.equal(args[args.indexOf('--seed') + 1], '2');
  assert.ok(!args.includes('--glimpse'));
  assert.equal(args.filter((a) => a === '--eval-seed').length, 1);
  assert.throws(() => presetFlags('hull99'), /unknown preset "hull99" \(presets: dates, .*heads32\)/);
});

test(
  "the engine reads each preset's flags as the recipe it had",
  { skip: !existsSync(nativeCli) && `${nativeCli} is missing (npm run build:engine)` },
  () => {
    for (const [name, recipe] of Object.entries(expected)) {
      const out = execFileSync(nativeCli, ['train', ...presetArgs(name), '--show-recipe'], { encoding: 'utf8' });
      assert.deepEqual(JSON.parse(out), withoutName(recipe), name);
    }
    const r = spawnSync(nativeCli, ['train', '--preset', 'hull5', '--out', '/dev/null'], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /unknown --preset hull5 .*experiments\/presets\.json/);
  }
);
