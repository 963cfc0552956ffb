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
  // No rulebook's rule numbers in the table pages' code: a table's quotes
  // come from the server, from its own rulebook (comments may cite, code may
  // not). The tournament pages cite NSW 15, the only rulebook with tournaments.
  for (const js of ['pit.js', 'table.js', 'common.js']) {
    const src = await page.evaluate(async (u) => (await fetch(u)).text(), `${BASE}/assets/${js}`);
    const code = src.replace(/\/\*[\s\S]*?\*\//g, '').split('\n').map((l) => l.replace(/(^|\s)\/\/.*$/, '')).join('\n');
    const cited = code.match(/\b(NSW|AU|EU) \d+(\.\d+)*/g) || [];
    expect(cited.length === 0, `${js} quotes rules itself: ${cited.join(', ')}`);
  }
  await shot(page, 'smoke');
});
