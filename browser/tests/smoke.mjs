// Smoke: Chromium starts, reaches the server and renders its OpenAPI document.
import { BASE, expect, run, shot } from '../lib.mjs';

await run('smoke', async ({ newPage }) => {
  const page = await newPage({ viewport: { width: 1000, height: 700 } });
  const response = await page.goto(`${BASE}/api/openapi.json`);
  expect(response && response.ok(), `GET /api/openapi.json: HTTP ${response && response.status()}`);
  const text = await page.locator('body').innerText();
  expect(text.includes('"openapi"'), `the page shows the OpenAPI document, not: ${text.slice(0, 200)}`);
  // Every page has an icon of its own (not the browser's blank one).
  for (const path of ['/', '/pit', '/leaderboard', '/tournament']) {
    const r = await page.goto(`${BASE}${path}`);
    expect(r && r.ok(), `GET ${path}: HTTP ${r && r.status()}`);
    const icon = await page.evaluate(() => document.querySelector('link[rel=icon]')?.getAttribute('href') || '');
    expect(icon.startsWith('data:image/svg+xml,'), `${path} has an icon: ${icon.slice(0, 40)}`);
  }
  await shot(page, 'smoke');
});
