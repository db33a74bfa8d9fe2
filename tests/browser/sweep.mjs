// Page-wide sweeps shared by named-controls.test.mjs and phone.test.mjs: mount every demo, and
// list (in the page) the visible controls without a name, the text in the other language, the
// targets under a size and the print under a size. Each list is of short descriptions, empty
// when all is well.

// Scrolls every demo into view (they mount lazily) and waits until each is ready.
export async function mountAll(page) {
  await page.waitForSelector('body[data-ready="1"]');
  const names = await page.$$eval('[data-demo]', (els) => els.map((e) => e.dataset.demo));
  for (const name of names) {
    await page.locator(`[data-demo="${name}"]`).scrollIntoViewIfNeeded();
    // a hang bound, not a speed check: §1's sampler loads its model in the shared Worker, which
    // may still be busy with another demo's work on a loaded machine
    await page.waitForSelector(`[data-demo="${name}"][data-ready="1"]`, { timeout: 150000 }).catch(async (e) => {
      throw new Error(`${e.message}\n${await demoState(page, name)}`);
    });
  }
  return names;
}

// What a demo that never got ready shows, for the failure's message: its attributes, its text,
// the page's errors and the demos' ready marks so far.
async function demoState(page, name) {
  const st = await page
    .evaluate((name) => {
      const el = document.querySelector(`[data-demo="${name}"]`);
      const r = el?.getBoundingClientRect();
      return {
        attrs: el ? Object.fromEntries([...el.attributes].map((a) => [a.name, a.value])) : null,
        text: el?.textContent.trim().slice(0, 300),
        rect: r && [r.top, r.bottom].map(Math.round),
        scrollY,
        marks: performance.getEntriesByType('mark').map((m) => `${m.name}@${Math.round(m.startTime)}`),
      };
    }, name)
    .catch((e) => ({ unreadable: e.message }));
  return `demo ${name}: ${JSON.stringify(st)}\npage errors: ${JSON.stringify(page.errors ?? [])}`;
}

// Names and terms the Korean page writes in Latin letters on purpose: model and paper names,
// units, file formats, the notation of the formulas and the engine's build label.
export const LATIN_TERMS = new Set(
  `
attnlab transformer transformers rnnsearch rnnencdec bahdanau vaswani luong graves vinyals ptr net ntm lstm gru rnn seq2seq
bleu wmt gpu gpus cpu cpus simd simd128 webassembly webgpu wasm fma worker bpe relu gelu softmax argmax beam greedy
png csv tsv txt json safetensors kib mib mb kb ms tsp ding moby dick gpl layernorm layer norm embed embedding pe sin cos
query key value dk dv model ffn mask causal d_model d_k d_v d_ff log exp max min sum mean top top-k top-p github arxiv html url
attention all you need tab dropout adam warmup search npm stdlib datasets-moby-dick apache mit attn phrases iso ptr-net
enter shift space esc home end
dot general concat tanh h_j e_ij h_t c_t w_a v_a w_c
sgd noam
`
    .trim()
    .split(/\s+/)
);

