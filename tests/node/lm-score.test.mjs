// lmScore in the wasm module, directly and through the Worker runtime: the shipped Moby-Dick LM
// prefers a grammatical sentence to its shuffled words, per-token log-probs add up to the
// total, the protocol answer equals the direct call, and bad input is an Error.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadNodeApi, releaseEngine, root, workerClient } from './engine.mjs';
import { unavailable } from '../unavailable.mjs';

const ckpt = path.join(root, 'web', 'public', 'models', 'lm-moby-dick.safetensors');
const SENTENCES = ['i saw the whale in the sea .', 'sea the whale . in i saw the'];

test('lmScore: the shipped LM scores sentences, directly and through the runtime', async (t) => {
  if (!existsSync(ckpt)) return unavailable(t, `${path.relative(root, ckpt)} is not in this build (npm run models)`);
  const engine = await loadNodeApi('wasm');
  const bytes = new Uint8Array(readFileSync(ckpt));
  const [good, shuffled] = engine.lmScore(bytes, SENTENCES);
  assert.ok(good.total > shuffled.total, `${good.total} vs ${shuffled.total}`);
  assert.equal(good.tokens.at(-1), '</s>');
  assert.ok(Math.abs(good.logprobs.reduce((x, y) => x + y, 0) - good.total) < 1e-3);
  assert.throws(() => engine.lmScore(bytes, ['   ']), /no words/);
  assert.throws(() => engine.lmScore(new Uint8Array(8), SENTENCES), Error);

  const { client } = await workerClient(t, engine);
  const remote = await client.lmScore(bytes, SENTENCES);
  assert.deepEqual(
    remote.map((r) => r.total),
    [good.total, shuffled.total]
  );
  releaseEngine(engine);
});
