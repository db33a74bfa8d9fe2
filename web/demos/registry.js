// Demo name → lazily loaded module (one chunk per demo). A module exports
// `mount(el, ctx)` returning {unmount, start?, pause?, relabel?}. Model demos whose engine
// parts are not in this build yet mount the `pending` module, which says so. On the page each
// demo also gets a "Copy embed code" bar (common/share.js).
import { DEMOS } from '../sections.js';
import { addShareBar } from './common/share.js';

const modules = import.meta.glob('./*/index.js');

export const demoNames = DEMOS;

export async function loadDemo(name) {
  if (!DEMOS.includes(name)) throw new Error(`unknown demo '${name}'`);
  const load = modules[`./${name}/index.js`] ?? modules['./pending/index.js'];
  return load();
}

export async function mountDemo(name, el, ctx) {
  const mod = await loadDemo(name);
  const handle = (await mod.mount(el, ctx)) ?? {};
  el.dataset.mounted = name;
  if (!ctx.embedded && ctx.settings) addShareBar(el, ctx); // "Copy embed code" (page demos)
  return typeof handle === 'function' ? { unmount: handle } : handle;
}
