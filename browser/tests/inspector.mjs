// Inspector at the pit console: game recall of live table 5 after a coup dealt
// through the API (with a card found face up in the shoe, NSW 12.5), stepped
// through record by record, then "Run verify" and the ledger check.
import { join } from 'node:path';
import { BASE, NARROW, SCREENSHOT_DIR, WIDE, apiCall, apiLogin, accessible, expect, keepNotices, noticeSeen, run, shot, tid, waitAttr } from '../lib.mjs';

const TABLE = 5;

/** One coup on the live table, dealt through the API: Player 9 v Banker 5. */
async function dealACoup() {
  const dealer = await apiLogin('dealer');
  const player = await apiLogin('player1');
  const cmd = (body) => apiCall(dealer, `/api/tables/${TABLE}/commands`, body);
  const table = await apiCall(dealer, `/api/tables/${TABLE}`);
  if (['no_shoe', 'shoe_over'].includes(table.phase)) {
    await cmd({ command: 'start_shoe', source: { live: { decks: table.decks } }, cut: null, burn: null, show_burn: false });
  }
  await cmd({ command: 'open_betting', no_bet: false });
  const w = await apiCall(player, `/api/tables/${TABLE}/wagers`, { bet: 'banker', amount: 1000, key: `insp-${Date.now()}` });
  await cmd({ command: 'close_betting' });
  await cmd({ command: 'card_in', card: '9H', to: null, face_up: true });
  await cmd({ command: 'face_up_in_shoe', card: '2C' });
  await cmd({ command: 'card_in', card: 'KD', to: null, face_up: true });
  await cmd({ command: 'card_in', card: '3S', to: null, face_up: true });
  const after = await apiCall(dealer, `/api/tables/${TABLE}/pit`);
  expect(after.coup.result && after.coup.result.winner === 'player', `the coup completed: ${JSON.stringify(after.coup.result)}`);
  return { coup: after.coup.coup, wager: w.wager };
}

/** Between coups a supervisor halves the Banker maximum: a player watching
 * the table is told, in words, what changed (issue 49: the panel changed
 * without a word). */
