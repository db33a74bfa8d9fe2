// §1's text generator: the shipped LM, loaded into the engine's Worker, gives the logits z of the
// next word after the prompt and the words drawn so far (session.inspect, last row); the page
// reshapes them with a temperature T, a top-k cut and a top-p (nucleus) cut (sample.js) and draws
// one word with a seeded uniform number. The bars show the top words' probabilities before
// (softmax(z), T = 1) and after the reshaping, and mark the word drawn. Drawing </s> ends the
// text. Changing T, k or p reshapes the last step's logits and draws again with that step's
// number. A subword (BPE) model's pieces are joined into words at "▁". State: lm.prompt,
// lm.temp, lm.topk, lm.topp, lm.seed. For tests, el.sampling = {T, k, p, seed, logits,
// shown: [{id, token, before, after}], sampled, kept, ended, text}.
// "Trace this word" opens trace.js's step-through of the distribution shown: the forward pass
// over <s> and the text before the word drawn (or, before any is drawn, the whole text), which
// then follows every new word.
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';
import { mulberry32 } from '../../core/random.js';
import { reshape, pick, softmax, ranked, decodePieces, isSubword } from './sample.js';
import { mountTrace } from './trace.js';

// The checkpoint names its training task, "text", which reads its corpus from a file the page
// does not have; the session is only inspected here, so it is opened with a small generated
// task in its place (any task whose vocabulary fits the model's lets the engine load it).
const LOAD_AS = { task: 'copy', task_options: { min_len: 1, max_len: 8, symbols: 10 } };
let sessionOnce = null;
function lmSession(ctx, bytes) {
  sessionOnce ??= (async () => {
    const info = await ctx.engine.info();
    if (!info.sessions) return null;
    return (await ctx.worker()).loadSession(bytes, LOAD_AS);
  })().catch((e) => {
    sessionOnce = null;
    throw e;
  });
  return sessionOnce;
}
const SHOWN = 10; // bars drawn per step (the sampled word is added when it is not among them)
const BATCH = 10; // words per "generate" press
const EOS = 2; // </s>: the model ends its text
// the model reads at most max_len tokens (40 words; 64 subword pieces); the generator stops before
const maxTokens = (subword) => (subword ? 60 : 40);

