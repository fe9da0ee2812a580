// Opens the browser benchmark page (bench-app, served at BASE_URL) in Debian's
// headless Chromium and waits for its wasm: what every runner starts with.
import { chromium } from 'playwright-core';

export async function openBenchPage(base, extraArgs = []) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', ...extraArgs],
  });
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.benchReady === true);
  return { browser, page };
}