async function limitChangeIsTold(newPage) {
  const page = await newPage({ viewport: NARROW });
  await page.goto(`${BASE}/`);
  await page.getByTestId('login-name').fill('player2');
  await page.getByTestId('login-password').fill('demo');
  await page.getByTestId('login-password').press('Enter');
  await page.getByTestId(`join-${TABLE}`).click();
  await page.getByTestId('spot-banker').waitFor();
  await keepNotices(page);
  const supervisor = await apiLogin('supervisor');
  const t = await apiCall(supervisor, `/api/tables/${TABLE}`);
  const banker = t.offers.find((o) => o.bet === 'banker');
  const max = Math.max(banker.min, Math.floor(banker.max / 2 / t.chip) * t.chip);
  await apiCall(supervisor, `/api/tables/${TABLE}/commands`, { command: 'change_limits', bet: 'banker', max });
  const said = await noticeSeen(page, /limits changed/);
  const money = (m) => `$${(m / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
  expect(said.includes(`Banker maximum: ${money(banker.max)} → ${money(max)}`), `the notice names the wager and both maximums: ${said}`);
  await shot(page, 'limit-change-notice-390x844');
  await page.close();
}

await run('inspector', async ({ newPage }) => {
  const t0 = Date.now();
  const { coup, wager } = await dealACoup();
  await limitChangeIsTold(newPage);
  // The next coup's betting opens: the recall still opens on the completed one.
  await apiCall(await apiLogin('dealer'), `/api/tables/${TABLE}/commands`, { command: 'open_betting', no_bet: false });

  const page = await newPage({ viewport: WIDE });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${BASE}/pit`);
  await page.fill(tid('login-name'), 'inspector');
  await page.fill(tid('login-password'), 'demo');
  await page.click(tid('login-submit'));
  await page.waitForSelector(tid(`table-option-${TABLE}`));
  await page.click(tid(`table-option-${TABLE}`));

  // Inspectors recall and verify; they do not run the table.
  await page.waitForSelector(tid('recall-records'));
  expect(!(await page.locator(tid('irr-misdeal')).isVisible()), 'no irregularity buttons for an inspector');
  expect(!(await page.locator(tid('start-shoe')).count()), 'no dealer controls for an inspector');

  // The recall: the coup's records, oldest first.
  await page.fill(tid('recall-last'), '3');
  await page.click(tid('recall-load'));
  await page.waitForSelector(`${tid('recall-coup')}[data-coup="${coup}"]`);
  const next = page.locator(tid(`recall-coup-${coup + 1}`));
  expect(await next.getAttribute('data-complete') === 'false' && (await next.innerText()).includes('in progress'),
    `the coup being dealt is marked in progress: ${await next.innerText()}`);
  expect(await page.locator(tid(`recall-coup-${coup}`)).getAttribute('aria-pressed') === 'true', 'the recall opens on the last completed coup');
  const records = await page.locator(`${tid('recall-records')} li`).evaluateAll(
    (els) => els.map((e) => ({ seq: Number(e.dataset.testid.slice(7)), event: e.dataset.event, text: e.textContent })),
  );
  const kinds = records.map((r) => r.event);
  for (const k of ['betting_opened', 'wager_placed', 'betting_closed', 'card_dealt', 'irregularity', 'coup_completed', 'wager_settled', 'coup_closed']) {
    expect(kinds.includes(k), `the recall shows ${k}: ${kinds.join(', ')}`);
  }
  expect(kinds.filter((k) => k === 'card_dealt').length === 4, 'four cards dealt');
  for (let i = 1; i < records.length; i++) expect(records[i].seq > records[i - 1].seq, 'records in chain order');
  const dealt = records.filter((r) => r.event === 'card_dealt').map((r) => r.text);
  expect(/9♥ to Player 1st, face up/.test(dealt[0]) && /2♣ to Banker 1st/.test(dealt[1]), `cards with their positions: ${dealt.join(' | ')}`);
  const irr = records.find((r) => r.event === 'irregularity').text;
  expect(/face up/i.test(irr) && irr.includes('NSW 12.5'), `the irregularity with its rule: ${irr}`);
  const done = records.find((r) => r.event === 'coup_completed').text;
  expect(/Player 9 \(2 cards: stood\), Banker 5 \(2 cards: stood\) — Player wins/.test(done), `the draw decisions: ${done}`);
  const settled = records.find((r) => r.event === 'wager_settled').text;
  expect(settled.includes(`Wager #${wager} (Banker $10.00`) && /pay line “lose”/.test(settled) && settled.includes('net to the player -$10.00'),
    `the settlement with its pay line: ${settled}`);

  // Step by step.
  await waitAttr(page, tid('recall-step'), 'data-seq', String(records[0].seq));
  expect(await page.locator(tid('recall-prev')).isDisabled(), 'no step before the first');
  for (let i = 1; i < 6; i++) {
    await page.click(tid('recall-next'));
    await waitAttr(page, tid('recall-step'), 'data-seq', String(records[i].seq));
    const pos = await page.locator(tid('recall-position')).innerText();
    expect(pos === `Step ${i + 1} of ${records.length}`, `stepper: ${pos}`);
  }
  // The keyboard works the stepper too.
  await page.focus(tid('recall-next'));
  await page.keyboard.press('Enter');
  await waitAttr(page, tid('recall-step'), 'data-seq', String(records[6].seq));
  const step = await page.locator(tid('recall-step')).innerText();
  expect(step.includes(`Record #${records[6].seq}`) && /hash [0-9a-f]{64}/.test(step), `the step shows its record and hash: ${step}`);

  // Verification.
  await page.click(tid('run-verify'));
  await waitAttr(page, tid('verify-status'), 'data-ok', 'true', 20000);
  await waitAttr(page, tid('ledger-status'), 'data-ok', 'true');
  const v = await page.locator(tid('verify-status')).innerText();
  expect(/Verified: OK/.test(v) && /records/.test(v), `verify: ${v}`);

  await shot(page, 'inspector-recall-1280');
  await accessible(page, 'the inspector\'s recall');
  await page.setViewportSize(NARROW);
  await page.waitForTimeout(150);
  await shot(page, 'inspector-recall-390');
  await page.locator(tid('recall-step')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'inspector-step-390-viewport.png') });

  expect(errors.length === 0, `no script errors: ${errors.join('; ')}`);
  console.log(`inspector scenario took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
});
