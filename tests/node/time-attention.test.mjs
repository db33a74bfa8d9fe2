// §11's timing: engine.timeAttention runs softmax(QKᵀ/√d_k)V inside the engine on inputs kept
// in the wasm heap, repeating it for minSeconds, and returns ms per call; through the page's
// Worker protocol (a Runtime over a MessageChannel) it grows with n² (n = 64 -> 512: 64x the
// work; at least 25x asked, as the browser test does) and bad sizes are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unavailable } from '../unavailable.mjs';
import { loadNodeApi, hasBuild, workerClient } from './engine.mjs';

test('timeAttention through the Worker protocol: ms per call, n² growth, clear errors', async (t) => {
  if (!hasBuild('wasm'))
    return unavailable(t, 'build/wasm has no node module (cmake --build build/wasm --target attnlab_node)');
  const engine = await loadNodeApi('wasm');
  const { client } = await workerClient(t, engine);
  const once = (n) => client.timeAttention({ T: n, S: n, Dk: 64, minSeconds: 0.02 });
  // as the page does: one untimed call (V8 first runs wasm in its baseline compiler), then the
  // fastest of five of each size, the two sizes taken in turn so that a busy spell of the machine
  // slows both alike (load only adds time)
  await once(128);
  const as = [],
    bs = [];
  for (let i = 0; i < 5; ++i) {
    as.push(await once(64));
    bs.push(await once(512));
  }
  const a = Math.min(...as),
    b = Math.min(...bs);
  assert.ok(a > 0 && Number.isFinite(a) && b > 0, `${a}, ${b}`);
  t.diagnostic(`n = 64: ${a.toFixed(4)} ms, n = 512: ${b.toFixed(3)} ms, ratio ${(b / a).toFixed(1)}`);
  assert.ok(b / a >= 25, `time(512)/time(64) = ${(b / a).toFixed(1)}; n² predicts 64, linear 8`);
  await assert.rejects(client.timeAttention({ T: 0, Dk: 64 }), /benchAttention: T/);
  await assert.rejects(client.timeAttention({ T: 8, Dk: 64, minSeconds: 100 }), /minSeconds/);
});
