// A two-table tournament of eight players (NSW 15), end to end in the
// browser: player 1 enters, wagers, makes an undisclosed wager and plays a
// pass card through the tournament page; player 2's page watches the
// tournament's WebSocket, which must never carry player 1's form before "no
// more bets"; a wager out of the marker's order is refused on the page
// (NSW 15.9.4); every table's heat ends level, so each is played off (NSW
// 15.10.3); the final is played and the prizes are paid from the pool to the
// winners' wallets (NSW 15.3.2), shown on the page and on the leaderboard.
//
// The other six players and the Tournament Manager act through the API.
// Cards come from the server's own shoes, so the scenario plays whatever is
// dealt: everyone wagers alike in the heat to force the ties.

import {
  ADMIN_PASSWORD, BASE, NARROW, WIDE, apiCall, apiLogin, accessible, expect, keepNotices, noticeSeen, run, shot, tid,
} from '../lib.mjs';

const log = (...a) => console.log('[tournament]', ...a);
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const FEE = 10000;

const conditions = (starts) => `name = "Browser Cup"
rulebook = "nsw-2021"
[entry]
starts = "${starts}"
fee = ${FEE}
min_players = 8
max_players = 8
withdraw_hours_before_start = 0
application = "at the tournament desk"
[eligibility]
[chips]
per_session = 20000
[wagers]
min = 1000
max = 5000
time_limit_seconds = 60
[structure]
dealing = "method_a"
seats_per_table = 4
rounds = [
  { name = "Heat", tables = 2, coups = 2, advance_per_table = 2 },
  { name = "Final", tables = 1, coups = 2 },
]
[play]
seating = "draw"
marker = true
pass_cards = 1
undisclosed_wagers = 1
[prizes]
places = [{ percent = 60 }, { percent = 40 }]
payment = "cash"
`;

