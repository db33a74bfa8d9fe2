// Figures the prose states about a model, filled from the model itself, never typed. A fragment
// writes <span data-fact="KEY"></span>; the page fills every such span after inserting the
// fragment (fillFacts). KEY is
//   model.<name>.<field>  a shipped checkpoint (models/index.json names it): <field> is a key of
//                         its index.json entry (steps, params, bleu, seconds, threads, testPairs,
//                         trainPairs, ...) or of the model config in its .safetensors header
//                         (d_model, heads, d_ff, enc_layers, dec_layers, src_vocab, ...); derived:
//                         paramsM (parameters in millions), minutes, layers (enc = dec layers)
//   demo.<name>.<field>   a live demo's own settings: the FACTS export of web/demos/<name>/facts.js
// index.json carries each model's config (written with the model), so the page requests no model
// file for a caption; an entry without one has only its checkpoint's header read (the download
// stops after it).

// The .safetensors header's JSON from the start of a byte stream, cancelling the rest.
export async function readHeader(stream) {
  const reader = stream.getReader();
  let buf = new Uint8Array(0);
  let need = 8;
  try {
    for (;;) {
      if (buf.length >= need) {
        const n = Number(new DataView(buf.buffer, buf.byteOffset, 8).getBigUint64(0, true));
        if (n <= 0 || n > 1 << 24) throw new Error(`not a .safetensors header (length ${n})`);
        if (buf.length >= 8 + n) return JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + n)));
        need = 8 + n;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('the checkpoint ends inside its header');
      const next = new Uint8Array(buf.length + value.length);
      next.set(buf);
      next.set(value, buf.length);
      buf = next;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// The facts of one shipped model: its index.json entry, its config, and what follows from them.
export function modelFacts(entry, header) {
  const config = entry.config ?? JSON.parse(header?.__metadata__?.attnlab ?? '{}');
  const { config: _, ...fields } = entry;
  const out = { ...config, ...fields };
  if (entry.params !== undefined) out.paramsM = (entry.params / 1e6).toFixed(1);
  if (entry.seconds !== undefined) out.minutes = Math.round(entry.seconds / 60);
  if (config.enc_layers !== undefined && config.enc_layers === config.dec_layers) out.layers = config.enc_layers;
  if (config.model === 'lm') out.layers = config.dec_layers;
  return out;
}

// How a fact reads in the prose: numbers with thousands separators, lists with commas.
export function formatFact(v) {
  if (typeof v === 'number') return v.toLocaleString('en-US', { maximumFractionDigits: 6 });
  if (Array.isArray(v)) return v.map(formatFact).join(', ');
  return String(v);
}

// Resolves keys to values through loaders: model(name) -> facts, demo(name) -> FACTS.
export async function resolveFacts(keys, { model, demo }) {
  const cache = new Map();
  const once = (kind, name, load) => {
    const k = `${kind}.${name}`;
    if (!cache.has(k))
      cache.set(
        k,
        load(name).catch(() => null)
      );
    return cache.get(k);
  };
  const out = {};
  for (const key of keys) {
    const [kind, name, field] = key.split('.');
    const facts =
      kind === 'model' ? await once(kind, name, model) : kind === 'demo' ? await once(kind, name, demo) : null;
    out[key] = facts && facts[field] !== undefined ? facts[field] : undefined;
  }
  return out;
}

export async function demoFacts(name) {
  if (!/^[a-z-]+$/.test(name)) throw new Error(`bad demo name ${name}`);
  return (await import(`../${name}/facts.js`)).FACTS;
}

let indexOnce = null;
export function pageLoaders(base) {
  indexOnce ??= fetch(new URL('models/index.json', base))
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}));
  return {
    async model(name) {
      const entry = (await indexOnce)[name];
      if (!entry) throw new Error(`no shipped model ${name}`);
      if (entry.config) return modelFacts(entry); // no request for the model (it loads on demand)
      const r = await fetch(new URL(entry.file, base));
      if (!r.ok || !r.body) throw new Error(`${entry.file}: ${r.status}`);
      return modelFacts(entry, await readHeader(r.body));
    },
    demo: demoFacts,
  };
}

// Fills every [data-fact] under root; a fact that cannot be read shows "?" and says why in its title.
export async function fillFacts(root, base) {
  const spans = [...root.querySelectorAll('[data-fact]')];
  if (!spans.length) return;
  const values = await resolveFacts([...new Set(spans.map((s) => s.dataset.fact))], pageLoaders(base));
  for (const s of spans) {
    const v = values[s.dataset.fact];
    s.textContent = v === undefined ? '?' : formatFact(v);
    if (v === undefined) s.title = `${s.dataset.fact}: not available in this build`;
    s.dataset.filled = v === undefined ? 'missing' : '1';
  }
  root.dispatchEvent?.(new CustomEvent('facts', { bubbles: true }));
}