// In the page: every visible control, option and heading with no text or accessible name, and
// every visible text run of the demos and the page's own frame (header, contents, engine line,
// footer) in the other language: Hangul in an English page, Latin words of three or more letters
// outside LATIN_TERMS in a Korean one. The guide's prose (fragments checked by
// tests/node/content.test.mjs, rich in paper titles, authors and English examples), text marked
// with another lang (lang="en" translations, lang="de" sources), formulas, code, quoted tokens
// (“are”, <unk>) and data drawn as tokens are left out.
export function checkPage(page, terms = LATIN_TERMS) {
  return page.evaluate(
    (terms) => {
      const allow = new Set(terms);
      const lang = document.documentElement.lang;
      const shown = (el) => {
        if (!el.isConnected || el.closest('[hidden], .sr-only')) return false;
        if (!el.checkVisibility({ visibilityProperty: true })) return false;
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
      };
      const name = (el) => {
        const byId = (el.getAttribute('aria-labelledby') ?? '')
          .split(/\s+/)
          .filter(Boolean)
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' ');
        const label =
          el.closest('label')?.textContent ??
          (el.id ? document.querySelector(`label[for="${CSS.escape(el.id)}"]`)?.textContent : '') ??
          '';
        return [
          el.getAttribute('aria-label'),
          byId,
          el.matches('button, [role=button], summary, h1, h2, h3, h4, h5, h6, option, a') ? el.textContent : '',
          label,
          el.title,
        ]
          .filter(Boolean)
          .join(' ')
          .trim();
      };
      const where = (el) => {
        const demo = el.closest('[data-demo]')?.dataset.demo;
        const nm = el.getAttribute('name');
        return `${demo ? `[${demo}] ` : ''}${el.tagName.toLowerCase()}${nm ? `[name=${nm}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
      };
      const unnamed = [];
      for (const el of document.querySelectorAll(
        'button, select, input:not([type=hidden]), textarea, h1, h2, h3, h4, summary, [role=button], al-heatmap, progress, a[href]'
      )) {
        if (!shown(el) && !(el.type === 'file' && shown(el.closest('label') ?? el))) continue;
        if (!name(el)) unnamed.push(`${where(el)} has no name`);
        if (el.tagName === 'SELECT') {
          for (const o of el.options)
            if (!o.textContent.trim()) unnamed.push(`${where(el)} option ${o.value} is empty`);
        }
      }
      const other = [];
      const skip =
        'script, style, code, pre, .katex, .tex, .tex-block, svg, canvas, .vec, .tokens, .st-mat, textarea, .lm-bars .bar-label, .lm-tokens, .heatmap-readout';
      const seen = (el) => (el.tagName === 'OPTION' ? shown(el.closest('select')) : shown(el));
      const ui = '[data-demo], .site-header, #toc, #engine-line, .site-footer';
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        const text = n.textContent.replace(/“[^”]*”|"[^"]*"|<[^>]*>/g, ' ').trim();
        if (!text || !el || el.closest(skip) || !el.closest(ui) || !seen(el)) continue;
        const own = el.closest('[lang]')?.lang ?? lang;
        if (own !== lang) continue;
        if (lang === 'en' && /[\uac00-\ud7a3]/.test(text)) other.push(`${where(el)}: "${text.slice(0, 60)}"`);
        if (lang === 'ko') {
          const words = (text.match(/[A-Za-z][A-Za-z_'’-]{2,}/g) ?? []).filter(
            (w) =>
              !allow.has(
                w
                  .toLowerCase()
                  .replace(/[’']s$/, '')
                  .replace(/-$/, '')
              )
          );
          if (words.length) other.push(`${where(el)}: ${[...new Set(words)].join(', ')} in "${text.slice(0, 60)}"`);
        }
      }
      return { unnamed: [...new Set(unnamed)], other: [...new Set(other)] };
    },
    [...terms]
  );
}

// In the page: visible interactive targets smaller than `min` CSS px either way (links inside a
// sentence are exempt, as in WCAG 2.2's target-size), and visible text set under `minFont` px
// (formulas' sub- and superscripts and text drawn in canvases aside).
export function smallThings(page, { min = 24, minFont = 14 } = {}) {
  return page.evaluate(
    ({ min, minFont }) => {
      const shown = (el) =>
        !el.closest('[hidden], .sr-only') &&
        el.checkVisibility({ visibilityProperty: true }) &&
        el.getBoundingClientRect().width > 0;
      const desc = (el) =>
        `${el.closest('[data-demo]') ? `[${el.closest('[data-demo]').dataset.demo}] ` : ''}${el.tagName.toLowerCase()}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/)[0]}` : ''}`;
      const targets = [];
      for (const el of document.querySelectorAll(
        'button, select, input:not([type=hidden]), textarea, a[href], summary, [role=button]'
      )) {
        if (!shown(el)) continue;
        if (el.tagName === 'A' && el.closest('p, li, td, figcaption, caption, aside')) continue;
        const r = el.getBoundingClientRect();
        if (r.width < min - 0.01 || r.height < min - 0.01)
          targets.push(`${desc(el)} ${r.width.toFixed(0)}×${r.height.toFixed(0)}`);
      }
      const print = new Map();
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!n.textContent.trim() || !el || el.closest('.katex, sub, sup, svg, script, style, .sr-only') || !shown(el))
          continue;
        const px = parseFloat(getComputedStyle(el).fontSize);
        if (px < minFont - 0.01) {
          const k = `${desc(el)} ${px.toFixed(1)}px`;
          print.set(k, (print.get(k) ?? 0) + 1);
        }
      }
      return { targets: [...new Set(targets)], print: [...print].map(([k, c]) => `${k} ×${c}`) };
    },
    { min, minFont }
  );
}