await run('tournament', async ({ newPage }) => {
  const admin = await apiLogin('admin', ADMIN_PASSWORD);
  for (const n of [6, 7, 8]) {
    await apiCall(admin, '/api/players', { name: `player${n}`, password: 'demo', chips: 100000 });
  }
  // Everyone signs in before the tournament is made: entries close at its
  // start, by the server's clock, so what must happen before it is only the
  // entries, a request each (issue 45: on a busy machine eight sign-ins, a
  // page's among them, and the entries could outlast the 12 s to the start).
  // Player 1 on the tournament page; the other seven through the API, a
  // token for each, by player id.
  const p1 = await newPage({ viewport: WIDE });
  const errors = [];
  p1.on('pageerror', (e) => errors.push(e.message));
  await p1.goto(`${BASE}/tournament`);
  await p1.fill(tid('login-name'), 'player1');
  await p1.fill(tid('login-password'), 'demo');
  await p1.click(tid('login-submit'));
  await p1.waitForFunction(() => sessionStorage.getItem('baccarat.user') !== null);
  const me1 = await p1.evaluate(() => JSON.parse(sessionStorage.getItem('baccarat.user')).id);
  const token = {};
  const balance0 = {};
  for (const n of [2, 3, 4, 5, 6, 7, 8]) {
    const t = await apiLogin(`player${n}`);
    const me = await apiCall(t, '/api/me');
    token[me.user] = t;
    balance0[me.user] = me.balance;
  }

  const startsMs = Math.ceil((Date.now() + 12000) / 1000) * 1000;
  const { tournament: id } = await apiCall(admin, '/api/tournaments', { conditions: conditions(iso(startsMs)) });
  const T = `/api/tournaments/${id}`;

  // Player 1 enters through the page (signed in: the page keeps it), the
  // others through the API.
  await p1.goto(`${BASE}/tournament?t=${id}`);
  await p1.waitForSelector(`${tid('entry')}:not([hidden])`);
  await p1.click(tid('enter'));
  await p1.waitForFunction(() => /1 entered/.test(document.querySelector('[data-testid="entry-text"]').textContent));
  for (const p of Object.keys(token)) await apiCall(token[p], `${T}/enter`, {});
  const p2id = Number(Object.keys(token)[0]);
  const tm = await apiLogin('manager');
  await shot(p1, 'entered-1280x800');
  await accessible(p1, 'the tournament page');

  // Player 2 watches on a phone: the page, and every message of the
  // tournament's WebSocket recorded as it arrives.
  const p2 = await newPage({ viewport: NARROW });
  await p2.context().addCookies([{ name: 'baccarat_session', value: token[p2id], url: BASE }]);
  await p2.addInitScript(([uid]) => {
    sessionStorage.setItem('baccarat.user', JSON.stringify({ id: uid, name: 'player2', role: 'player' }));
  }, [p2id]);
  await p2.goto(`${BASE}/tournament?t=${id}`);
  await p2.evaluate((tid_) => {
    window.__msgs = [];
    const ws = new WebSocket(`ws://${location.host}/api/tournaments/${tid_}/ws`);
    ws.onmessage = (e) => window.__msgs.push(e.data);
  }, id);
  const board = await newPage({ viewport: WIDE });
  // Without ?t= the leaderboard lists the tournaments (it once said
  // "reconnecting" for ever); a tournament that is not there is said so.
  await board.goto(`${BASE}/leaderboard`);
  await board.waitForSelector(tid(`b-list-${id}`));
  expect((await board.locator(tid('connection')).getAttribute('data-state')) === 'idle', 'the list follows no socket');
  await accessible(board, 'the list of tournaments');
  await board.goto(`${BASE}/leaderboard?t=${id + 1000}`);
  await board.waitForSelector(tid(`b-list-${id}`));
  expect((await board.locator(tid('b-round')).innerText()).includes(`no tournament ${id + 1000}`), 'a missing tournament is named');
  await board.click(`${tid(`b-list-${id}`)} a`);
  await board.waitForURL(`**/leaderboard?t=${id}`);

  while (Date.now() < startsMs + 300) await new Promise((r) => setTimeout(r, 200));
  await apiCall(tm, `${T}/start`, {});
  await p1.waitForSelector(`${tid('my-seat')}:not([hidden])`);
  log('started');

  const view = () => apiCall(tm, `${T}/play`);
  const seatOf = (v, p) => {
    for (const t of [...v.tables].reverse()) for (const s of t.seats) if (s.player === p) return { t, s };
    return null;
  };
  let outOfOrderDone = false;
  const balanceOf = async (p) => (await apiCall(token[p], '/api/me')).balance;
  // The server's answer to player 1's next action on the page: awaited, not
  // raced. Start waiting before the click.
  const acted = () => p1.waitForResponse(
    (r) => r.request().method() === 'POST' && r.url().endsWith(`${T}/act`), { timeout: 60000 });
  // Every notice the page shows, kept: a notice leaves the page after 8 s,
  // and on a busy machine it could come and go between two polls.
  await keepNotices(p1);

  /** Play the coup at table `n` (from 1): each in turn does `choose(seat)`;
   * player 1 through the page (`page1(seat, table)`). */
  async function coup(n, choose, page1) {
    for (;;) {
      const v = await view();
      const t = v.tables[n - 1];
      const next = t.turn !== null
        ? t.seats.find((s) => s.box === t.turn)
        : t.seats.find((s) => !s.out && !s.acted);
      if (!next) break;
      const mine = t.seats.find((s) => s.player === me1 && !s.out && !s.acted);
      if (mine && next.player !== me1 && !outOfOrderDone) {
        // Player 1 tries to wager out of the marker's order (NSW 15.9.4).
        // Every other player acts only from this loop, after the answer, so
        // the turn cannot move before the server decides; its answer is
        // what is checked (issue 45 finding 15: waiting on the page alone
        // timed out on a loaded machine), then the notice the page showed.
        await p1.fill(tid('amount'), '10');
        const answer = acted();
        await p1.click(tid('wager'));
        const r = await answer;
        const body = await r.text();
        expect(!r.ok() && /15\.9\.4/.test(body),
          `a wager before box ${t.turn}'s is refused by NSW 15.9.4: HTTP ${r.status()} ${body}`);
        await noticeSeen(p1, /15\.9\.4/);
        await shot(p1, 'out-of-order-1280x800');
        outOfOrderDone = true;
        log('out of order refused');
      }
      if (next.player === me1) {
        // One action, its answer awaited (once answered, every view has it:
        // the server folds a batch into its views before answering). Never a
        // second click: a second undisclosed form would replace the first in
        // the page's storage, and the first could then never be revealed.
        const answer = acted();
        await page1(next, t);
        const r = await answer;
        expect(r.ok(), `player 1's action on the page: HTTP ${r.status()} ${await r.text()}`);
      } else {
        await apiCall(token[next.player], `${T}/act`, { action: choose(next) });
      }
    }
    await apiCall(tm, `${T}/no-more-bets`, { table: n });
  }

  async function deal(n) {
    // Player 1's page shows its undisclosed form by itself after "no more
    // bets"; the cards are not dealt before (NSW 15.8.2.6 refuses them).
    // Waited for until shown (a minute at least, not 10 s: dealing after a
    // fixed time raced a slow page on a busy machine).
    const waiting = async () => (await view()).tables[n - 1].seats
      .some((s) => s.acted && s.acted.kind === 'undisclosed' && !s.revealed);
    for (let i = 0; i < 600 && await waiting(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(!await waiting(), `table ${n}: the page never revealed its undisclosed wager`);
    await apiCall(tm, `${T}/deal`, { table: n });
  }

  const level = () => ({ kind: 'wager', bet: 'banker', amount: 1000 });
  // Heat, coup 1: everyone wagers 1,000 on Banker; player 1 does so on an
  // undisclosed form.
  const my = seatOf(await view(), me1);
  const myTable = my.t.table;
  for (const n of [1, 2]) {
    await coup(n, level, async () => {
      await p1.selectOption(tid('bet'), 'banker');
      await p1.fill(tid('amount'), '10');
      await p1.check(tid('undisclosed'));
      await p1.click(tid('wager'));
    });
  }
  // Before "no more bets" was called at player 1's table, the socket never
  // carried the form: no revealed form, and player 1 acted "undisclosed".
  // (How many messages came depends on the machine's pace, not on the
  // server's rules: a socket's wake-ups coalesce, each message the latest
  // state; a busy CI machine sent 3 where a quiet one sends more. What is
  // checked is what they carried.)
  // The socket's message after player 1's act may still be on its way when
  // the last call above is answered (CI's full suite once read the messages
  // before it came): wait for it, then check every message received.
  const saw = ([me, table]) => window.__msgs.some((raw) => {
    const t = (JSON.parse(raw).play || { tables: [] }).tables[table - 1];
    const s = t && t.seats.find((x) => x.player === me);
    return !!(s && s.acted && s.acted.kind === 'undisclosed');
  });
  // A timeout here fails below, naming what was missing.
  await p2.waitForFunction(saw, [me1, myTable], { timeout: 30000 }).catch(() => {});
  const msgs = await p2.evaluate(() => window.__msgs.slice());
  expect(msgs.length > 0, "player 2's socket received no message");
  let sawCommitment = false;
  for (const raw of msgs) {
    const m = JSON.parse(raw);
    const t = m.play && m.play.tables[myTable - 1];
    const s = t && t.seats.find((x) => x.player === me1);
    if (!s) continue;
    if (s.acted && s.acted.kind === 'undisclosed') {
      sawCommitment = true;
      if (!t.closed) expect(s.revealed === null, `the form was shown before no more bets: ${raw}`);
    }
  }
  expect(sawCommitment, 'player 2 saw that player 1 made an undisclosed wager');
  await shot(p2, 'undisclosed-watcher-390x844');
  for (const n of [1, 2]) await deal(n);
  const shown = seatOf(await view(), me1);
  log('coup 1 dealt; player 1 chips', shown.s.chips);

  // Coup 2: everyone plays their pass card; player 1 on the page.
  for (const n of [1, 2]) {
    await coup(n, () => ({ kind: 'pass' }), async () => { await p1.click(tid('pass')); });
  }
  for (const n of [1, 2]) await deal(n);
  expect(outOfOrderDone, 'player 1 was never out of turn');
  const afterHeat = await view();
  for (const t of afterHeat.tables) {
    const chips = new Set(t.seats.map((s) => s.chips));
    expect(chips.size === 1, `table ${t.table} is level: ${JSON.stringify(t.seats)}`);
  }
  await shot(p1, 'heat-over-1280x800');

  // Each table's four are level for two places: play-offs (NSW 15.10.3).
  let playoffs = 0;
  const different = (s) => ({ kind: 'wager', bet: 'banker', amount: 1000 * s.box });
  for (let round = 0; round < 200; round++) {
    const v = await view();
    if (v.prizes) break;
    const po = v.tables.find((t) => t.play_off);
    if (po) {
      if (po.coup === 1 && po.seats.every((s) => !s.acted)) playoffs += 1;
      await coup(po.table, different, async (s) => {
        await p1.fill(tid('amount'), String(10 * s.box));
        await p1.click(tid('wager'));
      });
      await deal(po.table);
      continue;
    }
    const open = v.tables.find((t) => !t.over);
    if (open) {
      await coup(open.table, different, async (s) => {
        await p1.fill(tid('amount'), String(10 * s.box));
        await p1.click(tid('wager'));
      });
      await deal(open.table);
      continue;
    }
    await apiCall(tm, `${T}/end-round`, {});
  }
  expect(playoffs >= 2, `each level table was played off (${playoffs} play-offs)`);
  const done = await view();
  expect(done.prizes && done.placings.length === 8, `the tournament finished: ${JSON.stringify(done)}`);

  // Prizes: 60/40 of the eight fees, to the winners' wallets.
  const pool = 8 * FEE;
  expect(done.prizes[0].prize === pool * 0.6 && done.prizes[1].prize === pool * 0.4, JSON.stringify(done.prizes));
  for (const [i, p] of done.placings.slice(0, 2).entries()) {
    if (p === me1) continue;
    const got = await balanceOf(p);
    expect(got === balance0[p] - FEE + done.prizes[i].prize, `player ${p}'s wallet: ${got}`);
  }
  await p1.waitForSelector(`${tid('finish')}:not([hidden])`);
  await p1.waitForSelector(tid(`place-${done.placings[0]}`));
  await board.waitForSelector(`${tid('b-prizes')}:not([hidden])`);
  await board.waitForSelector(tid(`b-place-${done.placings[0]}`));
  const unnamed = await board.evaluate(() => /player \d/.test(document.querySelector('[data-testid="b-prizes"]').textContent));
  expect(!unnamed, 'every placegetter on the leaderboard is named');
  await shot(p1, 'finished-1280x800');
  await shot(board, 'leaderboard-1280x800');
  await accessible(board, 'the leaderboard');
  const overflow = await p2.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow <= 0, `the tournament page scrolls sideways at 390 px (by ${overflow} px)`);
  expect(errors.length === 0, `page errors: ${errors.join('; ')}`);
  log('finished; placings', done.placings.join(', '));
});
