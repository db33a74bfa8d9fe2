// Puts the widgets' stylesheet (and uPlot's) into the document once, so an embedded widget
// needs only its script. The page loads the same sheet this way.
import widgetCss from './widgets.css?inline';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';

export function ensureWidgetStyles(doc = document) {
  if (doc.getElementById('attnlab-widget-styles')) return;
  const style = doc.createElement('style');
  style.id = 'attnlab-widget-styles';
  style.textContent = `${uplotCss}\n${widgetCss}`;
  doc.head.prepend(style);
}
