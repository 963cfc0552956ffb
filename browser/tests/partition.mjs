// A partition's tables through another partition's server: the player's
// page opened at west's server under east's path (`/p/east/`) signs in,
// shows the player's money at the casino's bank beside east's wallet, and
// bets at east's table 1, every API call and the feed under that path.
// BASE_URL is `http://west/p/east`.

import { BASE, DESK, accessible, expect, run, shot, untilBetting } from '../lib.mjs';

const PREFIX = new URL(BASE).pathname; // /p/east

const minor = async (page, id) => Number(await page.getByTestId(id).getAttribute('data-minor'));

await run('partition', async ({ newPage }) => {
  const page = await newPage({ viewport: DESK });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const outside = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    // (The pages' assets are the same at every server: they come from the root.)
    if (u.pathname.includes('/api/') && !u.pathname.startsWith(`${PREFIX}/`)) outside.push(u.pathname);
  });

  await page.goto(`${BASE}/`);
  await page.getByTestId('login-name').fill('player1');
  await page.getByTestId('login-password').fill('demo');
  await page.getByTestId('login-password').press('Enter');
  await page.getByTestId('lobby-table-1').waitFor();
  // The demo player's chips are at the bank; nothing is at east yet.
  await page.waitForFunction(() => !document.querySelector('#bank-box').hidden && document.querySelector('[data-testid=bank]').dataset.minor !== '');
  const bank = await minor(page, 'bank');
  expect(bank === 1_000_000 && (await minor(page, 'balance')) === 0, `the bank holds the chips, east nothing: bank ${bank}`);
  await accessible(page, 'the lobby at a partition');

  await page.getByTestId('join-1').click();
  await page.getByTestId('spot-player').waitFor();
  await untilBetting(page, 5000, 60000);
  await page.getByTestId('chip-1000').click();
  await page.getByTestId('spot-player').click();
  await page.getByTestId('confirm').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=spot-player-placed]').dataset.minor === '1000', null, { timeout: 10000 });
  // Brought from the bank for the bet: what is at the bank and what is at
  // east (the stake held there included) still make the player's chips.
  await page.reload();
  await page.getByTestId('spot-player').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=bank]').dataset.minor !== '1000000');
  const [b, w] = [await minor(page, 'bank'), await minor(page, 'balance')];
  expect(w >= 1000 && b + w === 1_000_000, `bank ${b} and east's wallet ${w} add up to the chips`);
  // The feed comes through west too: the coup goes on on the page.
  await page.waitForFunction(() => document.querySelector('[data-testid=table]').dataset.phase !== 'betting', null, { timeout: 60000 });
  await shot(page, 'partition-table');
  await accessible(page, 'the table at a partition');

  expect(outside.length === 0, `every call under ${PREFIX}/: ${[...new Set(outside)].join(', ')}`);
  expect(errors.length === 0, `no page errors: ${errors.join('; ')}`);
});
