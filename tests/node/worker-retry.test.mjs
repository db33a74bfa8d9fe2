// createEngine() starts its Worker again when the script did not load (an error event with no
// message before the engine answered: WebKit does this now and then on a reload), up to three
// Workers in all; an error with a message, or a third failed load, is the caller's error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../web/core/client.js';

// A stand-in Worker: 'fail' answers init with a load error event, 'throw' with a script error
// (a message), 'ok' with the engine's info.
class FakeWorker extends EventTarget {
  constructor(kind, log) {
    super();
    this.kind = kind;
    this.log = log;
    this.terminated = false;
  }
  postMessage(msg) {
    this.log.push(`${this.kind} ${msg.type}`);
    setTimeout(() => {
      if (this.kind === 'ok') {
        const e = new Event('message');
        e.data = { id: msg.id, ok: true, result: { build: 'wasm' } };
        this.dispatchEvent(e);
      } else {
        const e = new Event('error');
        e.message = this.kind === 'throw' ? 'ReferenceError: x is not defined' : '';
        this.dispatchEvent(e);
      }
    }, 1);
  }
  terminate() {
    this.terminated = true;
    this.log.push(`${this.kind} terminated`);
  }
}

const factory = (kinds, log) => {
  const made = [];
  return {
    made,
    worker: () => {
      const w = new FakeWorker(kinds[Math.min(made.length, kinds.length - 1)], log);
      made.push(w);
      return w;
    },
  };
};

test('a Worker whose script did not load is started again, and the engine comes up', async () => {
  const log = [];
  const f = factory(['fail', 'fail', 'ok'], log);
  const client = await createEngine({ base: 'http://127.0.0.1/', worker: f.worker });
  assert.equal(client.info.build, 'wasm');
  assert.equal(f.made.length, 3);
  assert.deepEqual(
    f.made.map((w) => w.terminated),
    [true, true, false]
  );
});

test('three failed loads, or a script error, are the error they were', async () => {
  const log = [];
  const f = factory(['fail'], log);
  await assert.rejects(createEngine({ base: 'http://127.0.0.1/', worker: f.worker }), /its script did not load/);
  assert.equal(f.made.length, 3);
  const g = factory(['throw', 'ok'], log);
  await assert.rejects(createEngine({ base: 'http://127.0.0.1/', worker: g.worker }), /x is not defined/);
  assert.equal(g.made.length, 1, 'a script that ran and threw is not retried');
});
