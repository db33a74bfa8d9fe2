// `decoder` section demo: a German→English Transformer trained natively on a real corpus (the example
// sentences of the Ding dictionary, `npm run reproduce -- --only translate-de-en`) translates
// in the page's Worker. The model (models/translate-de-en.safetensors, float16) loads only when
// the reader opens the translator. Each translation decodes twice, greedy and with beam search
// of the chosen width; one teacher-forced pass over an output then gives the cross-attention of
// every decoder layer and head (output pieces × source BPE pieces), and the step slider replays
// the decoding token by token (row t of a map is exactly what step t read: the decoder is causal).
// Under the translations, the engine's record of its beam search: every step's hypotheses with
// their scores, kept, finished and pruned, and the winner's path (beam.js).
// The source words the training data never contained are marked (models/<name>.words.json, the
// German words of the file the model trained on): the reader sees where the model has to guess.
// State: translate.sentence (held-out example), translate.beam (1–8), translate.maps (beam|greedy).
import { t, applyI18n, compactCount } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';
import '../../viz/heatmap.js';
import { loadShipped, shippedIndex } from '../common/shipped.js';
import { markUnknown } from './words.js';
import { beamView } from './beam.js';
import { browserLocale } from '../../core/locale.js';

const NAME = 'translate-de-en';
const MAX_CHARS = 400;

