// The exposure monitor (issue 50): at live table 5 (NSW, both Baccarat
// Pairs offered) the dealer deals a shoe stacked so that the pairs turn in
// the player's favour (two ranks gone: NSW 10.6-10.7 pay 11 to 1, and the
// pair's EV is 12·Σn(n−1)/(N(N−1)) − 1). The surveillance page (a new
// `surveillance` person) and the supervisor's pit both raise the alert, and
// the alert names the very card the closed form says turned it; before that
// card neither shows one. The dealer's own pit has no exposure panel.
// Meanwhile a counter (player1) stakes the Player Pair only while it is
// positive and a flat bettor (player2) at every coup: the surveillance
// page's "who is taking it" lists the counter's pairs as all placed while
// positive, and the supervisor's pit rates both (issue 50, parts 4-5).
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
  const [counter, flat] = [await apiLogin('player1'), await apiLogin('player2')];
  let turned = null;
  let coup = 0;
  let counted = 0;
  // Until the pair has turned, and three coups more.
  while (!turned || counted < 3) {
    coup += 1;
    await cmd({ command: 'open_betting', no_bet: false });
    const positive = pairPositive(unseen);
    counted += positive ? 1 : 0;
    const mine = [{ bet: 'banker', amount: 1000 }, ...(positive ? [{ bet: 'player_pair', amount: 5000 }] : [])];
    await apiCall(counter, `/api/tables/${TABLE}/wagers`, { wagers: mine, key: `count-${coup}` });
    await apiCall(flat, `/api/tables/${TABLE}/wagers`, { wagers: [{ bet: 'player_pair', amount: 1000 }], key: `flat-${coup}` });
    await cmd({ command: 'close_betting' });
    for (;;) {
      const t = await apiCall(dealer, `/api/tables/${TABLE}`);
      if (t.due === null) break;
      const card = cards.shift();
      await cmd({ command: 'card_in', card, to: null, face_up: true });
      unseen[RANKS.indexOf(card.slice(0, -1))] -= 1;
      if (!turned && pairPositive(unseen)) turned = card;
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

  // Who is taking it: the counter's pairs were all placed while positive.
  await eye.click(tid('taking-refresh'));
  const [p1] = [(await apiCall(counter, '/api/me')).user];
  const line = tid(`taking-${p1}-${TABLE}-player_pair`);
  await eye.waitForSelector(line, { timeout: 15000 });
  const text = await eye.locator(line).innerText();
  expect(text.includes(`${counted} wagers`) && text.includes(`${counted} placed while positive`), `the counter's line: ${text}`);
  // The supervisor's pit rates both players at the table.
  await sup.click(tid('ratings-refresh'));
  await sup.waitForSelector(tid(`rating-${p1}`), { timeout: 15000 });
  expect(await sup.locator(`${tid('ratings-table')} tbody tr`).count() === 2, 'two players rated at table 5');
  const rated = await sup.locator(tid('ratings-panel')).innerText();
  expect(!/null|undefined|NaN/.test(rated), `the ratings panel writes no placeholder: ${rated}`);

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
