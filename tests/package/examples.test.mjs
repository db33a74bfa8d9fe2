// examples/native-to-page/run.mjs, the walkthrough at toy size: native training, evaluation and
// float16 export with build/native/attn, then the page (dist/, headless Chromium) imports the
// file into its playground widget and measures it. (examples/cpp, examples/node and
// examples/embed run in cpp.test.mjs, npm.test.mjs and tests/browser/embed.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('native-to-page: a checkpoint trained by attn opens in the page', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'attnlab-n2p-'));
  try {
    const log = execFileSync(
      process.execPath,
      [path.join(root, 'examples', 'native-to-page', 'run.mjs'), '--steps', '200', '--out', out],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: root }
    );
    assert.ok(
      existsSync(path.join(out, 'reverse.safetensors')) && existsSync(path.join(out, 'reverse-f16.safetensors'))
    );
    const native = log.match(/native held-out exact ([\d.]+)%/);
    assert.ok(native, log);
    const page = log.match(
      /^page: reverse-f16\.safetensors: (\d+) parameters; Transformer, trained 200 steps on the task “reverse”\..* Held-out loss ([\d.]+), exact ([\d.]+)%\.$/m
    );
    assert.ok(page, log);
    assert.match(log, new RegExp(`^page: a transformer at step 200 with ${page[1]} parameters`, 'm'));
    assert.ok(Number(page[2]) < 1.5, `the page measured a trained model (loss ${page[2]}), not a fresh one`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
