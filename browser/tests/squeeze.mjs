// Squeeze: player1 and player2 at table 3 ("Resort squeeze": the seated player
// with the highest wager on a hand is passed its cards face down). player1 bets
// a large Player wager, player2 a small one. While the Player hand is out with
// player1: player1's page shows the card ids, player2's page shows the same
// slots face down, and NO WebSocket frame player2 received carried those cards.
// Then player1 squeezes and reveals, and player2 sees the cards.
//
// Needs only BASE_URL (and SCREENSHOT_DIR); finishes well within 90 s.

import { BASE, NARROW as PHONE, WIDE, expect, run, shot } from '../lib.mjs';
import { deltaFollower } from '../../crates/baccarat-server/web/delta.js';

const TABLE = 3;
const log = (...a) => console.log('[squeeze]', ...a);
const PLAYER_SLOTS = ['player1', 'player2', 'player3'];

async function signIn(page, name) {
  await page.goto(`${BASE}/#table=${TABLE}`);
  await page.getByTestId('login-name').fill(name);
  await page.getByTestId('login-password').fill('demo');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('spot-player').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=connection]').dataset.state === 'live');
  return page.evaluate(() => JSON.parse(sessionStorage.getItem('baccarat.user')).id);
}

const slots = (page) => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-testid^=card-]')]
  .map((el) => [el.dataset.position, { card: el.dataset.card, state: el.dataset.state }])));

async function bet(page, chip, times) {
  await page.getByTestId(`chip-${chip}`).click();
  for (let i = 0; i < times; i++) await page.getByTestId('spot-player').click();
  await page.getByTestId('confirm').click();
  await page.waitForFunction((want) => document.querySelector('[data-testid=spot-player-placed]').dataset.minor === String(want), chip * times);
}

