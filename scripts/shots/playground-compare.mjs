// Screenshots of the playground comparing two runs (docs/screenshots/playground-compare-*.png):
// a run trained to its end and kept on the chart, the learning rate changed, and a second run
// trained beside it, at 1280 px in English and 375 px in Korean. Needs dist/ (npm run build).
//   node scripts/shots/playground-compare.mjs
import path from 'node:path';
import { launch, root, startServer } from '../../tests/browser/harness.mjs';

const out = path.join(root, 'docs', 'screenshots');
const server = await startServer();
const browser = await launch();
try {
  for (const [width, lang] of [
    [1280, 'en'],
    [375, 'ko'],
  ]) {
    const hash = 'playground?playground.task=reverse&playground.steps=300&playground.lr=0.01';
    const page = await browser.newPage({ width, height: 900 });
    await page.goto(`${server.url}?lang=${lang}#${hash}`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.locator('[data-demo=playground]').scrollIntoViewIfNeeded();
    await page.waitForSelector('[data-demo=playground][data-ready="1"]', { timeout: 60000 });
    const demo = page.locator('[data-demo=playground]');
    await demo.scrollIntoViewIfNeeded();
    const done = () => page.waitForSelector('[data-demo=playground] .run[data-state=done]', { timeout: 300000 });
    await demo.locator('[name=run-toggle]').click();
    await done();
    await demo.locator('[name=keep-run]').click();
    await demo.locator('select[name=lr]').selectOption('0.003');
    await demo.locator('[name=run-toggle]').click();
    await done();
    const labels = await page.evaluate(
      () => document.querySelector('[data-demo=playground] .chart-host').chartData.labels.length
    );
    if (labels !== 4) throw new Error(`expected the chart to hold two runs (4 curves), found ${labels}`);
    if (page.errors.length) throw new Error(`page errors: ${page.errors.join('; ')}`);
    const file = path.join(out, `playground-compare-${width}-${lang}.png`);
    await demo.screenshot({ path: file });
    console.log(`wrote ${path.relative(root, file)}`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
