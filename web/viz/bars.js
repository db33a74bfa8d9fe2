// Horizontal bars as plain HTML (readable by screen readers, no canvas): items are
// {label, value, text?}; `max` sets the full-width value. Signed values grow from the middle.
export function drawBars(el, items, { max = 1, signed = false, colorIndex = 0 } = {}) {
  el.classList.add('bars');
  el.dataset.signed = signed ? '1' : '0';
  el.innerHTML = items
    .map((it, i) => {
      const f = Math.min(1, Math.abs(it.value) / max);
      const style = signed ? `left:${it.value < 0 ? 50 - 50 * f : 50}%;width:${50 * f}%` : `width:${100 * f}%`;
      return (
        `<div class="bar-row" data-index="${i}"><span class="bar-label">${escapeHtml(it.label)}</span>` +
        `<span class="bar-track"><span class="bar-fill c${it.color ?? colorIndex}${it.value < 0 ? ' neg' : ''}" style="${style}"></span></span>` +
        `<span class="bar-value">${escapeHtml(it.text ?? it.value.toFixed(3))}</span></div>`
      );
    })
    .join('');
}

export function escapeHtml(s) {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]
  );
}
