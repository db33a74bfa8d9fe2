// IndexedDB persistence (web/core/persist.js) on fake-indexeddb: a saved model survives a
// "reload" (a fresh store on the same database), listing, replacing, removing, and the
// .safetensors framing check on import.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelStore, readCheckpoint } from '../../web/core/persist.js';

function fakeCheckpoint(payload = 4) {
  const header = new TextEncoder().encode(JSON.stringify({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }));
  const bytes = new Uint8Array(8 + header.length + payload);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
  bytes.set(header, 8);
  bytes.set([0, 0, 128, 63].slice(0, payload), 8 + header.length);
  return bytes;
}

test('a saved model survives a reload with its bytes and meta', async () => {
  const bytes = fakeCheckpoint();
  const a = new ModelStore(indexedDB, 'attnlab-test-reload');
  await a.save('reverse', bytes, { step: 300, task: 'reverse' });
  a.close();
  const b = new ModelStore(indexedDB, 'attnlab-test-reload');
  const rec = await b.load('reverse');
  assert.deepEqual(Array.from(rec.bytes), Array.from(bytes));
  assert.deepEqual(rec.meta, { step: 300, task: 'reverse' });
  assert.equal(rec.size, bytes.length);
  assert.equal(await b.load('missing'), null);
  b.close();
});

test('list is newest first without bytes; save replaces; remove deletes', async () => {
  const s = new ModelStore(indexedDB, 'attnlab-test-list');
  await s.save('one', fakeCheckpoint(), { n: 1 });
  await new Promise((r) => setTimeout(r, 5));
  await s.save('two', fakeCheckpoint(), { n: 2 });
  let list = await s.list();
  assert.deepEqual(
    list.map((m) => m.name),
    ['two', 'one']
  );
  assert.equal(list[0].bytes, undefined);
  await new Promise((r) => setTimeout(r, 5));
  await s.save('one', fakeCheckpoint(), { n: 3 });
  list = await s.list();
  assert.deepEqual(
    list.map((m) => [m.name, m.meta.n]),
    [
      ['one', 3],
      ['two', 2],
    ]
  );
  await s.remove('two');
  assert.deepEqual(
    (await s.list()).map((m) => m.name),
    ['one']
  );
  await assert.rejects(s.save('bad', new Uint8Array(3)), /must be a .safetensors Uint8Array/);
  s.close();
});

test('readCheckpoint accepts a .safetensors file and rejects others', async () => {
  const ok = fakeCheckpoint();
  assert.deepEqual(Array.from(await readCheckpoint(new Blob([ok]))), Array.from(ok));
  await assert.rejects(
    readCheckpoint(Object.assign(new Blob([new Uint8Array(4)]), { name: 'x.bin' })),
    /x.bin: too short/
  );
  const bad = ok.slice();
  new DataView(bad.buffer).setBigUint64(0, 1n << 40n, true);
  await assert.rejects(readCheckpoint(new Blob([bad])), /not a .safetensors file/);
  await assert.rejects(
    readCheckpoint(new Blob([new TextEncoder().encode('hello world, not a checkpoint')])),
    /not a .safetensors file/
  );
});
