// Smaller defects of the guide's fourth edition, each as a reader meets it: §4's score notes set
// their formulas with KaTeX, and Luong's learned scores say what to expect of their alignment
// error rate and why; the race demos (§3, §8, §10) name each loss in their status line; §10's
// pace note does not count down "0 s" after the run; §7's step slider sits beside its label at
// 375 px; controls are at least 24 px at 1280 px; a widget says where it trains, and one on a
// page without `lang` follows the browser's language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unavailable } from '../unavailable.mjs';
import { root, openDemo, usePage } from './harness.mjs';

const index = JSON.parse(readFileSync(path.join(root, 'web', 'public', 'models', 'index.json'), 'utf8'));

const { server, browser } = usePage();

const open = (name, opts) => openDemo(browser, server, name, opts);

test('§4: the score notes are typeset with KaTeX; general and concat say what to expect and why', async (t) => {
  for (const lang of ['en', 'ko']) {
    const page = await open('bahdanau', { lang });
    if (page.pending) {
      await page.close();
      return unavailable(t, 'engine build without model sessions');
    }
    const demo = page.locator('[data-demo=bahdanau]');
    const note = demo.locator('[name=score-note]');
    const expect = demo.locator('[name=score-expect]');
    for (const score of ['additive', 'dot', 'general', 'concat']) {
      await demo.locator('select[name=score]').selectOption(score);
      assert.ok((await note.locator('.katex').count()) >= 1, `${lang} ${score}: formulas set by KaTeX`);
      // no raw TeX left in the prose around the formulas
      const prose = await note.evaluate((n) =>
        [...n.childNodes]
          .filter((c) => c.nodeType === 3)
          .map((c) => c.textContent)
          .join('')
      );
      assert.doesNotMatch(prose, /[_^{}\\$]/, `${lang} ${score}: ${prose}`);
      const learned = score === 'general' || score === 'concat';
      assert.equal(await expect.isVisible(), learned, `${lang} ${score}: the expectation note`);
      if (learned) {
        const text = await expect.textContent();
        assert.match(text, /0\.17–0\.19/);
        assert.match(text, lang === 'en' ? /What to expect/ : /이렇게 보일 겁니다/);
      }
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

// Starts a demo, waits until its status line names the losses, pauses it; -> the status text.
async function statusAfterAChunk(page, name) {
  const demo = page.locator(`[data-demo=${name}]`);
  await demo.locator('[name=run-toggle]').click();
  await page.waitForFunction(
    (n) => {
      const s = document.querySelector(`[data-demo=${n}] .run-status`).textContent;
      return /loss .*\d/.test(s) && !/loss —/.test(s);
    },
    name,
    { timeout: 90000 }
  );
  // pause it, unless it has already finished (a short run on a slow machine may: the button is
  // then disabled, and the status line still names the losses); checked and clicked in one go
  await demo.locator('[name=run-toggle]').evaluate((b) => {
    if (!b.disabled) b.click();
  });
  return demo.locator('.run-status').textContent();
}

test('§3, §8, §10: each race names the model whose loss its status line gives', async (t) => {
  const cases = [
    ['reverse', 'reverse.steps=100', ['(copy)', 'input reversed']],
    ['multihead', 'multihead.steps=100', ['h = 1']],
    ['order', 'order.steps=20', ['drawn', 'reversed', 'ascending']],
  ];
  for (const [name, hash, names] of cases) {
    const page = await open(name, { hash });
    if (page.pending) {
      await page.close();
      return unavailable(t, 'engine build without model sessions');
    }
    const status = await statusAfterAChunk(page, name);
    for (const n of names)
      assert.match(status, new RegExp(n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'), `${name}: ${status}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('§10: after the pointer network has trained, its pace note gives no time to go', async (t) => {
  const page = await open('pointer', { hash: 'pointer.start=fresh&pointer.steps=50' });
  if (page.pending) {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  const demo = page.locator('[data-demo=pointer]');
  await demo.locator('[name=run-toggle]').click();
  await page.waitForSelector('[data-demo=pointer] .run[data-state=done]', { timeout: 90000 });
  const pace = await demo.locator('.pointer-pace').textContent();
  assert.match(pace, /^On this machine 25 steps took [\d.]+ s\.$/);
  assert.doesNotMatch(pace, /to go/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("§7 at 375 px: the decoding-step slider sits on its label's line", async (t) => {
  if (!index['translate-de-en']) return unavailable(t, 'no translator model in this build');
  for (const lang of ['en', 'ko']) {
    const page = await open('translate', { lang, width: 375 });
    const demo = page.locator('[data-demo=translate]');
    await demo.locator('button[name=open]').click();
    await page.waitForFunction(() => document.querySelector('[data-demo=translate]').translation, null, {
      timeout: 120000,
    });
    const label = await demo.locator('label:has(input[name=step]) > span').boundingBox();
    const slider = await demo.locator('input[name=step]').boundingBox();
    const mid = (b) => b.y + b.height / 2;
    assert.ok(Math.abs(mid(label) - mid(slider)) < 16, `${lang}: label at ${mid(label)}, slider at ${mid(slider)}`);
    assert.ok(slider.x - (label.x + label.width) < 24, `${lang}: ${slider.x - label.x - label.width} px apart`);
    assert.ok(slider.x + slider.width <= 375, `${lang}: the slider ends at ${slider.x + slider.width}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('controls at 1280 px: selects, PNG/CSV buttons and checkboxes are at least 24 px', async (t) => {
  for (const [name, picks] of [
    ['playground', ['select', '.export-bar button']],
    ['sdpa', ['input[type=checkbox]']],
    ['bahdanau', ['select', '.export-bar button']],
  ]) {
    const page = await open(name);
    if (page.pending) {
      await page.close();
      return unavailable(t, 'engine build without model sessions');
    }
    for (const sel of picks) {
      const small = await page.locator(`[data-demo=${name}]`).evaluate(
        (el, s) =>
          [...el.querySelectorAll(s)]
            .filter((n) => n.offsetParent !== null)
            .map((n) => ({ n: n.name || n.textContent || n.outerHTML.slice(0, 40), r: n.getBoundingClientRect() }))
            .filter(({ r }) => r.width < 24 || r.height < 24)
            .map(({ n, r }) => `${n} ${r.width.toFixed(0)}×${r.height.toFixed(0)}`),
        sel
      );
      assert.ok(
        (await page.locator(`[data-demo=${name}] ${sel}`).count()) > 0,
        `${name} has ${sel} (the check is not empty)`
      );
      assert.deepEqual(small, [], `${name} ${sel}`);
    }
    await page.close();
  }
});

// A host page of the widget script (dist/examples/embed), emptied: the widgets a test adds.
async function hostPage(init = null) {
  const page = await browser.newPage({ width: 900, height: 900 });
  if (init) await page.addInitScript(init);
  await page.goto(`${server.url}examples/embed/index.html`);
  await page.waitForFunction(() => customElements.get('attnlab-demo'));
  await page.evaluate(() => {
    document.documentElement.removeAttribute('lang');
    document.body.replaceChildren();
  });
  return page;
}
async function addWidget(page, attrs) {
  await page.evaluate((a) => {
    const w = document.createElement('attnlab-demo');
    for (const [k, v] of Object.entries(a)) w.setAttribute(k, v);
    w.id = 'w';
    document.body.append(w);
  }, attrs);
  await page.waitForFunction(() => document.getElementById('w').dataset.ready === '1', null, { timeout: 30000 });
}

test("widgets: without any lang a widget speaks the browser's language (ko → Korean, else English)", async () => {
  const en = await hostPage();
  assert.match(await en.evaluate(() => navigator.language), /^en/);
  await addWidget(en, { name: 'sdpa' });
  assert.equal(await en.getAttribute('#w', 'data-lang'), 'en');
  assert.doesNotMatch(await en.textContent('#w'), /[가-힣]/);
  await en.close();
  const ko = await hostPage(() => Object.defineProperty(Navigator.prototype, 'language', { get: () => 'ko-KR' }));
  await addWidget(ko, { name: 'sdpa' });
  assert.equal(await ko.getAttribute('#w', 'data-lang'), 'ko');
  assert.match(await ko.textContent('#w'), /[가-힣]/);
  await ko.close();
});

test('widgets: backend="webgpu" says in a visible line where the widget trains', async (t) => {
  const page = await hostPage();
  await addWidget(page, { name: 'reverse', backend: 'webgpu', lang: 'en', steps: '100' });
  if ((await page.getAttribute('#w', 'data-pending')) === '1') {
    await page.close();
    return unavailable(t, 'engine build without model sessions');
  }
  await page.evaluate(() => document.getElementById('w').start());
  await page.waitForFunction(() => document.getElementById('w').dataset.backend, null, { timeout: 60000 });
  const line = page.locator('#w > .widget-backend');
  assert.ok(await line.isVisible());
  // this browser has no WebGPU adapter: the line says WebAssembly; with one it names the GPU
  const backend = await page.getAttribute('#w', 'data-backend');
  assert.match(
    await line.textContent(),
    backend === 'webgpu' ? /^Trains on (the GPU|WebGPU in a software renderer)/ : /^Trains in WebAssembly on the CPU\.$/
  );
  await page.close();
});
