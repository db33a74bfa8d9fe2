// Checkpoints trained natively by `npm run models` and shipped in models/ (index.json names
// each one's command, data and licence). Loaded on demand into the engine's Worker, once per
// page: the self-attention, decoder and multihead demos share one session (they only inspect and decode it).
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';

const sessions = new Map();

export async function shippedIndex(base) {
  const r = await fetch(new URL('models/index.json', base));
  if (!r.ok) return {};
  return r.json();
}

// -> {session, meta} or null when this build ships no such checkpoint or has no sessions.
export function loadShipped(ctx, name) {
  if (!sessions.has(name)) {
    sessions.set(
      name,
      (async () => {
        const info = await ctx.engine.info();
        if (!info.sessions) return null;
        const meta = (await shippedIndex(ctx.base))[name];
        if (!meta) return null;
        const r = await fetch(new URL(meta.file, ctx.base));
        if (!r.ok) return null;
        const client = await ctx.worker();
        const session = await client.loadSession(new Uint8Array(await r.arrayBuffer()));
        return { session, meta };
      })()
    );
  }
  return sessions.get(name);
}

// A shipped model's data or licence line in the page's language: the UI strings hold it as
// model.<name>.data / model.<name>.licence (name: the checkpoint's file name); index.json's
// English line stands in for a model that has none.
function described(meta, field) {
  const name = String(meta.file ?? '')
    .replace(/^.*\//, '')
    .replace(/\.safetensors$/, '');
  const key = `model.${name}.${field}`;
  try {
    return t(key);
  } catch {
    return meta[field];
  }
}

// The note shown beside a pre-trained model: what trained it, on what, under which licence.
export function pretrainedNote(meta) {
  const vars = { steps: meta.steps, data: described(meta, 'data'), licence: described(meta, 'licence') };
  return `<p class="note pretrained">${escapeHtml(t('pretrained.note', vars))}
    <br><code>${escapeHtml(meta.command)}</code></p>`;
}
