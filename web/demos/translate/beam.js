// The translator's beam search, step by step, from the engine's own record of it
// (Session.translate's `trace`, eval/decode.cpp's BeamTrace): a column per decoding step, a row
// per candidate the step weighed, best log-probability first. The candidates the search took
// (kept, or finished by </s>) come first, then the best ones it pruned, greyed. Each row shows the
// hypothesis so far (its newest piece emphasised), its log-probability and the length-normalised
// score the winner is chosen by; the winner's path is highlighted. The columns scroll sideways
// inside their own box, which takes the keyboard (Tab, then the arrow keys).
import { t } from '../../i18n/index.js';
import { escapeHtml } from '../../viz/bars.js';

const TAIL = 26; // characters of a long hypothesis shown (its end, where the step's piece is)

// −1.23 with a real minus sign
const num = (x) => (Number.isFinite(x) ? x.toFixed(2).replace('-', '−') : String(x));

// The view's HTML for a trace (null or a greedy decoding's: a sentence saying why there is none).
export function beamView(trace) {
  if (!trace || !trace.steps.length) return `<p class="note" name="beam-none">${escapeHtml(t('tr.traceGreedy'))}</p>`;
  const { steps, path, winner } = trace;
  const onPath = (s, i) => path[s] === i;
  const cols = steps
    .map((step, s) => {
      const rows = step
        .map((c, i) => {
          const won = winner && winner.step === s && winner.index === i;
          const cls = [c.status, onPath(s, i) ? 'path' : '', won ? 'winner' : ''].filter(Boolean).join(' ');
          const shown = c.text.length > TAIL ? `…${c.text.slice(-TAIL + 1)}` : c.text;
          // the step's piece at the end of the text, emphasised (</s> as its own mark)
          const piece = c.piece.replace(/^▁/, '');
          const body =
            c.piece === '</s>'
              ? `${escapeHtml(shown)} <b>&lt;/s&gt;</b>`
              : piece && shown.endsWith(piece)
                ? `${escapeHtml(shown.slice(0, -piece.length))}<b>${escapeHtml(piece)}</b>`
                : escapeHtml(shown);
          const tag = won ? t('tr.traceWinner') : t(`tr.trace.${c.status}`);
          return `<li class="${cls}" data-status="${c.status}" data-logp="${c.logp}" data-score="${c.score}"${
            onPath(s, i) ? ' data-path="1"' : ''
          }${won ? ' data-winner="1"' : ''}>
            <span class="tag">${escapeHtml(tag)}</span>
            <span class="hyp" lang="en"><span aria-hidden="true">${body}</span><span class="sr-only">${escapeHtml(c.text)}</span></span>
            <span class="scores">${escapeHtml(t('tr.traceScores', { logp: num(c.logp), score: num(c.score) }))}</span></li>`;
        })
        .join('');
      return `<li class="beam-step"><h5>${escapeHtml(t('tr.traceStep', { step: s + 1 }))}</h5><ol>${rows}</ol></li>`;
    })
    .join('');
  const w = winner ? steps[winner.step][winner.index] : null;
  const counts = { kept: 0, finished: 0, pruned: 0 };
  for (const step of steps) for (const c of step) counts[c.status]++;
  const summary = w
    ? t('tr.traceSummary', {
        steps: steps.length,
        finished: counts.finished,
        pruned: counts.pruned,
        step: winner.step + 1,
        logp: num(w.logp),
        score: num(w.score),
        alpha: trace.alpha.toFixed(1),
      })
    : '';
  return `<p class="note" name="beam-summary">${escapeHtml(summary)}</p>
    <div class="beam-scroll" role="region" tabindex="0" aria-label="${escapeHtml(t('tr.traceRegion', { k: trace.beam }))}">
      <ol class="beam-steps">${cols}</ol></div>`;
}
