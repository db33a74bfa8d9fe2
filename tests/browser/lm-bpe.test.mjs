// §1 with a subword (BPE) language model: a small one is trained here natively (attn train --task
// text with the "bpe" tokenizer, on paragraphs of Moby-Dick) and served as models/lm-prose in
// place of the shipped index's entries. The engine in the Worker splits the built-in sentences
// and the prompt into the checkpoint's own pieces (no <unk>), the page joins the pieces back
// into the same text at "▁", and the generator's text has no piece marks left.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { usePage, root } from './harness.mjs';
import { mobyDickParagraphs } from '../../experiments/lib/lm-corpus.mjs';
import { unavailable } from '../unavailable.mjs';

const attn = path.join(root, 'build', 'native', 'attn');
const { server, browser } = usePage();
let ckpt;
before(async () => {
  if (!existsSync(attn)) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-lm-bpe-'));
  const corpus = path.join(dir, 'prose.txt');
  writeFileSync(corpus, `${mobyDickParagraphs(root).slice(0, 400).join('\n')}\n`);
  ckpt = path.join(dir, 'lm.safetensors');
  const task = { file: corpus, tokenizer: 'bpe', vocab: 600, max_len: 32, min_len: 3 };
  const r = spawnSync(
    attn,
    ['train', '--task', 'text', '--task-options', JSON.stringify(task), '--model', 'lm', '--d-model', '32']
      .concat(['--heads', '2', '--d-ff', '64', '--layers', '1', '--tie-embeddings', '--batch', '16', '--steps', '40'])
      .concat(['--schedule', 'constant', '--lr', '0.003', '--seed', '1', '--threads', '1', '--out', ckpt]),
    { encoding: 'utf8' }
  );
  assert.equal(r.status, 0, r.stderr);
});

test('§1 with a BPE model: pieces from the engine, joined into words on the page', async (t) => {
  if (!ckpt) return unavailable(t, 'no native attn build to train the small BPE model');
  const bytes = readFileSync(ckpt);
  const page = await browser.newPage();
  await page.route('**/models/index.json', async (route) => {
    const index = await (await route.fetch()).json();
    const entry = {
      file: 'models/lm-prose.safetensors',
      section: 'language-model',
      bytes: bytes.length,
      steps: 40,
      command: 'attn train --task text (a small BPE test model)',
      data: 'Moby-Dick, 400 paragraphs',
      licence: 'public domain text',
    };
    await route.fulfill({ json: { 'lm-prose': entry, ...index } });
  });
  await page.route('**/models/lm-prose.safetensors', (route) =>
    route.fulfill({ body: bytes, contentType: 'application/octet-stream' })
  );
  await page.goto(`${server.url}?lang=en#lm.temp=0&lm.topp=1`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=lm]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=lm][data-ready="1"]', { timeout: 30000 });
  if ((await page.locator('[data-demo=lm]').getAttribute('data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=lm]');
  const { scores, sentences } = await page.evaluate(() => {
    const el = document.querySelector('[data-demo=lm]');
    return { scores: el.scores, sentences: el.sentences };
  });
  // the cased built-in sentences, split by the engine into the checkpoint's pieces
  assert.equal(sentences[0], 'I saw the whale in the sea.');
  for (const [i, s] of scores.entries()) {
    assert.equal(s.text, sentences[i], 'the pieces join into the sentence');
    assert.ok(!s.tokens.includes('<unk>'), `no <unk>: ${s.tokens.join(' ')}`);
    assert.ok(s.tokens[0].startsWith('\u2581'), `a piece starts the word: ${s.tokens[0]}`);
    assert.equal(s.tokens.at(-1), '</s>');
  }
  assert.match(await demo.locator('.lm-howto').textContent(), /subword pieces/);

  // the generator: prompt "The whale" in pieces, greedy words appended, shown as plain words
  const sel = '[data-demo=lm] .lm-sample';
  await page.waitForFunction((q) => document.querySelector(q)?.sampling, sel, { timeout: 30000 });
  assert.equal(await page.evaluate((q) => document.querySelector(q).sampling.text, sel), 'The whale');
  await demo.locator('[name=generate]').click();
  await page.waitForFunction(
    (q) => {
      const el = document.querySelector(q);
      return el.sampling?.ended || el.querySelectorAll('mark.lm-gen').length >= 10;
    },
    sel,
    { timeout: 30000 }
  );
  const s = await page.evaluate((q) => document.querySelector(q).sampling, sel);
  const shown = (await demo.locator('.lm-text').textContent()).replace(/\s*<\/s>$/, '').trim();
  assert.ok(!shown.includes('\u2581'), `no piece marks on the page: ${shown}`);
  assert.ok(s.text.startsWith('The whale'), s.text);
  if (!/<0x[0-9A-F]{2}>/.test(shown)) assert.equal(shown, s.text);
  assert.deepEqual(page.errors, []);
  await page.close();
});
