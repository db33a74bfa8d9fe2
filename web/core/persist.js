// Persistence of trained models: IndexedDB keeps each model's .safetensors bytes with a small
// record (config, step, time, free-form meta) so it survives a page reload; export writes a
// .safetensors file for download, import reads one back. Works on the page and in a Worker;
// tests pass a fake indexedDB factory.
const DB_NAME = 'attnlab';
const STORE = 'models';
const VERSION = 1;

function promisify(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

export class ModelStore {
  constructor(idb = globalThis.indexedDB, name = DB_NAME) {
    if (!idb) throw new Error('IndexedDB is not available here');
    this.idb = idb;
    this.name = name;
    this.db = null;
  }

  async open() {
    if (this.db) return this.db;
    const req = this.idb.open(this.name, VERSION);
    req.onupgradeneeded = () => {
      if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: 'name' });
    };
    this.db = await promisify(req);
    return this.db;
  }

  async tx(mode, fn) {
    const db = await this.open();
    const t = db.transaction(STORE, mode);
    const result = await promisify(fn(t.objectStore(STORE)));
    await new Promise((resolve, reject) => {
      t.oncomplete = resolve;
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error ?? new Error('IndexedDB transaction aborted'));
    });
    return result;
  }

  // Stores (or replaces) a model under `name`. bytes: the .safetensors checkpoint.
  async save(name, bytes, meta = {}) {
    if (!(bytes instanceof Uint8Array) || bytes.length < 8)
      throw new Error('save: bytes must be a .safetensors Uint8Array');
    const record = { name, bytes: bytes.slice(), size: bytes.length, savedAt: Date.now(), meta };
    await this.tx('readwrite', (s) => s.put(record));
    return { name, size: record.size, savedAt: record.savedAt, meta };
  }

  // The stored record {name, bytes, size, savedAt, meta}, or null.
  async load(name) {
    return (await this.tx('readonly', (s) => s.get(name))) ?? null;
  }

  // Every stored model without its bytes, newest first.
  async list() {
    const all = await this.tx('readonly', (s) => s.getAll());
    return all.map(({ bytes, ...rest }) => rest).sort((a, b) => b.savedAt - a.savedAt);
  }

  async remove(name) {
    await this.tx('readwrite', (s) => s.delete(name));
  }

  close() {
    this.db?.close();
    this.db = null;
  }
}

// A .safetensors checkpoint as a Blob (for a download link) and a checked read of one.
export function checkpointBlob(bytes) {
  return new Blob([bytes], { type: 'application/octet-stream' });
}

export function downloadCheckpoint(bytes, filename = 'model.safetensors') {
  const url = URL.createObjectURL(checkpointBlob(bytes));
  const a = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Reads a File/Blob and checks the .safetensors framing (8-byte header length, JSON header);
// the engine checks the rest when loading.
export async function readCheckpoint(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes.length < 8) throw new Error(`${file.name ?? 'file'}: too short for a .safetensors file`);
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  if (n <= 0 || 8 + n > bytes.length || bytes[8] !== 0x7b)
    throw new Error(`${file.name ?? 'file'}: not a .safetensors file (bad header)`);
  if (n > 1 << 24) throw new Error(`${file.name ?? 'file'}: .safetensors header of ${n} bytes (at most 16 MiB)`);
  return bytes;
}