export async function mount(el, ctx) {
  const meta = (await shippedIndex(ctx.base))[NAME];
  if (!meta) return (await import('../pending/index.js')).mount(el, ctx);
  const { read, store } = ctx;
  const state = {
    sentence: read.int('sentence', 0, 0, 999),
    beam: read.int('beam', 4, 1, 8),
    maps: read.str('maps', 'beam', ['beam', 'greedy']),
  };
  let unmounted = false;
  const mb = (meta.bytes / 2 ** 20).toFixed(1);

  el.innerHTML = `
    <p class="note" name="about"></p>
    <button type="button" name="open"></button>
    <p class="readout" name="status" aria-live="polite"></p>`;
  const $ = (n) => el.querySelector(`[name=${n}]`);
  const threads = meta.threads ?? 2; // models exported before index.json recorded it: 2
  const about = () => {
    $('about').textContent = t('tr.about', {
      pairs: meta.trainPairs.toLocaleString(browserLocale()),
      bleu: meta.bleu.toFixed(1),
      test: meta.testPairs,
      params: compactCount(meta.params),
      mb,
      minutes: Math.round(meta.seconds / 60),
      threads: threads === 1 ? t('tr.threads1') : t('tr.threadsN', { n: threads }),
    });
    const open = $('open');
    if (open) open.textContent = t('tr.open', { mb });
  };
  about();

  let session = null,
    examples = [],
    result = null,
    known = null;
  // the status line: its string key and values, so a language switch rewrites it
  let status = null;
  const say = (key, vars = {}) => {
    status = { key, vars };
    $('status').textContent = t(key, vars);
  };

  async function open() {
    $('open').disabled = true;
    say('tr.loading', { mb });
    try {
      const json = (file) =>
        fetch(new URL(file, ctx.base)).then((r) => {
          if (!r.ok) throw new Error(`${file}: HTTP ${r.status}`);
          return r.json();
        });
      const [shipped, ex, words] = await Promise.all([
        loadShipped(ctx, NAME),
        json(meta.examples),
        meta.words ? json(meta.words).catch(() => null) : null,
      ]); // no words file: no marks
      if (!shipped) throw new Error(t('tr.missing', { file: meta.file }));
      if (unmounted) return;
      session = shipped.session;
      // the held-out test pairs (with their references), then the typed sentences (none)
      examples = [...ex.pairs, ...(ex.typed ?? []).map((de) => ({ de, en: '', typed: true }))];
      known = words ? new Set(words.words) : null;
      build();
      await translate();
    } catch (e) {
      say('engine.error', { message: e.message });
      $('open').disabled = false;
    }
  }

  function build() {
    state.sentence = Math.min(state.sentence, examples.length - 1);
    el.innerHTML = `
      <p class="note" name="about"></p>
      <div class="controls">
        <label><span data-i18n="tr.example"></span> <select name="sentence">${[false, true]
          .map((typed) => {
            const opts = examples
              .map((p, i) => (!!p.typed === typed ? `<option value="${i}" lang="de">${escapeHtml(p.de)}</option>` : ''))
              .join('');
            return opts ? `<optgroup data-group="${typed ? 'tr.groupTyped' : 'tr.groupTest'}">${opts}</optgroup>` : '';
          })
          .join('')}</select></label>
        <label class="wide"><span data-i18n="tr.input"></span>
          <textarea name="text" rows="2" maxlength="${MAX_CHARS}" lang="de" spellcheck="false"></textarea></label>
        <label><span data-i18n="tr.beam"></span> <input type="range" name="beam" min="1" max="8" step="1">
          <output name="beam-value"></output></label>
        <label><span data-i18n="tr.maps"></span> <select name="maps">
          <option value="beam" data-i18n="tr.mapsBeam"></option><option value="greedy" data-i18n="tr.mapsGreedy"></option></select></label>
        <button type="button" name="go" data-i18n="tr.translate"></button>
      </div>
      <div class="demo-row translations">
        <div><h4 data-i18n="tr.greedy"></h4><p class="readout" name="greedy" lang="en"></p></div>
        <div><h4 name="beam-title"></h4><p class="readout" name="beamed" lang="en"></p></div>
        <div><h4 data-i18n="tr.reference"></h4><p class="readout" name="reference" lang="en"></p></div>
      </div>
      <p class="readout" name="unknown"></p>
      <p class="readout" name="status" aria-live="polite"></p>
      <section class="beam-trace" aria-labelledby="tr-trace-title">
        <h4 id="tr-trace-title" data-i18n="tr.traceTitle"></h4>
        <p class="note" data-i18n="tr.traceAbout"></p>
        <div name="beam-trace"></div>
      </section>
      <div class="controls"><label><span data-i18n="tr.step"></span> <input type="range" name="step" min="0" value="0"></label></div>
      <p class="readout" name="replay" aria-live="polite"></p>
      <div class="head-grid tr-maps" name="heads"></div>`;
    applyI18n(el, { updateDocument: false });
    groups();
    about();
    $('sentence').value = String(state.sentence);
    $('text').value = examples[state.sentence]?.de ?? '';
    $('beam').value = String(state.beam);
    $('maps').value = state.maps;
    $('beam-value').textContent = String(state.beam);
    $('sentence').addEventListener('change', () => {
      state.sentence = Number($('sentence').value);
      $('text').value = examples[state.sentence].de;
      translate();
    });
    $('beam').addEventListener('input', () => {
      state.beam = Number($('beam').value);
      $('beam-value').textContent = String(state.beam);
    });
    $('beam').addEventListener('change', () => translate());
    $('maps').addEventListener('change', () => {
      state.maps = $('maps').value;
      if (result) {
        result.step = lastStep();
        draw();
      }
    });
    $('go').addEventListener('click', () => translate());
    $('text').addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        translate();
      }
    });
    $('step').addEventListener('input', () => {
      if (result) {
        result.step = Number($('step').value);
        draw();
      }
    });
  }

  // the example list's two groups are named in the page's language
  const groups = () =>
    el.querySelectorAll('optgroup[data-group]').forEach((g) => {
      g.label = t(g.dataset.group);
    });

  const shown = () => (result ? result[state.maps] : null);
  const lastStep = () => (shown() ? shown().cross[0].T - 1 : 0);

  // Greedy and beam translations of the text box, then the maps; only the latest request draws.
  let asked = 0;
  async function translate() {
    const text = $('text').value.trim();
    const reference = examples[state.sentence]?.de === text ? examples[state.sentence].en : '';
    if (!text) {
      say('tr.empty');
      return;
    }
    const mine = ++asked;
    say('tr.working');
    $('go').disabled = true;
    try {
      const t0 = performance.now();
      const greedy = await session.translate(text, { beam: 1 });
      const beamed = await session.translate(text, { beam: state.beam, trace: true });
      if (mine !== asked || unmounted) return;
      result = { text, reference, greedy, beam: beamed, beamWidth: state.beam, ms: performance.now() - t0 };
      result.step = lastStep();
      say('tr.done', { ms: Math.round(result.ms), n: greedy.src.ids.length });
      drawBeam();
      draw();
    } catch (e) {
      if (mine === asked) say('engine.error', { message: e.message });
    } finally {
      if (mine === asked && !unmounted) $('go').disabled = false;
    }
  }

  // the beam search's record (redrawn on a new translation or a language switch only, so that
  // the step slider leaves its scroll position alone)
  function drawBeam() {
    if (!result || unmounted) return;
    $('beam-trace').innerHTML = beamView(result.beam.trace);
  }

  function draw() {
    if (!result || unmounted) return;
    const r = result;
    $('greedy').textContent = r.greedy.text;
    $('beamed').textContent = r.beam.text;
    $('reference').textContent = r.reference || t('tr.noReference');
    $('beam-title').textContent = t('tr.beamOut', { k: r.beamWidth });
    const out = shown();
    const T = out.cross[0].T,
      S = out.cross[0].S;
    const outLabels = [...out.out.pieces, '</s>'];
    const srcLabels = out.src.pieces;
    r.step = Math.min(Math.max(0, r.step), T - 1);
    $('step').max = String(T - 1);
    $('step').value = String(r.step);
    $('replay').innerHTML = `${t('tr.replay', { step: r.step + 1, total: T })} <span lang="en">${outLabels
      .map((l, i) =>
        i === r.step
          ? `<mark>${escapeHtml(l)}</mark>`
          : i < r.step
            ? escapeHtml(l)
            : `<span class="future">${escapeHtml(l)}</span>`
      )
      .join(' ')}</span>`;
    // one small map per layer and head, rows 0..step: what the decoder had read up to this step
    const grid = $('heads');
    const want = out.cross.length * out.cross[0].H;
    if (grid.children.length !== want) {
      grid.innerHTML = out.cross
        .map((m, l) =>
          Array.from(
            { length: m.H },
            (_, h) =>
              `<figure><figcaption>${escapeHtml(t('tr.head', { layer: l + 1, head: h + 1 }))}</figcaption><al-heatmap data-layer="${l}" data-head="${h}"></al-heatmap></figure>`
          ).join('')
        )
        .join('');
    } else {
      grid.querySelectorAll('figcaption').forEach((c, k) => {
        c.textContent = t('tr.head', { layer: Math.floor(k / out.cross[0].H) + 1, head: (k % out.cross[0].H) + 1 });
      });
    }
    // the source, word by word, the words its training data never held marked
    const words = known ? markUnknown(srcLabels, known) : [];
    const unknown = words.filter((w) => !w.known);
    $('unknown').hidden = !known;
    if (known) {
      $('unknown').innerHTML =
        `${escapeHtml(t(unknown.length ? 'tr.unknown' : 'tr.allKnown', { n: unknown.length, total: words.length }))} ` +
        `<span lang="de">${words.map((w) => (w.known ? escapeHtml(w.text) : `<mark class="unknown-word">${escapeHtml(w.text)}</mark>`)).join(' ')}</span>`;
    }
    const rows = r.step + 1;
    grid.querySelectorAll('al-heatmap').forEach((hm) => {
      const m = out.cross[Number(hm.dataset.layer)],
        h = Number(hm.dataset.head);
      const w = m.weights.subarray(h * T * S, h * T * S + rows * S);
      hm.setAttribute('aria-label', t('tr.head', { layer: Number(hm.dataset.layer) + 1, head: h + 1 }));
      hm.set(w, rows, S, { rowLabels: outLabels.slice(0, rows), colLabels: srcLabels, minCell: 6, maxWidth: 260 });
    });
    el.translation = {
      text: r.text,
      greedy: r.greedy.text,
      beam: r.beam.text,
      beamWidth: r.beamWidth,
      reference: r.reference,
      maps: state.maps,
      step: r.step,
      T,
      S,
      layers: out.cross.length,
      heads: out.cross[0].H,
      srcPieces: srcLabels,
      outPieces: outLabels,
      tokens: Array.from(out.out.ids),
      unknownWords: known ? unknown.map((w) => w.text) : null,
      traceSteps: r.beam.trace?.steps.length ?? 0,
    };
    store.set({ sentence: state.sentence, beam: state.beam, maps: state.maps });
    el.dispatchEvent(new CustomEvent('computed'));
  }

  $('open').addEventListener('click', open);
  return {
    relabel() {
      about();
      groups();
      if (status) $('status').textContent = t(status.key, status.vars);
      if (result) {
        drawBeam();
        draw();
      }
    },
    unmount() {
      unmounted = true;
      el.innerHTML = '';
    },
  };
}
