// Outside input checked before it costs the page anything: a checkpoint whose .safetensors header
// is longer than the engine reads (16 MiB) is not parsed on the page's thread (a 95 MB header
// used to be decoded and JSON-parsed there, stalling the page for seconds before the engine
// refused it); readCheckpoint refuses it with its size. And a browser language that is not a
// BCP 47 tag (navigator.language 'C', as WebKit reports under the C locale) reads as English.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointModel, HEADER_MAX_BYTES } from '../../web/core/api.js';
import { readCheckpoint } from '../../web/core/persist.js';

// A checkpoint of a pointer model whose header is padded to `size` bytes (no tensors).
function checkpoint(size) {
  const meta = { __metadata__: { attnlab: JSON.stringify({ model: 'pointer' }) } };
  const text = JSON.stringify(meta);
  const header = new Uint8Array(size).fill(0x20);
  header.set(new TextEncoder().encode(text));
  const out = new Uint8Array(8 + size);
  new DataView(out.buffer).setBigUint64(0, BigInt(size), true);
  out.set(header, 8);
  return out;
}

test('a small header is read: the model kind', () => {
  assert.equal(checkpointModel(checkpoint(1024)), 'pointer');
});

test('a header over the engine limit is neither decoded nor parsed on this thread', async () => {
  const big = checkpoint(HEADER_MAX_BYTES + 1024);
  const parse = JSON.parse;
  const decode = TextDecoder.prototype.decode;
  let longest = 0;
  JSON.parse = (s, ...rest) => {
    longest = Math.max(longest, String(s).length);
    return parse(s, ...rest);
  };
  TextDecoder.prototype.decode = function (b, ...rest) {
    longest = Math.max(longest, b?.byteLength ?? 0);
    return decode.call(this, b, ...rest);
  };
  try {
    assert.equal(checkpointModel(big), null);
    await assert.rejects(
      readCheckpoint({ name: 'big.safetensors', arrayBuffer: async () => big.buffer }),
      /big\.safetensors: \.safetensors header of 16778240 bytes \(at most 16 MiB\)/
    );
  } finally {
    JSON.parse = parse;
    TextDecoder.prototype.decode = decode;
  }
  assert.ok(longest <= HEADER_MAX_BYTES, `${longest} bytes decoded or parsed`);
  assert.equal(HEADER_MAX_BYTES, 16 * 1024 * 1024);
});

test("navigator.language 'C' reads as English, and Intl takes it", async () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  Object.defineProperty(globalThis, 'navigator', {
    value: { language: 'C', languages: ['C'] },
    configurable: true,
    writable: true,
  });
  try {
    const { browserLocale } = await import(`../../web/core/locale.js?c=${Date.now()}`);
    assert.equal(browserLocale(), 'en');
    assert.equal(navigator.language, 'en');
    assert.deepEqual([...navigator.languages], ['en']);
    assert.equal(new Intl.NumberFormat(navigator.language).format(1234.5), '1,234.5');
  } finally {
    if (saved) Object.defineProperty(globalThis, 'navigator', saved);
    else delete globalThis.navigator;
  }
});
