// The player's tournament page (NSW 15): entry before the start; in play,
// the player's seat (chips, rank, pass cards, undisclosed wagers left),
// whose turn it is by the marker, the time left to wager, and the wager
// form; every table's seats; the standings; at the end the placings and
// prizes. Everything comes from the tournament's WebSocket.
//
// An undisclosed wager (NSW 15.8) is written here and never sent: the page
// sends only SHA-256(bet|amount|secret) and keeps the form and its secret in
// localStorage, then shows them to the server once "no more bets" is called
// (NSW 15.8.2.6). No one else, staff included, can read the form before.

import { BASE, auth, api, ApiError, login, logout, money, parseMoney, cardParts, follow, esc, $ } from './common.js';

const params = new URLSearchParams(location.search);
const S = { id: Number(params.get('t')) || null, msg: null, follow: null, offset: 0, revealing: false };

function notice(text, kind = 'error') {
  const n = document.createElement('p');
  n.className = `notice ${kind}`;
  n.textContent = text;
  $('#notices').prepend(n);
  setTimeout(() => n.remove(), 8000);
}

/** A refusal, with the rule that refused it (NSW 15) beside it. */
function fail(e) {
  notice(e instanceof ApiError ? `${e.message}${e.rule ? ` (${e.rule})` : ''}` : String(e));
}

function show(view) {
  for (const v of ['view-login', 'view-t']) $(`#${v}`).hidden = v !== view;
}

const formKey = () => `baccarat.undisclosed.${S.id}.${auth.user && auth.user.id}`;

async function sha256hex(text) {
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
}

function secret() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/** My seat in the play, if I have one: { table, seat }; a play-off's first. */
function mySeat(play) {
  const me = auth.user && auth.user.id;
  for (const t of [...(play.tables || [])].reverse()) {
    for (const s of t.seats) if (s.player === me) return { table: t, seat: s };
  }
  return null;
}

function actedWords(a) {
  if (!a) return '';
  switch (a.kind) {
    case 'wager': return `${a.bet} ${money(a.amount)}`;
    case 'late': return `late: ${a.bet} ${money(a.amount)}`;
    case 'pass': return 'pass card';
    case 'absent': return 'absent';
    case 'undisclosed': return `undisclosed${a.with ? ` + ${a.with.bet} ${money(a.with.amount)}` : ''}`;
    default: return a.kind;
  }
}

function tableHtml(t) {
  const seats = t.seats.map((s) => {
    const marker = t.marker === s.box ? '<span class="marker" title="marker" aria-label="marker">★</span>' : '';
    const turn = t.turn === s.box ? ' turn' : '';
    const out = s.out ? ` out" title="${esc(s.out.why)}` : '';
    const shown = s.revealed ? `<span class="revealed" data-testid="revealed-${s.player}">shown: ${
      typeof s.revealed === 'string' ? esc(s.revealed) : `${esc(s.revealed.bet)} ${money(s.revealed.amount)}`}</span>` : '';
    return `<li class="t-seat${turn}${out}" data-testid="seat-${s.player}" data-chips="${s.chips}" data-acted="${s.acted ? esc(s.acted.kind) : ''}">
      <span class="box">Box ${s.box} ${marker}</span>
      <span class="name">${esc(s.name || `player ${s.player}`)}</span>
      <span class="chips">${money(s.chips)}</span>
      <span class="acted">${s.out ? 'out' : esc(actedWords(s.acted))}</span>${shown}</li>`;
  }).join('');
  const last = t.last ? `<p class="hint" data-testid="last-${t.table}">Coup ${t.last.coup}: ${t.last.cards.map((c) => {
    const p = cardParts(c); return `<span class="${p.red ? 'red' : ''}">${esc(p.rank)}${p.symbol}</span>`;
  }).join(' ')}</p>` : '';
  const coups = t.coups ? ` of ${t.coups}` : '';
  const when = t.over ? 'session over' : `coup ${t.coup}${coups}`;
  return `<section class="panel t-table" data-testid="table-${t.table}" data-closed="${t.closed}" data-coup="${t.coup}">
    <h2>${t.play_off ? 'Play-off' : `Table ${t.table}`} <span class="sub">${when}; ${money(t.min)}–${money(t.max)}</span></h2>
    <p class="hint">${t.closed ? 'No more bets.' : t.turn ? `Box ${t.turn} to wager.` : ''}</p>
    <ol class="t-seats">${seats}</ol>${last}</section>`;
}

