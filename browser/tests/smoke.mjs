// Smoke: Chromium starts, reaches the server and renders its OpenAPI document.
import { createHash } from 'node:crypto';
import { BASE, accessible, expect, run, shot } from '../lib.mjs';

await run('smoke', async ({ newPage }) => {
  const page = await newPage({ viewport: { width: 1000, height: 700 } });
  const response = await page.goto(`${BASE}/api/openapi.json`);
  expect(response && response.ok(), `GET /api/openapi.json: HTTP ${response && response.status()}`);
  const text = await page.locator('body').innerText();
  expect(text.includes('"openapi"'), `the page shows the OpenAPI document, not: ${text.slice(0, 200)}`);
  // Every page has an icon of its own (not the browser's blank one).
  for (const path of ['/', '/pit', '/leaderboard', '/tournament', '/fair', '/help']) {
    const r = await page.goto(`${BASE}${path}`);
    expect(r && r.ok(), `GET ${path}: HTTP ${r && r.status()}`);
    const icon = await page.evaluate(() => document.querySelector('link[rel=icon]')?.getAttribute('href') || '');
    expect(icon.startsWith('data:image/svg+xml,'), `${path} has an icon: ${icon.slice(0, 40)}`);
  }
  // No rulebook's rule numbers in the table pages' code: a table's quotes
  // come from the server, from its own rulebook (comments may cite, code may
  // not). The tournament pages cite NSW 15, the only rulebook with tournaments.
  for (const js of ['pit.js', 'pit-base.js', 'pit-words.js', 'pit-cards.js', 'pit-dialogs.js', 'pit-recall.js', 'table.js', 'common.js', 'fair.js', 'help.js', 'sound.js', 'limits.js', 'i18n.js']) {
    const src = await page.evaluate(async (u) => (await fetch(u)).text(), `${BASE}/assets/${js}`);
    const code = src.replace(/\/\*[\s\S]*?\*\//g, '').split('\n').map((l) => l.replace(/(^|\s)\/\/.*$/, '')).join('\n');
    const cited = code.match(/\b(NSW|AU|EU) \d+(\.\d+)*/g) || [];
    expect(cited.length === 0, `${js} quotes rules itself: ${cited.join(', ')}`);
  }
  await page.goto(`${BASE}/`);
  await page.getByTestId('login-name').waitFor();
  await accessible(page, 'the sign-in page');
  // The check can fail: an image without a text alternative is found.
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<img src="data:," data-testid="no-alt">'));
  let caught = '';
  try { await accessible(page, 'a page with an image without alt'); } catch (e) { caught = e.message; }
  expect(caught.includes('image-alt'), `axe-core finds an image without alt: ${caught || 'nothing found'}`);
  await page.reload();
  await shot(page, 'smoke');

  // The provably-fair page: a finished shoe's seed is checked against its
  // commitment in the browser (SHA-256), a forged one is named, the shoe in
  // play keeps its seed secret, and each finished shoe has the command that
  // deals it again. The server's list is replaced here by one with known
  // seeds (a real shoe takes minutes to finish).
  const seed = 'a1'.repeat(32);
  const forged = 'b2'.repeat(32);
  const sha = (hex) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
  const shoes = [
    { shoe: 1, commitment: sha(seed), seed, cut: { at: 120, from_back: 16 } },
    { shoe: 2, commitment: sha(seed), seed: forged, cut: { at: 90, from_back: 16 } },
    { shoe: 3, commitment: sha('c3'.repeat(32)), seed: null, cut: { at: 100, from_back: 16 } },
  ];
  await page.route('**/api/tables/1/shoes', (route) => route.fulfill({
    contentType: 'application/json', body: JSON.stringify({ table: 1, algorithm: 'fisher-yates-chacha20-v1', shoes }),
  }));
  await page.goto(`${BASE}/fair?table=1`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  const check = (n) => page.getByTestId(`fair-shoe-${n}`).getAttribute('data-check');
  expect(await check(1) === 'match', `a published seed matching its commitment: ${await check(1)}`);
  expect(await check(2) === 'mismatch', `a seed that is not the committed one is named: ${await check(2)}`);
  expect(await check(3) === 'pending', `the shoe in play keeps its seed: ${await check(3)}`);
  const cmd = await page.getByTestId('fair-command-1').innerText();
  expect(cmd === `baccarat shoe --seed ${seed} --decks 8 --cut-at 120 --cutting-card 16 --commitment ${sha(seed)}`, `the command: ${cmd}`);
  expect((await page.getByTestId('fair-algorithm').innerText()) === 'fisher-yates-chacha20-v1', 'the algorithm is named');
  const order = await page.locator('[data-testid^=fair-shoe-]').evaluateAll((rows) => rows.map((r) => r.dataset.testid));
  expect(order.join() === 'fair-shoe-3,fair-shoe-2,fair-shoe-1', `the newest shoe first: ${order}`);
  await shot(page, 'fair');
  await accessible(page, 'the provably-fair page');
  await page.unroute('**/api/tables/1/shoes');
  // A table's rules and odds: every wager offered, with its house edge as
  // the server computed it, and the rulebook's rules with their citations.
  await page.goto(`${BASE}/help?table=1`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  const help = await page.evaluate(async () => (await fetch('/api/tables/1/help')).json());
  for (const o of help.offers) {
    const row = page.getByTestId(`help-${o.bet}`);
    expect(await row.count() === 1, `the help lists ${o.bet}`);
    expect((await row.getAttribute('data-edge')) === (o.house_edge || ''), `${o.bet}'s house edge is shown as computed`);
  }
  expect((await page.getByTestId('help-banker').innerText()).includes('1.0579%'), 'the Banker wager\'s house edge is shown');
  const rules = await page.getByTestId('help-rules').innerText();
  expect(help.rules.length > 0 && rules.includes(help.rules[0].cite), `the rules are quoted with their citations: ${rules.slice(0, 120)}`);
  // One wording of each pay table (issue 49): the spot's, glossed where the
  // rulebook prints 19 to 20, and the rounding rule with its citation.
  expect((await page.getByTestId('help-banker').innerText()).includes('19:20 (1:1 less 5%)'), 'NSW prints 19 to 20, glossed');
  const nswRounding = await page.getByTestId('help-settlement').innerText();
  expect(nswRounding.includes('paid up to the next chip') && nswRounding.includes('NSW 5.8'), `NSW 5.8 explained: ${nswRounding}`);
  await accessible(page, 'the help page');
  await shot(page, 'help');
  await page.goto(`${BASE}/help?table=2`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  const auBanker = await page.getByTestId('help-banker').innerText();
  expect(auBanker.includes('1:1 less 5%') && !auBanker.includes('19:20'), `AU prints 1 to 1 less commission: ${auBanker}`);
  const auRounding = await page.getByTestId('help-settlement').innerText();
  expect(auRounding.includes('is not accepted') && auRounding.includes('AU 5.12'), `AU 5.12 explained: ${auRounding}`);
  await page.goto(`${BASE}/fair?table=99`);
  await page.waitForFunction(() => document.querySelector('[data-testid=fair-table]').textContent !== '');
  expect((await page.getByTestId('fair-table').innerText()).includes('no table 99'), 'a missing table is named');
});
