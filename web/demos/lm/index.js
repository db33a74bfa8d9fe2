// `language-model` section demo: sentence probabilities under the shipped language model (a decoder-only
// Transformer trained natively: lm-prose, BPE subwords of Moby-Dick and the World English Bible,
// when index.json lists it; else lm-moby-dick, a word-level model of Moby-Dick). The engine (lmScore, a few milliseconds per
// sentence, so on the page's own module like the other small computations) scores each one,
// log p(w_1..w_n </s>) = Σ_t log p(w_t | w_<t); the bars show that total (their labels also the
// mean per token, the fair measure between sentences of different lengths), hovering or focusing
// a bar lists the per-token log-probabilities. State: lm.text (the reader's own sentence).
// Below, the same model generates text with temperature and top-k (generate.js).
import { t } from '../../i18n/index.js';
import { drawBars, escapeHtml } from '../../viz/bars.js';
import { shippedIndex, pretrainedNote } from '../common/shipped.js';
import { mountGenerator } from './generate.js';
import { checkpointVocab, isSubword, decodePieces } from './sample.js';

// the models §1 can show, the first that index.json lists
const NAMES = ['lm-prose', 'lm-moby-dick'];
// the built-in sentences: a word-level model reads lower-cased words and separate marks
export const FIXED = [
  { key: 'lm.grammatical', text: 'i saw the whale in the sea .' },
  { key: 'lm.shuffled', text: 'sea the whale . in i saw the' },
  { key: 'lm.nonsense', text: 'the sea saw the whale in me .' },
];
export const FIXED_CASED = [
  { key: 'lm.grammatical', text: 'I saw the whale in the sea.' },
  { key: 'lm.shuffled', text: 'Sea the whale. in I saw the' },
  { key: 'lm.nonsense', text: 'The sea saw the whale in me.' },
];

let bytesOnce = null;
async function checkpoint(ctx) {
  if (!bytesOnce) {
    bytesOnce = (async () => {
      const info = await ctx.engine.info();
      if (!info.sessions) return null;
      const index = await shippedIndex(ctx.base);
      const name = NAMES.find((n) => index[n]);
      if (!name) return null;
      const meta = index[name];
      const r = await fetch(new URL(meta.file, ctx.base));
      return r.ok ? { meta, bytes: new Uint8Array(await r.arrayBuffer()) } : null;
    })();
  }
  return bytesOnce;
}

export async function mount(el, ctx) {
  const shipped = await checkpoint(ctx);
  if (!shipped) return (await import('../pending/index.js')).mount(el, ctx);
  const { meta, bytes } = shipped;
  const vocab = checkpointVocab(bytes);
  const subword = !!vocab && isSubword(vocab);
  const fixed = subword ? FIXED_CASED : FIXED;
  const { read, store } = ctx;
  const state = {
    text: read.str('text', subword ? 'The captain looked at the sea.' : 'the captain looked at the sea .'),
  };
  el.innerHTML = `
    <label class="lm-own"><span data-i18n="lm.yours"></span>
      <input type="text" name="text" maxlength="200" spellcheck="false"></label>
    <p class="note lm-howto"></p>
    <div class="bars-host lm-bars"></div>
    <p class="readout lm-tokens" aria-live="polite"></p>
    <div class="lm-sample-host"></div>
    <div class="pretrained-host"></div>`;
  const input = el.querySelector('[name=text]');
  const barsHost = el.querySelector('.lm-bars');
  const tokensHost = el.querySelector('.lm-tokens');
  input.value = state.text;
  let scores = [],
    shown = 0,
    seq = 0;

  function showTokens(i) {
    const s = scores[i];
    if (!s) return;
    shown = i;
    tokensHost.innerHTML = s.tokens
      .map((tok, j) => {
        const lp = s.logprobs[j];
        // a subword piece shows its word-start mark ▁ (the pieces of one word sit side by side)
        return `<span class="lm-token" tabindex="0" title="log p = ${lp.toFixed(2)}">${escapeHtml(tok)}<sub>${lp.toFixed(1)}</sub></span>`;
      })
      .join(' ');
  }

  function draw() {
    // the vocabulary size from the checkpoint's own word list
    el.querySelector('.lm-howto').textContent = t(subword ? 'lm.howtoBpe' : 'lm.howto', {
      vocab: (vocab?.length ?? meta.vocab ?? '?').toLocaleString('en-US'),
    });
    // the mean per token goes with the sentence (the label line spans the row); the value column
    // keeps the total
    const mean = (i) =>
      scores[i] ? ` (${t('lm.mean', { mean: (scores[i].total / scores[i].logprobs.length).toFixed(2) })})` : '';
    const labels = [
      ...fixed.map((f, i) => `${t(f.key)}: ${f.text}${mean(i)}`),
      `${t('lm.yours')}: ${state.text}${mean(fixed.length)}`,
    ];
    const max = Math.max(1, ...scores.map((s) => (s ? -s.total : 0)));
    drawBars(
      barsHost,
      labels.map((label, i) => ({
        label,
        value: scores[i] ? scores[i].total : 0,
        color: i < fixed.length ? i : 3,
        text: scores[i] ? t('lm.logp', { v: scores[i].total.toFixed(1) }) : t('lm.empty'),
      })),
      { max }
    );
    barsHost.querySelectorAll('.bar-row').forEach((row) => {
      row.tabIndex = 0;
      const i = Number(row.dataset.index);
      row.addEventListener('mouseenter', () => showTokens(i));
      row.addEventListener('focus', () => showTokens(i));
    });
    showTokens(Math.min(shown, scores.length - 1));
  }

  async function score() {
    const mine = ++seq;
    const sentences = fixed.map((f) => f.text);
    const own = state.text.trim();
    let result;
    try {
      result = await ctx.engine.lmScore(bytes, own ? [...sentences, own] : sentences);
    } catch (e) {
      result = await ctx.engine.lmScore(bytes, sentences);
      tokensHost.textContent = e.message;
    }
    if (mine !== seq) return;
    scores = result;
    el.scores = scores.map((s) => ({
      tokens: [...s.tokens],
      logprobs: [...s.logprobs],
      total: s.total,
      text: decodePieces(vocab ?? [], [...s.ids]),
    }));
    el.sentences = own ? [...sentences, own] : sentences;
    draw();
    store.set(state);
    el.dataset.ready = '1';
    el.dispatchEvent(new CustomEvent('computed'));
  }

  let timer = 0;
  input.addEventListener('input', () => {
    state.text = input.value;
    clearTimeout(timer);
    timer = setTimeout(score, 250);
  });
  el.querySelector('.pretrained-host').innerHTML = pretrainedNote(meta);
  const generator = vocab
    ? mountGenerator(el.querySelector('.lm-sample-host'), ctx, { bytes, vocab, act: meta.config?.activation })
    : null;
  await score();
  return {
    relabel() {
      draw();
      generator?.relabel();
      el.querySelector('.pretrained-host').innerHTML = pretrainedNote(meta);
    },
    unmount() {
      clearTimeout(timer);
      generator?.unmount();
      el.innerHTML = '';
    },
  };
}