function render() {
  const m = S.msg;
  if (!m) return;
  const t = m.tournament;
  const play = m.play;
  $('#t-name').textContent = t ? t.name : 'No such tournament';
  if (!t) return;
  const status = t.cancelled ? 'Cancelled' : t.finished ? 'Finished' : t.started ? 'In play' : 'Open for entries';
  $('#t-status').textContent = status;
  $('#t-status').dataset.state = t.cancelled ? 'cancelled' : t.finished ? 'finished' : t.started ? 'play' : 'entry';
  $('#t-sub').textContent = play
    ? `${play.round_name || ''} (round ${play.round} of ${play.rounds})`
    : `Starts ${t.starts}; ${t.entrants} entered of ${t.min_players}–${t.max_players}; pool ${money(t.pool)}`;
  $('#entry').hidden = !!play || t.cancelled;
  $('#entry-text').textContent = `Entry fee ${money(t.fee)}; ${t.entrants} entered; prize pool ${money(t.pool)}.`;
  if (!play) {
    $('#seat').hidden = true;
    $('#tables').innerHTML = '';
    $('#standings').innerHTML = '';
    return;
  }
  $('#tables').innerHTML = play.tables.map(tableHtml).join('');
  $('#standings').innerHTML = play.standings.map((s) =>
    `<li data-testid="standing-${s.player}" data-chips="${s.chips}">${esc(s.name || `player ${s.player}`)}: ${s.out ? 'out' : money(s.chips)} <span class="sub">(table ${s.table})</span></li>`).join('');
  $('#shoes').textContent = play.shoes.map((x) => `Round ${x.round} shoe: commitment ${x.commitment.slice(0, 12)}…${x.seed ? `, seed ${x.seed.slice(0, 12)}…` : ''}`).join('; ');
  $('#finish').hidden = !play.prizes;
  if (play.prizes) {
    const prize = new Map(play.prizes.map((p) => [p.player, p.prize]));
    $('#placings').innerHTML = play.placings.map((p) =>
      `<li data-testid="place-${p}">${esc(nameOf(play, p))}${prize.get(p) ? `: ${money(prize.get(p))}` : ''}</li>`).join('');
  }
  renderSeat(play);
}

function nameOf(play, p) {
  const s = play.standings.find((x) => x.player === p);
  return (s && s.name) || (play.names && play.names[p]) || `player ${p}`;
}

function renderSeat(play) {
  const mine = mySeat(play);
  $('#seat').hidden = !mine || !!play.prizes;
  if (!mine) return;
  const { table, seat } = mine;
  $('#seat').dataset.table = table.table;
  $('#seat').dataset.box = seat.box;
  $('#my-place').textContent = `${table.play_off ? 'play-off' : `table ${table.table}`}, box ${seat.box}`;
  $('#my-chips').textContent = money(seat.chips);
  $('#my-chips').dataset.minor = seat.chips;
  const rank = play.standings.findIndex((s) => s.player === seat.player);
  $('#my-rank').textContent = rank >= 0 ? `${rank + 1} of ${play.standings.length}` : '—';
  $('#my-pass').textContent = seat.pass_cards;
  $('#my-undisclosed').textContent = seat.undisclosed;
  const myTurn = !table.closed && !seat.out && !seat.acted && (table.turn === null || table.turn === seat.box);
  $('#my-turn').dataset.mine = String(myTurn);
  $('#my-turn').textContent = seat.out ? `Out: ${seat.out.why}`
    : table.over ? 'The session is over at your table.'
      : table.closed ? 'No more bets.'
        : seat.acted ? `You have acted: ${actedWords(seat.acted)}.`
          : myTurn ? 'Your turn to wager.' : `Box ${table.turn} wagers first (the marker's order, NSW 15.9).`;
  const bets = $('#bet');
  if (bets.options.length !== play.bets.length) {
    bets.innerHTML = play.bets.map((b) => `<option value="${esc(b)}">${esc(b)}</option>`).join('');
  }
  $('#amount-hint').textContent = `From ${money(table.min)} to ${money(table.max)}, in units of ${money(table.min)}.`;
  $('#pass').disabled = seat.pass_cards === 0;
  $('#undisclosed').disabled = seat.undisclosed === 0;
  revealIfDue(table, seat);
}