await run('squeeze', async ({ browser }) => {
  const ctx1 = await browser.newContext({ viewport: WIDE });
  const ctx2 = await browser.newContext({ viewport: WIDE });
  const p1 = await ctx1.newPage();
  const p2 = await ctx2.newPage();
  const errors = [];
  for (const p of [p1, p2]) p.on('pageerror', (e) => errors.push(e.message));

  // Every message player2's browser receives on the table's WebSocket, as
  // the page has it: the whole message, then each delta applied to the last
  // (web/delta.js, the page's own code), so a card carried by any delta shows.
  const frames = [];
  p2.on('websocket', (ws) => {
    const follower = deltaFollower();
    ws.on('framereceived', (f) => {
      try {
        const got = follower.take(JSON.parse(typeof f.payload === 'string' ? f.payload : f.payload.toString()));
        if (got.message) frames.push(got.message);
      } catch { /* not JSON */ }
    });
  });

  const id1 = await signIn(p1, 'player1');
  const id2 = await signIn(p2, 'player2');
  log('player1 is user', id1, 'player2 is user', id2);

  // Both bet in the same betting window, with time to spare.
  const bettingWithTime = () => {
    const t = document.querySelector('[data-testid=table]');
    const c = document.querySelector('[data-testid=countdown]');
    return t.dataset.phase === 'betting' && !c.hidden && Number(c.dataset.remainingMs) > 3500;
  };
  await p1.waitForFunction(bettingWithTime, null, { timeout: 30000 });
  const coup = Number(await p1.getByTestId('table').getAttribute('data-coup'));
  log('coup', coup);
  await Promise.all([bet(p1, 10000, 2), bet(p2, 1000, 1)]); // $200 and $10 on Player
  expect(Number(await p2.getByTestId('table').getAttribute('data-coup')) === coup, 'both bet on the same coup');

  // The Player hand goes out to player1.
  await p1.waitForFunction(() => {
    const box = document.querySelector('[data-testid=squeeze-box]');
    return !box.hidden && box.dataset.mine === 'true';
  }, null, { timeout: 20000 });
  await p2.waitForFunction(() => !document.querySelector('[data-testid=squeeze-box]').hidden);
  const s1 = await slots(p1);
  const s2 = await slots(p2);
  log('player1 sees', JSON.stringify(s1));
  log('player2 sees', JSON.stringify(s2));
  const held = PLAYER_SLOTS.filter((p) => s1[p].state !== 'empty');
  expect(held.length >= 2, `the Player hand has cards: ${JSON.stringify(s1)}`);
  for (const p of held) {
    expect(s1[p].state === 'held' && /^(10|[2-9AJQK])[SHDC]$/.test(s1[p].card), `player1 holds ${p} and sees it: ${JSON.stringify(s1[p])}`);
    expect(s2[p].state === 'down' && s2[p].card === '', `player2 sees ${p} face down: ${JSON.stringify(s2[p])}`);
  }
  const notice = await p2.getByTestId('squeeze-notice').innerText();
  expect(/squeezing the Player hand/.test(notice), `player2 is told who squeezes: ${notice}`);
  expect(await p1.getByTestId('reveal').isVisible(), 'player1 has a Reveal button');
  expect(!(await p2.getByTestId('reveal').isVisible()), 'player2 has no Reveal button');

  // The squeeze's time is shown to the player holding the hand.
  await p1.waitForFunction(() => !document.querySelector('[data-testid=squeeze-timer]').hidden, null, { timeout: 2000 });
  const timer = await p1.getByTestId('squeeze-timer').evaluate((el) => ({ hidden: el.hidden, left: Number(el.dataset.remainingMs), text: el.textContent }));
  expect(!timer.hidden && timer.left > 0 && /Time to squeeze: \d+ s/.test(timer.text), `the squeeze timer runs: ${JSON.stringify(timer)}`);

  // player1 squeezes: the button peels a quarter from the top, a drag from
  // the top edge peels further.
  await p1.getByTestId('squeeze').click();
  const first = p1.getByTestId(`card-${held[0]}`);
  const peel = (slot) => slot.evaluate((el) => ({ p: Number(getComputedStyle(el).getPropertyValue('--peel')), from: el.dataset.peelFrom }));
  expect((await peel(first)).p === 0.25, `Squeeze peels a quarter: ${JSON.stringify(await peel(first))}`);
  // The lifted back bends along the peel's edge: a band as deep as the lift
  // allows (14% of the card), ending at the edge.
  const bend = await first.evaluate((el) => {
    const f = el.querySelector('.card-front');
    const a = getComputedStyle(f, '::after');
    return { h: parseFloat(a.height), top: parseFloat(a.top), card: f.offsetHeight };
  });
  expect(Math.abs(bend.h - 0.14 * bend.card) < 2 && Math.abs(bend.top + bend.h - 0.25 * bend.card) < 2, `the bend at a quarter's peel: ${JSON.stringify(bend)}`);
  const drag = async (slot, from, to) => {
    const b = await slot.boundingBox();
    await p1.mouse.move(b.x + b.width * from[0], b.y + b.height * from[1]);
    await p1.mouse.down();
    await p1.mouse.move(b.x + b.width * to[0], b.y + b.height * to[1], { steps: 5 });
    await p1.mouse.up();
  };
  await drag(first, [0.5, 0.03], [0.5, 0.45]);
  const top = await peel(first);
  expect(top.p > 0.5 && top.from === 'top', `dragging from the top peels it further: ${JSON.stringify(top)}`);
  // What the peel uncovers is the index the right way up, reading as the
  // card's rank (a 6 as 6, never as an upside-down 9); the far corners are
  // still under the back.
  const uncovered = (slot) => slot.evaluate((el) => {
    const at = (corner) => {
      const c = el.querySelector(`.corner.${corner}`).getBoundingClientRect();
      const hit = document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2);
      const index = hit && hit.closest('.corner');
      return index ? { rank: index.querySelector('b').textContent, turned: getComputedStyle(index).transform !== 'none' } : null;
    };
    return { card: el.dataset.card, tl: at('tl'), tr: at('tr'), bl: at('bl'), br: at('br') };
  });
  const u1 = await uncovered(first);
  const rankOf = (card) => card.slice(0, -1);
  expect(u1.tl && u1.tl.rank === rankOf(u1.card) && !u1.tl.turned && u1.tr && !u1.tr.turned,
    `peeled from the top, the top indices read ${rankOf(u1.card)} the right way up: ${JSON.stringify(u1)}`);
  expect(!u1.bl && !u1.br, `the bottom corners are still covered: ${JSON.stringify(u1)}`);
  // Peeled from the other end: the bottom indices, again the right way up.
  const second = p1.getByTestId(`card-${held[1]}`);
  await drag(second, [0.5, 0.97], [0.5, 0.4]);
  const bottom = await peel(second);
  expect(bottom.p > 0.5 && bottom.from === 'bottom', `dragging from the bottom peels from the bottom: ${JSON.stringify(bottom)}`);
  const u2 = await uncovered(second);
  expect(u2.br && u2.br.rank === rankOf(u2.card) && !u2.br.turned && !u2.tl,
    `peeled from the bottom, the bottom index reads ${rankOf(u2.card)} the right way up: ${JSON.stringify(u2)}`);
  await p1.mouse.move(0, 0);
  // Every face: the rank in all four corners, upright, and its pips in the
  // printed layout (an ace one, a 6 six, a 9 nine), a court panel for J, Q, K.
  const faces = await p1.evaluate(async () => {
    const { cardFace } = await import('/assets/common.js');
    const host = document.createElement('div');
    host.className = 'card-slot';
    host.style.cssText = 'position:absolute;left:-9999px;--cw:100px';
    document.body.append(host);
    const out = [];
    for (const rank of ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K']) {
      for (const suit of 'SHDC') {
        host.innerHTML = `<div class="face">${cardFace(rank + suit)}</div>`;
        const corners = [...host.querySelectorAll('.corner')];
        out.push({
          card: rank + suit,
          corners: corners.map((c) => c.querySelector('b').textContent),
          upright: corners.every((c) => getComputedStyle(c).transform === 'none'),
          pips: host.querySelectorAll('.pip').length,
          court: !!host.querySelector('.court'),
        });
      }
    }
    host.remove();
    return out;
  });
  const want = (r) => ({ A: 1, J: 0, Q: 0, K: 0 }[r] ?? Number(r));
  for (const f of faces) {
    const r = rankOf(f.card);
    expect(f.corners.length === 4 && f.corners.every((c) => c === r) && f.upright, `${f.card}: four upright indices: ${JSON.stringify(f)}`);
    expect(f.pips === want(r) && f.court === ['J', 'Q', 'K'].includes(r), `${f.card}: its pips or court: ${JSON.stringify(f)}`);
  }
  // A page loaded mid-squeeze counts from when the hand went out (the
  // table's view says when), not from its own load: player2 reloads and
  // shows what player1's page shows.
  await p2.waitForTimeout(1500);
  await p2.reload();
  await p2.waitForFunction(() => !document.querySelector('[data-testid=squeeze-timer]').hidden, null, { timeout: 5000 });
  const [left1, left2] = await Promise.all([p1, p2].map((p) => p.getByTestId('squeeze-timer').evaluate((el) => Number(el.dataset.remainingMs))));
  log('squeeze time left: player1', left1, 'player2 after a reload', left2);
  expect(left1 > 0 && Math.abs(left1 - left2) < 1000, `the reloaded page's squeeze timer agrees: ${left1} vs ${left2}`);
  // The time is a ring that empties, the seconds in it.
  const ring = await p1.getByTestId('squeeze-timer').evaluate((el) => ({
    left: Number(getComputedStyle(el).getPropertyValue('--left')), secs: Number(el.querySelector('[data-testid=squeeze-ring]').textContent),
    ms: Number(el.dataset.remainingMs),
  }));
  expect(ring.left > 0 && ring.left < 1 && ring.secs === Math.ceil(ring.ms / 1000), `the ring shows the time left: ${JSON.stringify(ring)}`);
  await shot(p1, 'squeeze-player1-holding-1280x800');
  await shot(p2, 'squeeze-player2-waiting-1280x800');
  await p2.setViewportSize(PHONE);
  await shot(p2, 'squeeze-player2-waiting-390x844');
  await p2.setViewportSize(WIDE);
  await p1.setViewportSize(PHONE);
  const phoneCard = await first.boundingBox();
  expect(phoneCard.width >= 120, `a card being squeezed is large on the phone: ${phoneCard.width} px wide`);
  // Every card held lies inside the phone's screen (issue 49: the second
  // Banker card ran past x = 390).
  for (const pos of held) {
    const b = await p1.getByTestId(`card-${pos}`).boundingBox();
    expect(b && b.x >= 0 && b.x + b.width <= PHONE.width, `${pos} is inside the screen while squeezed: ${JSON.stringify(b)}`);
  }
  await shot(p1, 'squeeze-player1-holding-390x844');
  await p1.setViewportSize(WIDE);

  // Reveal: player2 then sees the very cards player1 held.
  const framesBeforeReveal = frames.length;
  await p1.getByTestId('reveal').click();
  await p2.waitForFunction(([pos, card]) => document.querySelector(`[data-testid=card-${pos}]`).dataset.card === card,
    [held[0], s1[held[0]].card], { timeout: 10000 });
  const after = await slots(p2);
  for (const p of held) expect(after[p].card === s1[p].card && after[p].state === 'up', `player2 sees ${p} = ${s1[p].card} after the reveal: ${JSON.stringify(after[p])}`);
  await p2.waitForTimeout(700); // the cards finish turning over
  await shot(p2, 'squeeze-player2-revealed-1280x800');
  await shot(p1, 'squeeze-player1-revealed-1280x800');

  // Any further hand out with player1 (a third card) is revealed at once; wait for the result
  // (longer than the server's squeeze time, 60 s in browser.rs, which would end it anyway).
  const deadline = Date.now() + 75000;
  for (;;) {
    const done = await p2.evaluate((c) => {
      const r = document.querySelector('[data-testid=result]');
      return r.dataset.coup === String(c) && r.dataset.winner !== '';
    }, coup);
    if (done) break;
    expect(Date.now() < deadline, 'the coup finishes');
    if (await p1.getByTestId('reveal').isVisible()) await p1.getByTestId('reveal').click().catch(() => {});
    await p2.waitForTimeout(200);
  }

  // What player2's browser was sent: a card first reaches player2 only in a
  // frame where its hand is not out with player1 (a hand out again for a third
  // card keeps its first two cards, already exposed), and none of the held cards
  // came before the reveal.
  const mine = frames.filter((m) => m.table && m.table.id === TABLE && m.table.coup === coup);
  expect(mine.length > 0, 'player2 received frames for the coup');
  let outFrames = 0;
  const seen = new Set();
  for (const [i, m] of mine.entries()) {
    const out = m.table.out;
    const cards = new Map(m.table.cards);
    log(`frame ${i}: phase ${m.table.phase}, out ${JSON.stringify(out)}, cards ${JSON.stringify(m.table.cards)}`);
    if (out && out.player === id1) outFrames += 1;
    for (const [pos, card] of m.table.cards) {
      if (card === null || seen.has(pos)) continue;
      seen.add(pos);
      const side = pos.startsWith('player') ? 'player' : 'banker';
      expect(!(out && out.player === id1 && out.side === side),
        `frame ${i}: ${pos} = ${card} first sent to player2 while the ${side} hand was out with player1`);
    }
    if (frames.indexOf(m) < framesBeforeReveal) {
      for (const p of held) expect(!cards.get(p), `frame ${i} (before the reveal) sent player2 ${p} = ${cards.get(p)}`);
    }
  }
  expect(outFrames > 0, 'player2 received frames while the hand was out with player1');
  log(`${mine.length} frames for coup ${coup} checked, ${outFrames} while the hand was out with player1`);
  await p2.waitForTimeout(700);
  await shot(p2, 'squeeze-player2-result-1280x800');
  expect(errors.length === 0, `no script errors: ${errors.join('; ')}`);
});
