// Placeholder for a model demo whose engine side (model, task or checkpoint) is not in this
// build: states what the demo computes, why it cannot run here yet, and never shows made-up
// numbers in its place.
import { t } from '../../i18n/index.js';

const hasKey = (k) => {
  try {
    t(k);
    return true;
  } catch {
    return false;
  }
};

export function mount(el, ctx) {
  const why = hasKey(`demo.${ctx.name}.why`) ? `demo.${ctx.name}.why` : 'pending.note';
  el.innerHTML = `
    <div class="pending">
      <p><strong data-i18n="pending.title"></strong></p>
      <p data-i18n="demo.${ctx.name}.what"></p>
      <p class="note" data-i18n="${why}"></p>
    </div>`;
  el.dataset.pending = '1';
  return {
    unmount() {
      el.innerHTML = '';
    },
  };
}
