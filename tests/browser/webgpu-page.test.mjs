// The page and a widget on the WebGPU backend (web/gpu/choose.js, web/gpu/backend.js), in
// headless Chromium with WebGPU on SwiftShader: with WebGPU chosen in the engine line's menu the
// playground's Transformer trains on the GPU and the line names the adapter; when the device is
// lost mid-run the run goes on in WebAssembly from its last read-back state (no earlier) and its
// model reaches the run's last step, and the line says so; with "auto" each model is timed on both and (SwiftShader being a
// CPU implementation of Vulkan) WebAssembly wins, with both times shown; a widget with
// backend="webgpu" trains on the GPU and says so in data-backend.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from './harness.mjs';
import { GPU_ARGS } from './webgpu-harness.mjs';

let server, context, dir;
before(async () => {
  server = await startServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'attnlab-webgpu-page-'));
  context = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: GPU_ARGS,
  });
});
after(async () => {
  await context?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(choice, hash) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.addInitScript((c) => {
    localStorage.setItem('attnlab:backend', c);
    indexedDB.deleteDatabase('attnlab');
  }, choice);
  await page.goto(`${server.url}?lang=en#${hash}`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.locator('[data-demo=playground]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 60000 });
  return page;
}

const stepOf = (page) =>
  page.evaluate(() => Number(document.querySelector('[data-demo=playground] .run progress').value));

test('WebGPU chosen: the playground trains on the GPU; a lost device falls back to wasm and the run finishes', async () => {
  const page = await open(
    'webgpu',
    'playground.model=transformer&playground.task=reverse&playground.size=small&playground.steps=60'
  );
  assert.equal(await page.locator('#engine-backend').inputValue(), 'webgpu');
  // the step of the last state the run read back from the GPU, as the Worker reports it
  await page.evaluate(async () => {
    window.readBack = null;
    const client = await window.attnlab.engine();
    client.on('progress', (p) => {
      if (p.readBack !== undefined) window.readBack = p.readBack;
    });
    client.on('engine', (e) => {
      if (e.reason === 'lost') window.lostSession = e.session;
    });
  });
  await page.locator('[data-demo=playground] [name=run-toggle]').click();
  await page.waitForSelector('#engine-gpu[data-backend=webgpu]', { timeout: 60000 });
  assert.match(await page.locator('#engine-gpu').textContent(), /WebGPU · .*swiftshader/i);
  // SwiftShader computes WebGPU on the CPU: the line calls it a software renderer, not the GPU
  assert.match(await page.locator('#engine-gpu').textContent(), /^— training on WebGPU in a software renderer/);
  await page.waitForFunction(
    () => Number(document.querySelector('[data-demo=playground] .run progress').value) >= 15,
    null,
    { timeout: 120000 }
  );
  // the GEMM kernel chosen for the adapter after the first chunk, named on the engine line
  await page.waitForFunction(
    () =>
      /WebGPU · .* · GEMM kernel: (registers|tiled)(, split-K)?$/.test(
        document.getElementById('engine-gpu').textContent
      ),
    null,
    { timeout: 60000 }
  );
  // the run has been read back (every 2 s) at step 15 or later: lose the device under it
  await page.waitForFunction(() => window.readBack >= 15, null, { timeout: 60000 });
  const lostAt = await stepOf(page);
  const [readBack, lost] = await page.evaluate(async () => {
    const seen = window.readBack; // before the loss: the fall back can only start at or after it
    return [seen, await (await window.attnlab.engine()).loseGpu()];
  });
  assert.equal(lost, true);
  assert.ok(readBack >= 15, `the last read-back step before the loss: ${readBack}`);
  await page.waitForSelector('#engine-gpu[data-reason=lost]', { timeout: 60000 });
  assert.match(
    await page.locator('#engine-gpu').textContent(),
    /GPU was lost; training went on on the CPU from step \d+/
  );
  const from = Number((await page.locator('#engine-gpu').textContent()).match(/from step (\d+)/)[1]);
  // from the last state read back, not from an earlier one (nor from the start)
  assert.ok(
    from >= readBack && from <= lostAt + 60,
    `went on from step ${from} (read back ${readBack}, lost at ${lostAt})`
  );
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 120000 });
  assert.equal(await stepOf(page), 60);
  // and the model took its 60 steps: the steps lost with the device were taken again
  const model = await page.evaluate(async () => {
    const client = await window.attnlab.engine();
    return (await client.sessions.get(window.lostSession).call('info')).step;
  });
  assert.equal(model, 60);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('auto: each model is timed on both backends; on SwiftShader WebAssembly wins, both times shown', async () => {
  const page = await open(
    'auto',
    'playground.model=transformer&playground.task=reverse&playground.size=small&playground.steps=50'
  );
  await page.locator('[data-demo=playground] [name=run-toggle]').click();
  await page.waitForSelector('#engine-gpu[data-backend]', { timeout: 120000 });
  const text = await page.locator('#engine-gpu').textContent();
  const backend = await page.locator('#engine-gpu').getAttribute('data-backend');
  if (backend === 'wasm') assert.match(text, /WebGPU timed slower here \([\d.]+ ms a step, CPU [\d.]+ ms\)/);
  else assert.match(text, /WebGPU · /);
  await page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 120000 });
  assert.equal(await stepOf(page), 50);
  // the menu changes what the next model gets
  await page.locator('#engine-backend').selectOption('wasm');
  assert.equal(await page.evaluate(() => localStorage.getItem('attnlab:backend')), 'wasm');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a widget with backend="webgpu" trains on the GPU', async () => {
  const page = await context.newPage();
  await page.addInitScript(() => indexedDB.deleteDatabase('attnlab')); // no run of the tests above
  await page.goto(`${server.url}examples/embed/index.html`);
  await page.evaluate(() => {
    const el = document.createElement('attnlab-demo');
    el.setAttribute('name', 'playground');
    el.setAttribute('backend', 'webgpu');
    el.setAttribute('lang', 'en');
    el.setAttribute('steps', '50');
    el.setAttribute('size', 'small');
    el.id = 'gpu-widget';
    document.body.append(el);
  });
  await page.waitForSelector('#gpu-widget[data-ready="1"]', { timeout: 60000 });
  await page.locator('#gpu-widget [name=run-toggle]').click();
  await page.waitForSelector('#gpu-widget[data-backend=webgpu]', { timeout: 60000 });
  await page.waitForFunction(() => Number(document.querySelector('#gpu-widget .run progress')?.value) >= 3, null, {
    timeout: 120000,
  });
  await page.close();
});