export function mountGenerator(el, ctx, { bytes, vocab, act = 'relu' }) {
  const { read, store } = ctx;
  const subword = isSubword(vocab);
  const state = {
    prompt: read.str('prompt', subword ? 'The whale' : 'the whale'),
    temp: read.num('temp', 0.8, 0, 2),
    topp: Math.round(read.num('topp', 1, 0.05, 1) * 100) / 100,
    topk: read.int('topk', 10, 0, vocab.length),
    seed: read.int('seed', 1, 0, 2 ** 31),
  };
  el.classList.add('lm-sample');
  el.innerHTML = `
    <h4 data-i18n="lm.sample.title"></h4>
    <div class="controls">
      <label class="wide"><span data-i18n="lm.sample.prompt"></span> <input type="text" name="prompt" maxlength="120" spellcheck="false"></label>
      <label><span data-i18n="lm.sample.temp"></span> <input type="range" name="temp" min="0" max="2" step="0.05"> <output name="temp-value"></output></label>
      <label><span data-i18n="lm.sample.topk"></span> <input type="number" name="topk" min="0" max="${vocab.length}" step="1"></label>
      <label><span data-i18n="lm.sample.topp"></span> <input type="number" name="topp" min="0.05" max="1" step="0.05"></label>
      <label><span data-i18n="lm.sample.seed"></span> <input type="number" name="seed" min="0" step="1"></label>
      <button type="button" name="next" data-i18n="lm.sample.next"></button>
      <button type="button" name="generate" data-i18n="lm.sample.generate"></button>
      <button type="button" name="restart" data-i18n="lm.sample.restart"></button>
    </div>
    <p class="readout lm-text" lang="en" aria-live="polite"></p>
    <p class="note lm-ended" hidden></p>
    <p class="note lm-legend"></p>
    <div class="lm-dist" role="list"></div>
    <div class="controls"><button type="button" name="trace" data-i18n="lm.trace.start"></button></div>
    <div class="lm-trace-host"></div>`;
  const $ = (n) => el.querySelector(`[name=${n}]`);
  $('prompt').value = state.prompt;
  $('temp').value = String(state.temp);
  $('topk').value = String(state.topk);
  $('topp').value = String(state.topp);
  $('seed').value = String(state.seed);
  const textHost = el.querySelector('.lm-text');
  const legend = el.querySelector('.lm-legend');
  const dist = el.querySelector('.lm-dist');
  const endedNote = el.querySelector('.lm-ended');
  const MAX_WORDS = maxTokens(subword);
  const tracer = mountTrace(el.querySelector('.lm-trace-host'), {
    vocab,
    subword,
    act,
    inspect: async (ids) => {
      const session = await lmSession(ctx, bytes);
      if (!session) throw new Error(t('lm.sample.none'));
      return session.inspect([[]], [ids], { trace: true });
    },
  });
  let traced = ''; // the text and word the trace shows
  // a token as text: a piece's "▁" is the space before its word
  const shownToken = (id) => (subword ? vocab[id].replaceAll('\u2581', ' ') : vocab[id]);

  let promptIds = []; // the prompt's word ids
  let steps = []; // [{logits, u, id}] one per drawn word
  let pending = null; // logits of the next word when no word has been drawn since (re)start
  let rng = null,
    seq = 0,
    busy = false,
    error = '';
  const words = () => [...promptIds, ...steps.map((s) => s.id)];
  const opts = () => ({ T: state.temp, k: state.topk, p: state.topp });
  const ended = () => steps.length > 0 && steps[steps.length - 1].id === EOS;

  async function nextLogits(ids) {
    const session = await lmSession(ctx, bytes);
    if (!session) throw new Error(t('lm.sample.none'));
    const r = await session.inspect([[]], [ids]);
    return Float32Array.from(r.logits.subarray((r.T - 1) * r.V, r.T * r.V));
  }

  async function restart() {
    const mine = ++seq;
    error = '';
    steps = [];
    pending = null;
    rng = mulberry32(state.seed);
    try {
      const text = state.prompt.trim();
      // the engine's own word split (lmScore: the ids, then </s>)
      promptIds = text ? [...(await ctx.engine.lmScore(bytes, [text]))[0].ids].slice(0, -1) : [];
      const logits = await nextLogits(promptIds);
      if (mine !== seq) return;
      pending = logits;
    } catch (e) {
      if (mine !== seq) return;
      promptIds = [];
      error = e.message;
    }
    draw();
  }

  async function step(n) {
    if (busy || !rng) return;
    busy = true;
    const mine = seq;
    try {
      for (let i = 0; i < n && words().length < MAX_WORDS && !ended(); ++i) {
        const logits = pending ?? (await nextLogits(words()));
        if (mine !== seq) return;
        pending = null;
        const u = rng();
        steps.push({ logits, u, id: pick(reshape(logits, opts()), u) });
        draw();
      }
    } catch (e) {
      error = e.message;
      draw();
    } finally {
      busy = false;
    }
  }

  // The last step's (or the pending) distribution: reshaping keeps the step's number u.
  function current() {
    const last = steps[steps.length - 1];
    if (last) return { logits: last.logits, sampled: last.id };
    return pending ? { logits: pending, sampled: null } : null;
  }

  function draw() {
    $('temp-value').value = state.temp.toFixed(2);
    const ws = words();
    if (error) textHost.removeAttribute('lang');
    else textHost.lang = 'en'; // the model writes English
    textHost.innerHTML = error
      ? escapeHtml(t('engine.error', { message: error }))
      : ws
          .map((id, i) =>
            i < promptIds.length
              ? escapeHtml(shownToken(id))
              : `<mark class="lm-gen${i === ws.length - 1 ? ' last' : ''}">${escapeHtml(shownToken(id))}</mark>`
          )
          .join(subword ? '' : ' ');
    $('next').disabled = $('generate').disabled = (!pending && !steps.length) || ws.length >= MAX_WORDS || ended();
    endedNote.hidden = !ended();
    endedNote.textContent = ended() ? t('lm.sample.ended') : '';
    const cur = current();
    $('trace').disabled = !cur;
    if (!cur) {
      dist.innerHTML = '';
      legend.textContent = '';
      el.sampling = null;
      return;
    }
    if (tracer.open) trace();
    const before = softmax(cur.logits);
    const { p, keep } = reshape(cur.logits, opts());
    const ids = ranked(cur.logits).slice(0, SHOWN);
    if (cur.sampled !== null && !ids.includes(cur.sampled)) ids.push(cur.sampled);
    const shown = ids.map((id) => ({ id, token: vocab[id], before: before[id], after: p[id] }));
    const max = Math.max(...shown.map((s) => Math.max(s.before, s.after)));
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    // what the cuts keep: all V words, the top k, the nucleus of mass p (of the top k)
    const cut =
      state.topp < 1
        ? t(state.topk === 0 ? 'lm.sample.cutP' : 'lm.sample.cutKP', {
            k: state.topk,
            p: state.topp.toFixed(2),
            kept: keep.length,
          })
        : state.topk === 0 || state.topk >= vocab.length
          ? t('lm.sample.cutAll', { n: vocab.length })
          : t('lm.sample.cutK', { k: state.topk });
    legend.textContent = t(state.temp === 0 ? 'lm.sample.legendGreedy' : 'lm.sample.legend', {
      T: state.temp.toFixed(2),
      cut,
    });
    dist.innerHTML = shown
      .map(
        (s) => `
      <div class="lm-dist-row${s.id === cur.sampled ? ' sampled' : ''}" role="listitem" data-id="${s.id}">
        <span class="bar-label"><span lang="en">${escapeHtml(s.token)}</span>${s.id === cur.sampled ? ` <strong>◀ ${escapeHtml(t('lm.sample.drawn'))}</strong>` : ''}</span>
        <span class="bar-track" title="${escapeHtml(t('lm.sample.before'))}"><span class="bar-fill c0" style="width:${(100 * s.before) / max}%"></span></span>
        <span class="bar-track" title="${escapeHtml(t('lm.sample.after'))}"><span class="bar-fill c1" style="width:${(100 * s.after) / max}%"></span></span>
        <span class="bar-value">${pct(s.before)} → ${pct(s.after)}</span>
      </div>`
      )
      .join('');
    el.sampling = {
      T: state.temp,
      k: state.topk,
      p: state.topp,
      kept: keep.length,
      ended: ended(),
      seed: state.seed,
      logits: Array.from(cur.logits),
      shown,
      sampled: cur.sampled === null ? null : { id: cur.sampled, token: vocab[cur.sampled] },
      text: subword ? decodePieces(vocab, ws) : ws.map((id) => vocab[id]).join(' '),
    };
    el.dispatchEvent(new CustomEvent('sampled'));
  }

  // The trace of the distribution shown: the text before the word drawn (all of it when none
  // is), and that word. Runs again only when either changed.
  function trace({ restart = false } = {}) {
    const cur = current();
    if (!cur) return null;
    const ids = cur.sampled === null ? words() : words().slice(0, -1);
    const key = `${ids.join(' ')}|${cur.sampled}`;
    if (key === traced && !restart) return null;
    traced = key;
    return tracer.follow(ids, cur.sampled, { restart }).catch((e) => {
      error = e.message;
      draw();
    });
  }

  // T, k or p changed: the last drawn word is drawn again from the reshaped distribution with the
  // same uniform number, so the bars and the mark move together.
  function reshapeLast() {
    const last = steps[steps.length - 1];
    if (last) last.id = pick(reshape(last.logits, opts()), last.u);
    store.set({ temp: state.temp, topk: state.topk, topp: state.topp });
    draw();
  }

  let timer = 0;
  $('prompt').addEventListener('input', () => {
    state.prompt = $('prompt').value;
    store.set({ prompt: state.prompt });
    clearTimeout(timer);
    timer = setTimeout(restart, 250);
  });
  $('temp').addEventListener('input', () => {
    state.temp = Number($('temp').value);
    reshapeLast();
  });
  $('topk').addEventListener('change', () => {
    const k = Number($('topk').value);
    state.topk = Number.isInteger(k) ? Math.min(vocab.length, Math.max(0, k)) : state.topk;
    $('topk').value = String(state.topk);
    $('topp').value = String(state.topp);
    reshapeLast();
  });
  $('topp').addEventListener('change', () => {
    const p = Number($('topp').value);
    state.topp =
      Number.isFinite(p) && $('topp').value !== ''
        ? Math.min(1, Math.max(0.05, Math.round(p * 100) / 100))
        : state.topp;
    $('topp').value = String(state.topp);
    reshapeLast();
  });
  $('seed').addEventListener('change', () => {
    const s = Number($('seed').value);
    state.seed = Number.isInteger(s) && s >= 0 ? s : state.seed;
    $('seed').value = String(state.seed);
    store.set({ seed: state.seed });
    restart();
  });
  $('next').addEventListener('click', () => step(1));
  $('generate').addEventListener('click', () => step(BATCH));
  $('restart').addEventListener('click', restart);
  $('trace').addEventListener('click', async () => {
    await trace({ restart: true });
    el.querySelector('.tr-next')?.focus();
  });
  const ready = restart();
  return {
    ready,
    relabel() {
      draw();
      tracer.relabel();
    },
    unmount() {
      clearTimeout(timer);
      ++seq;
      tracer.unmount();
      el.innerHTML = '';
    },
  };
}
