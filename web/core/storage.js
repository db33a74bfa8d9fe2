// What the page keeps in this browser, and the guard every access goes through. localStorage
// holds two small choices (the colour scheme, the engine menu's backend); IndexedDB holds the
// trained models (web/core/persist.js). A browser may refuse either: "block cookies and site
// data", some private modes, a sandboxed frame (an opaque origin, where even reading
// `localStorage` throws a SecurityError). Then the page and the widgets run as before, keep
// nothing between visits, and say so once (persistenceNote).
import { ModelStore } from './persist.js';

// localStorage, read and written without ever throwing: null / false when the browser refuses.
export const local = {
  get(key) {
    try {
      return globalThis.localStorage?.getItem(key) ?? null;
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      globalThis.localStorage.setItem(key, value);
      return true;
    } catch {
      return false;
    }
  },
};

function localWorks() {
  try {
    const s = globalThis.localStorage;
    if (!s) return false;
    s.setItem('attnlab:probe', '1');
    s.removeItem('attnlab:probe');
    return true;
  } catch {
    return false;
  }
}

// The page's model store once it has opened (null where IndexedDB is missing, refused or does
// not answer within 3 s). One per page; the demos share it.
let storePromise = null;
export function modelStore() {
  storePromise ??= (async () => {
    let store;
    try {
      store = new ModelStore();
      await Promise.race([
        store.open(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('IndexedDB did not open in 3 s')), 3000)),
      ]);
      return store;
    } catch {
      try {
        store?.close();
      } catch {
        /* never opened */
      }
      return null;
    }
  })();
  return storePromise;
}

// {local, models}: whether settings and trained models can be kept here.
export async function persistence() {
  return { local: localWorks(), models: (await modelStore()) !== null };
}

// The note that nothing is kept, shown once per page: the first caller with a place for it gets
// true (and shows it), later ones false. Resolves false where both kinds of storage work.
let noted = false;
export async function persistenceNote() {
  const p = await persistence();
  if ((p.local && p.models) || noted) return false;
  noted = true;
  return true;
}
