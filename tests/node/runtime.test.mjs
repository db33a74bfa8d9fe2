// The Worker runtime and the main-thread client over a real MessageChannel (structured clone
// and transfer as between a page and its Worker): engine calls, errors, protocol misuse.
// Training, pause/resume/cancel and snapshots are covered in session.test.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadNodeApi } from './engine.mjs';
import { Runtime } from '../../web/core/runtime.js';
import { connectEngine, EngineClient } from '../../web/core/client.js';

const api = await loadNodeApi('wasm');
const channel = new MessageChannel();
const runtime = new Runtime(
  (msg, transfer) => channel.port2.postMessage(msg, transfer),
  async () => api
);
channel.port2.addEventListener('message', (e) => runtime.handle(e.data));
channel.port2.start();
const client = await connectEngine(channel.port1);
after(() => {
  channel.port1.close();
  channel.port2.close();
});

test('init answers with the engine info', () => {
  assert.equal(client.info.build, 'wasm');
  assert.equal(typeof client.info.loadMs, 'number');
});

test('engine functions through the protocol match direct calls', async () => {
  const q = Float32Array.from([1, 0, 0, 1]);
  const remote = await client.attention(q, q, q, { T: 2, Dk: 2 });
  const local = api.attention(q, q, q, { T: 2, Dk: 2 });
  assert.ok(remote.weights instanceof Float32Array);
  assert.deepEqual(Array.from(remote.weights), Array.from(local.weights));
  assert.deepEqual(Array.from(await client.positionalEncoding(3, 4)), Array.from(api.positionalEncoding(3, 4)));
  const sm = await client.softmax([1, 2, 3], { temperature: 2 });
  assert.ok(Math.abs(sm[2] - 0.50648039) < 1e-6);
});

test('C++ errors reject with the message; the runtime keeps serving', async () => {
  await assert.rejects(
    client.positionalEncoding(-1, 4),
    (e) => e instanceof Error && /positionalEncoding: L must be an integer/.test(e.message)
  );
  await assert.rejects(client.call('notAFunction'), /unknown engine function 'notAFunction'/);
  await assert.rejects(client.request({ type: 'session', session: 99, method: 'info' }), /no session 99/);
  await assert.rejects(
    client.request({ type: 'session', session: 1, method: 'delete' }),
    /unknown session method 'delete'/
  );
  await assert.rejects(client.request({ type: 'train', session: 42, steps: 5 }), /no session 42/);
  await assert.rejects(client.request({ type: 'bogus' }), /unknown request type 'bogus'/);
  const ca = await client.contentAddress([1, 0, 0, 1], [1, 0], 0);
  assert.deepEqual(Array.from(ca.weights), [0.5, 0.5]);
});

test('requests before init are refused', async (t) => {
  const ch = new MessageChannel();
  t.after(() => {
    ch.port1.close();
    ch.port2.close();
  });
  const rt = new Runtime(
    (m, t) => ch.port2.postMessage(m, t),
    async () => api
  );
  ch.port2.addEventListener('message', (e) => rt.handle(e.data));
  ch.port2.start();
  const c = new EngineClient(ch.port1);
  await assert.rejects(c.softmax([1], {}), /engine not initialised/);
  await c.init();
  assert.equal((await c.softmax([1], {}))[0], 1);
});

test('concurrent requests resolve to their own replies', async () => {
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => client.positionalEncoding(1 + (i % 5), 2)));
  results.forEach((r, i) => assert.equal(r.length, (1 + (i % 5)) * 2));
});
