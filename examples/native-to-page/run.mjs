// The walkthrough of README.md at toy size: train a Transformer natively with `attn`, measure
// it natively, export it in float16 for the web, then open the page (dist/, served on
// loopback) in headless Chromium and import the file into its playground widget, which
// measures it again in the browser's engine.
//   npm run build && node examples/native-to-page/run.mjs [--steps 400] [--out build/native-to-page] [--attn build/native/attn]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const steps = arg('steps', '400');
const out = path.resolve(arg('out', path.join(root, 'build', 'native-to-page')));
const attn = path.resolve(arg('attn', path.join(root, 'build', 'native', 'attn')));
for (const [f, how] of [
  [attn, 'npm run build:engine'],
  [path.join(root, 'dist', 'examples', 'native-to-page', 'index.html'), 'npm run build'],
])
  if (!existsSync(f)) {
    console.error(`${f} is missing: run ${how} first`);
    process.exit(1);
  }
mkdirSync(out, { recursive: true });

const say = (cmd) => console.log(`\n$ ${cmd.map((a) => (/[\s{"]/.test(a) ? `'${a}'` : a)).join(' ')}`);
function sh(args, { show = true } = {}) {
  say([path.relative(process.cwd(), attn) || attn, ...args]);
  const text = execFileSync(attn, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (show && text.trim()) console.log(text.trim());
  return text;
}

// 1. Train natively. The task options are those of the page's playground (reverse, 3-10
//    symbols out of 10), so the page measures the model on the task it learned.
const task = ['--task', 'reverse', '--task-options', '{"min_len":3,"max_len":10,"symbols":10}'];
const ckpt = path.join(out, 'reverse.safetensors');
sh([
  'train',
  '--model',
  'transformer',
  ...task,
  '--d-model',
  '32',
  '--heads',
  '4',
  '--d-ff',
  '64',
  '--layers',
  '2',
  '--dropout',
  '0',
  '--schedule',
  'constant',
  '--lr',
  '0.003',
  '--batch',
  '64',
  '--steps',
  steps,
  '--seed',
  '1',
  '--threads',
  '1',
  '--out',
  ckpt,
]);
// 2. Measure it natively.
const native = JSON.parse(sh(['eval', '--checkpoint', ckpt, ...task, '--samples', '200']));
// 3. Export for the web: float16 values, no optimizer state (about half the bytes).
const web = path.join(out, 'reverse-f16.safetensors');
sh(['export', '--checkpoint', ckpt, '--half', '--out', web]);

const bytes = readFileSync(web);
console.log(
  `\n${path.basename(web)}: ${bytes.length} bytes; native held-out exact ${(100 * native.sequence_accuracy).toFixed(1)}%`
);

// 4. The page: the playground widget imports the file, as a reader's file picker would.
const { preview } = await import('vite');
const { chromium } = await import('playwright-core');
const server = await preview({
  configFile: path.join(root, 'vite.config.js'),
  logLevel: 'silent',
  preview: { port: 0, host: '127.0.0.1', strictPort: false },
});
const url = `${server.resolvedUrls.local[0]}examples/native-to-page/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
let code = 0;
try {
  const page = await browser.newPage();
  console.log(`\nopening ${url} and importing ${path.basename(web)} into the playground`);
  await page.goto(url);
  await page.waitForSelector('#playground[data-ready="1"]', { timeout: 60000 });
  await page.setInputFiles('#playground input[name=import]', web);
  await page.waitForFunction(
    () =>
      document.querySelector('#playground').imported ||
      /error/i.test(document.querySelector('#playground output[name=io]').textContent),
    null,
    { timeout: 60000 }
  );
  const shown = await page.textContent('#playground output[name=io]');
  const imported = await page.evaluate(() => {
    const { info, metrics } = document.querySelector('#playground').imported ?? {};
    return info
      ? { params: info.params, model: info.model, step: info.step, sequenceAccuracy: metrics.sequenceAccuracy }
      : null;
  });
  console.log(`page: ${shown}`);
  if (!imported) throw new Error('the page did not import the checkpoint');
  console.log(
    `page: a ${imported.model} at step ${imported.step} with ${imported.params} parameters, held-out exact ${(100 * imported.sequenceAccuracy).toFixed(1)}%`
  );
} catch (e) {
  console.error(`native-to-page: ${e.message}`);
  code = 1;
} finally {
  await browser.close();
  await new Promise((r) => server.httpServer.close(r));
}
process.exit(code);