/** After "no more bets", show the form this page committed to (NSW 15.8.2.6). */
async function revealIfDue(table, seat) {
  if (!table.closed || !seat.acted || seat.acted.kind !== 'undisclosed' || S.revealing) return;
  const saved = JSON.parse(localStorage.getItem(formKey()) || 'null');
  if (!saved || saved.commitment !== seat.acted.commitment) return;
  S.revealing = true;
  try {
    await api(`/api/tournaments/${S.id}/reveal`, {
      method: 'POST', body: { form: { bet: saved.bet, amount: saved.amount }, salt: saved.salt },
    });
    localStorage.removeItem(formKey());
    notice(`Your undisclosed wager is shown: ${saved.bet} ${money(saved.amount)}.`, 'ok');
  } catch (e) {
    fail(e);
  } finally {
    S.revealing = false;
  }
}

function tick() {
  const m = S.msg;
  const el = $('#time-left');
  const limit = m && m.play && m.play.time_limit_seconds;
  const mine = m && m.play && mySeat(m.play);
  if (!limit || !mine || !mine.table.turn_since_ms || mine.table.closed) { el.textContent = ''; return; }
  const now = Date.now() + S.offset;
  const left = Math.max(0, Math.ceil((mine.table.turn_since_ms + limit * 1000 - now) / 1000));
  el.textContent = `Time left to wager: ${left} s (then the minimum is wagered for a late player, NSW 15.6.12)`;
  el.dataset.seconds = left;
}

async function act(action) {
  try {
    await api(`/api/tournaments/${S.id}/act`, { method: 'POST', body: { action } });
  } catch (e) {
    fail(e);
  }
}

async function onWager(ev) {
  ev.preventDefault();
  const amount = parseMoney($('#amount').value);
  if (amount === null) { notice('Amount: type dollars and cents, such as 10 or 10.50.'); return; }
  const bet = $('#bet').value;
  if ($('#undisclosed').checked) {
    const salt = secret();
    const commitment = await sha256hex(`${bet}|${amount}|${salt}`);
    localStorage.setItem(formKey(), JSON.stringify({ bet, amount, salt, commitment }));
    await act({ kind: 'undisclosed', commitment });
    $('#undisclosed').checked = false;
  } else {
    await act({ kind: 'wager', bet, amount });
  }
}

function connect() {
  if (S.follow) S.follow.close();
  S.follow = follow(`/api/tournaments/${S.id}/ws`, (m) => {
    S.msg = m;
    if (m.now_ms) S.offset = m.now_ms - Date.now();
    render();
  }, (status) => { $('#conn').dataset.state = status; $('#conn').textContent = status; });
}

async function start() {
  if (!S.id) {
    try {
      const list = await api('/api/tournaments');
      S.id = list.length ? list[list.length - 1].tournament : null;
    } catch (e) { fail(e); }
  }
  $('#board-link').href = `${BASE}/leaderboard?t=${S.id || ''}`;
  if (!auth.signedIn) { show('view-login'); return; }
  $('#who').hidden = false;
  $('#user-name').textContent = auth.user.name;
  show('view-t');
  if (!S.id) { $('#t-name').textContent = 'No tournament is published yet.'; return; }
  try {
    const t = await api(`/api/tournaments/${S.id}`);
    $('#conditions').textContent = t.conditions;
  } catch (e) { fail(e); }
  connect();
}

$('#login-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  try {
    await login($('#login-name').value, $('#login-password').value);
    $('#login-error').textContent = '';
    start();
  } catch (e) {
    $('#login-error').textContent = e.message;
  }
});
$('#logout').addEventListener('click', async () => { await logout(); location.reload(); });
$('#act-form').addEventListener('submit', onWager);
$('#pass').addEventListener('click', () => act({ kind: 'pass' }));
$('#enter').addEventListener('click', async () => {
  try { await api(`/api/tournaments/${S.id}/enter`, { method: 'POST', body: {} }); notice('You are entered.', 'ok'); } catch (e) { fail(e); }
});
$('#withdraw').addEventListener('click', async () => {
  try { await api(`/api/tournaments/${S.id}/withdraw`, { method: 'POST', body: {} }); notice('You have withdrawn; the fee is refunded.', 'ok'); } catch (e) { fail(e); }
});
setInterval(tick, 500);
start();
