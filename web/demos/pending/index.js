// Placeholder for a model demo whose engine side (model, task or checkpoint) is not in this
// build: states what the demo computes and that it is not available yet, and never shows
// made-up numbers in its place.
export function mount(el, ctx) {
  el.innerHTML = `
    <div class="pending">
      <p><strong data-i18n="pending.title"></strong></p>
      <p data-i18n="demo.${ctx.name}.what"></p>
      <p class="note" data-i18n="pending.note"></p>
    </div>`;
  el.dataset.pending = '1';
  return { unmount() { el.innerHTML = ''; } };
}
