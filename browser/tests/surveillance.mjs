// The exposure monitor (issue 50): at live table 5 (NSW, both Baccarat
// Pairs offered) the dealer deals a shoe stacked so that the pairs turn in
// the player's favour (two ranks gone: NSW 10.6-10.7 pay 11 to 1, and the
// pair's EV is 12·Σn(n−1)/(N(N−1)) − 1). The surveillance page (a new
// `surveillance` person) and the supervisor's pit both raise the alert, and
// the alert names the very card the closed form says turned it; before that
// card neither shows one. The dealer's own pit has no exposure panel.
import {
  ADMIN_PASSWORD, BASE, NARROW, WIDE, accessible, apiCall, apiLogin, expect, run, shot, tid,
} from '../lib.mjs';

const TABLE = 5;
const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];

/** 32 tens, 32 kings, then jacks: eight of each card, as eight decks hold. */
function stacked() {
  const cards = [];
  for (const r of ['10', 'K', 'J']) for (let i = 0; i < 32; i++) cards.push(`${r}${'SHDC'[i % 4]}`);
  return cards;
}

function pairPositive(unseen) {
  const n = unseen.reduce((a, b) => a + b, 0);
  return 12 * unseen.reduce((a, k) => a + k * (k - 1), 0) > n * (n - 1);
}

async function signIn(page, path, name, password) {
  await page.goto(`${BASE}${path}`);
  await page.fill(tid('login-name'), name);
  await page.fill(tid('login-password'), password);
  await page.click(tid('login-submit'));
}

await run('surveillance', async ({ newPage }) => {
  const admin = await apiLogin('admin', ADMIN_PASSWORD);
  await apiCall(admin, '/api/users', { name: 'eye', role: 'surveillance', password: 'eye-pass-1' });
  const errors = [];

  // Surveillance's page, signed in as the new person.
  const eye = await newPage({ viewport: WIDE });
  eye.on('pageerror', (e) => errors.push(e.message));
  await signIn(eye, '/surveillance', 'eye', 'eye-pass-1');
  await eye.waitForSelector(tid(`watch-table-${TABLE}`));
  expect((await eye.locator(tid('who-role')).innerText()).includes('Surveillance'), 'signed in as surveillance');

  // The supervisor's pit at table 5; the dealer's pit has no panel.
  const sup = await newPage({ viewport: WIDE });
  sup.on('pageerror', (e) => errors.push(e.message));
  await signIn(sup, '/pit', 'supervisor', 'demo');
  await sup.click(tid(`table-option-${TABLE}`));
  const dealerPage = await newPage({ viewport: WIDE });
  await signIn(dealerPage, '/pit', 'dealer', 'demo');
  await dealerPage.click(tid(`table-option-${TABLE}`));
  await dealerPage.waitForSelector(`${tid('table-title')}:has-text("Live pit")`);
  expect(await dealerPage.locator(tid('exposure-panel')).isHidden(), 'a dealer is not shown the exposure');

  const dealer = await apiLogin('dealer');
  const cmd = (c) => apiCall(dealer, `/api/tables/${TABLE}/commands`, c);
  await cmd({ command: 'start_shoe', source: { live: { decks: 8 } }, cut: null, burn: null, show_burn: false });
  await sup.waitForSelector(`${tid('exposure-panel')}:not([hidden])`);
  await sup.waitForSelector(tid('exposure-player_pair'));
  expect(await eye.locator(tid('alert')).count() === 0, 'no alert at a full shoe');
  await shot(eye, 'surveillance-full-shoe-1280');

  const unseen = Array(13).fill(32);
  const cards = stacked();
  let turned = null;
  while (!turned) {
    await cmd({ command: 'open_betting', no_bet: false });
    await cmd({ command: 'close_betting' });
    for (;;) {
      const t = await apiCall(dealer, `/api/tables/${TABLE}`);
      if (t.due === null) break;
      const card = cards.shift();
      await cmd({ command: 'card_in', card, to: null, face_up: true });
      unseen[RANKS.indexOf(card.slice(0, -1))] -= 1;
      if (pairPositive(unseen)) { turned = card; break; }
    }
    expect(cards.length > 0, 'the stacked shoe turns the pairs');
  }

  // Both pages raise it; the alert names the card that turned it.
  const alert = `${tid('alert')}[data-bet="player_pair"]`;
  await eye.waitForSelector(alert, { timeout: 15000 });
  const named = await eye.locator(alert).getAttribute('data-cards');
  expect(named === turned, `the alert names ${turned}, the card that turned the pair (it named ${named})`);
  expect(await eye.locator(`${tid('alert')}[data-bet="banker_pair"]`).count() === 1, 'the Banker pair too');
  await eye.waitForSelector(`${tid(`watch-table-${TABLE}`)}[data-alert="true"] ${tid('offer')}[data-bet="player_pair"][data-alert="true"]`);
  await sup.waitForSelector(`${tid('exposure-player_pair')}[data-alert="true"]`, { timeout: 15000 });
  expect(await sup.locator(`${tid('exposure-banker')}[data-alert="true"]`).count() === 0, 'the Banker wager stays the house\'s');
  const panel = await sup.locator(tid('exposure-panel')).innerText();
  expect(!/null|undefined|NaN/.test(panel), `the pit's panel writes no placeholder: ${panel}`);

  await accessible(eye, 'surveillance page with an alert');
  await shot(eye, 'surveillance-alert-1280');
  await accessible(sup, 'pit with the exposure panel');
  await shot(sup, 'pit-exposure-alert-1280');
  await eye.setViewportSize(NARROW);
  await eye.waitForTimeout(150);
  await accessible(eye, 'surveillance page on a phone');
  await shot(eye, 'surveillance-alert-390');

  // A player is refused the page's data, in words.
  const player = await newPage({ viewport: WIDE });
  await signIn(player, '/surveillance', 'player1', 'demo');
  await player.waitForSelector(`${tid('login-error')}:not(:empty)`);
  expect(errors.length === 0, `no page errors: ${errors.join('; ')}`);
});
