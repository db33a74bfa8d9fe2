// Build-time plugin: copies the example pages (examples/embed/*.html and
// examples/native-to-page/*.html) into dist/examples/<folder>/, where their `../../embed.js`
// reaches the widget script, so they run from dist/ on any static host.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

const FOLDERS = ['embed', 'native-to-page'];

export function embedExamplePlugin(root) {
  return {
    name: 'attnlab-embed-example',
    apply: 'build',
    generateBundle() {
      for (const folder of FOLDERS) {
        const dir = path.join(root, 'examples', folder);
        if (!existsSync(dir)) continue;
        for (const f of readdirSync(dir).filter((x) => x.endsWith('.html')))
          this.emitFile({
            type: 'asset',
            fileName: `examples/${folder}/${f}`,
            source: readFileSync(path.join(dir, f), 'utf8'),
          });
      }
    },
  };
}
