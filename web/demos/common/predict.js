// "Predict, then run": a question the reader answers before running a demo, with two to four
// answers (a labelled radio group: Tab reaches it, the arrow keys choose). The choice is kept in
// the demo's settings under `guess` (the URL hash, or a widget's attributes), so a shared link
// carries it; answering is optional, the demo runs either way. When the run starts the choice is
// locked (lock()); when the demo's result arrives the demo calls reveal(answer, explain), where
// `answer` is the choice its own numbers support, decided from those numbers at that moment, and
// `explain()` the one line, in the current language, that gives the deciding figures. reset()
// unlocks it and hides the answer; follow(runEl) does lock() and reset() as the run's
// data-state (web/demos/common/run.js, training-run.js) leaves and returns to idle. relabel()
// re-renders the answer line in the page's language. On the fieldset: data-answer and
// data-guess once revealed.
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';

let groups = 0;

// question: an i18n key; choices: [{value, label}] (label an i18n key) or [{value, text}] (the
// same in every language, e.g. "h = 4"), 2 to 4 of them.
export function predict(ctx, { question, choices }) {
  if (!Array.isArray(choices) || choices.length < 2 || choices.length > 4)
    throw new Error(`predict: 2 to 4 choices, got ${choices?.length}`);
  const values = choices.map((c) => c.value);
  let guess = ctx.read.str('guess', '', values); // '' (the default): no answer
  const id = `predict-${ctx.name}-${++groups}`;
  const el = document.createElement('fieldset');
  el.className = 'predict';
  el.innerHTML = `
    <legend><span class="predict-tag" data-i18n="predict.tag"></span> <span data-i18n="${question}"></span></legend>
    <div class="predict-choices">${choices
      .map(
        (c) =>
          `<label><input type="radio" name="${id}" value="${escapeHtml(c.value)}"> ${c.label ? `<span data-i18n="${c.label}"></span>` : `<span>${escapeHtml(c.text)}</span>`}</label>`
      )
      .join('')}</div>
    <p class="note predict-hint" data-i18n="predict.hint"></p>
    <p class="readout predict-reveal" role="status" hidden></p>`;
  const radios = [...el.querySelectorAll('input[type=radio]')];
  const reveal = el.querySelector('.predict-reveal');
  const hint = el.querySelector('.predict-hint');
  for (const r of radios) {
    r.checked = r.value === guess;
    r.addEventListener('change', () => {
      if (!r.checked) return;
      guess = r.value;
      ctx.store.set({ guess });
    });
  }
  let shown = null; // {answer, explain}
  const label = (v) => {
    const c = choices.find((x) => x.value === v);
    return c.label ? t(c.label) : c.text;
  };

  function render() {
    hint.dataset.i18n = el.disabled ? 'predict.locked' : 'predict.hint'; // what a language switch refills
    hint.textContent = t(hint.dataset.i18n);
    if (!shown) {
      reveal.hidden = true;
      reveal.textContent = '';
      delete el.dataset.answer;
      delete el.dataset.guess;
      return;
    }
    const verdict = !guess
      ? t('predict.noGuess')
      : guess === shown.answer
        ? t('predict.right')
        : t('predict.wrong', { guess: label(guess) });
    reveal.textContent = `${t('predict.answer', { answer: label(shown.answer) })} ${verdict} ${shown.explain()}`;
    reveal.hidden = false;
    el.dataset.answer = shown.answer;
    el.dataset.guess = guess;
  }

  const handle = {
    el,
    get guess() {
      return guess;
    },
    // the run has started: the reader's answer stands as it is
    lock() {
      if (el.disabled) return;
      el.disabled = true;
      render();
    },
    reveal(answer, explain) {
      if (!values.includes(answer)) throw new Error(`predict: '${answer}' is not one of ${values.join(', ')}`);
      shown = { answer, explain };
      render();
      el.dispatchEvent(new CustomEvent('revealed', { bubbles: true, detail: { answer, guess } }));
    },
    reset() {
      el.disabled = false;
      shown = null;
      render();
    },
    // lock while the run at runEl is anything but idle; unlock and forget the answer when it
    // returns to idle (Reset, or another setting that starts over)
    follow(runEl) {
      const sync = () => (runEl.dataset.state && runEl.dataset.state !== 'idle' ? handle.lock() : handle.reset());
      new MutationObserver(sync).observe(runEl, { attributes: true, attributeFilter: ['data-state'] });
      sync();
      return handle;
    },
    relabel: render,
  };
  render();
  return handle;
}
