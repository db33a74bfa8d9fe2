// Build-time plugin: copies examples/embed/*.html into dist/examples/embed/, where their
// `../../embed.js` reaches the widget script, so the example runs from dist/ on any static host.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

export function embedExamplePlugin(root) {
  const dir = path.join(root, 'examples', 'embed');
  return {
    name: 'attnlab-embed-example',
    apply: 'build',
    generateBundle() {
      if (!existsSync(dir)) return;
      for (const f of readdirSync(dir).filter((x) => x.endsWith('.html')))
        this.emitFile({ type: 'asset', fileName: `examples/embed/${f}`, source: readFileSync(path.join(dir, f), 'utf8') });
    },
  };
}
