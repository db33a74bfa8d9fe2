// Restore checks what it restores: a record kept in IndexedDB for §4 whose step, history,
// settings or model do not match the demo (a step of -1e9, 1.5 or 1e308; a curve longer than the
// run; the weights of another model, or of a batch of 65,536, under the demo's key) is dropped:
// a note says why, the record is gone, the demo is ready for a fresh start and no session of it
// is left in the engine's Worker.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { usePage } from './harness.mjs';
import { unavailable } from '../unavailable.mjs';

let page;
after(async () => {
  await page?.close(); // registered first: the page closes before the fixture's browser
});
const { server, browser } = usePage();
const URL_ = () => `${server.url}?lang=en#bahdanau.task=reverse&bahdanau.steps=100`;

async function show() {
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  await page.locator('[data-demo=bahdanau]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=bahdanau][data-ready="1"]', { timeout: 60000 });
  return (await page.locator('[data-demo=bahdanau]').getAttribute('data-pending')) !== '1';
}

// The stored records of §4, or one of them rewritten by `edit` (a function's source, run in the
// page on the record and the demo's config parsed from its key; it may create sessions).
const records = () =>
  page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open('attnlab');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const get = req.result.transaction('models').objectStore('models').getAll();
          get.onsuccess = () => {
            resolve(get.result.filter((r) => r.name.startsWith('bahdanau:')));
            req.result.close();
          };
        };
      })
  );
async function rewrite(edit) {
  await page.evaluate(async (src) => {
    const db = await new Promise((resolve, reject) => {
      const req = indexedDB.open('attnlab');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const tx = (mode, fn) =>
      new Promise((resolve, reject) => {
        const r = fn(db.transaction('models', mode).objectStore('models'));
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const all = await tx('readonly', (s) => s.getAll());
    let backup = all.find((r) => r.name === 'test:backup');
    if (!backup) {
      // the first call keeps the finished run's record aside; every case starts from it
      const rec = all.find((r) => r.name.startsWith('bahdanau:'));
      backup = { ...rec, name: 'test:backup', key: rec.name };
      await tx('readwrite', (s) => s.put(backup));
    }
    const rec = { ...backup, name: backup.key };
    delete rec.key;
    const config = JSON.parse(rec.name.split(':').slice(2).join(':'));
    const next = await new Function('rec', 'config', 'engine', `return (${src})(rec, config, engine);`)(
      rec,
      config,
      await window.attnlab.engine()
    );
    await tx('readwrite', (s) => s.put(next));
    db.close();
  }, edit.toString());
}

let good = null; // the record of a finished 100-step run
test('a finished run is stored', async (t) => {
  page = await browser.newPage();
  await page.goto(URL_());
  if (!(await show())) return unavailable(t, 'engine build without model sessions');
  await page.locator('[data-demo=bahdanau] [name=run-toggle]').click();
  await page.waitForSelector('[data-demo=bahdanau] .run[data-state=done]', { timeout: 120000 });
  await page.waitForSelector('[data-demo=bahdanau] .run[data-kept="100"]', { timeout: 60000 });
  [good] = await records();
  assert.equal(good?.meta?.step, 100);
  await rewrite((rec) => rec); // keeps it aside (test:backup) and back under its key
});

const cases = [
  ['a step of -1e9', (rec) => ({ ...rec, meta: { ...rec.meta, step: -1e9, done: false } }), /step -1000000000/],
  ['a step of 1.5', (rec) => ({ ...rec, meta: { ...rec.meta, step: 1.5, done: false } }), /step 1\.5/],
  ['a step of 1e308', (rec) => ({ ...rec, meta: { ...rec.meta, step: 1e308 } }), /step 1e\+308/],
  [
    'a history longer than the run',
    (rec) => ({
      ...rec,
      meta: {
        ...rec.meta,
        kept: { ...rec.meta.kept, curve: Array.from({ length: 200000 }, (_, i) => ({ step: i, loss: 1 })) },
      },
    }),
    /history too long/,
  ],
  [
    'the weights of another model',
    async (rec, config, engine) => {
      const other = { ...config, model: { model: 'luong', emb: 24, hidden: 24, score: 'dot' } };
      const s = await engine.createSession(other);
      await s.train(3);
      const bytes = await s.save({ optimizer: true });
      await s.dispose();
      return { ...rec, bytes, meta: { ...rec.meta, step: 3, done: false, kept: null } };
    },
    /another model \(luong\)/,
  ],
  [
    'the weights of a batch of 65,536',
    // the finished run's checkpoint with its training settings' batch rewritten in the header
    (rec) => {
      const b = rec.bytes;
      const n = Number(new DataView(b.buffer, b.byteOffset).getBigUint64(0, true));
      const text = new TextDecoder().decode(b.subarray(8, 8 + n));
      const edited = text.replace(/(\\?"batch\\?":)32\b/g, (_, k) => `${k}65536`);
      if (edited === text) throw new Error('no batch in the checkpoint header');
      const header = new TextEncoder().encode(edited);
      const out = new Uint8Array(8 + header.length + (b.length - 8 - n));
      new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
      out.set(header, 8);
      out.set(b.subarray(8 + n), 8 + header.length);
      return { ...rec, bytes: out };
    },
    /other training settings/,
  ],
];

for (const [what, edit, why] of cases) {
  test(`a stored record with ${what} is dropped with a note`, async (t) => {
    if (!good) return unavailable(t, 'no stored run');
    await rewrite(edit);
    await page.reload();
    await show();
    const demo = page.locator('[data-demo=bahdanau]');
    const note = demo.locator('.run-dropped');
    await note.waitFor({ timeout: 60000 });
    const text = await note.textContent();
    assert.match(text, /A model kept in this browser could not be restored \(.+\) and was removed\./);
    assert.match(text, why);
    assert.equal(await demo.locator('.run').getAttribute('data-state'), 'idle');
    assert.match(await demo.locator('.run-status').textContent(), /step 0 \/ 100/);
    assert.deepEqual(await records(), [], 'the record is removed');
    // no session of the dropped record stays in the Worker
    const left = await page.evaluate(
      async () =>
        [...(await window.attnlab.engine()).sessions.values()].filter(
          (s) => s.info?.step > 0 || s.info?.train?.batch === 65536
        ).length
    );
    assert.equal(left, 0);
  });
}
