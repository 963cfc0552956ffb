// The player's page: sign in, the lobby, and one table (layout, chips and the
// bet slip, cards with the squeeze, result and payouts, balance and history,
// the roads board). Plain ES module, no build step. Everything shown comes from
// the server: money is integer minor units shown with money(), roads are drawn
// at the server's positions, and the countdown is corrected by the server's
// clock (now_ms).

import {
  BASE, auth, api, login, logout, newKey, money, cardParts, cardFace, POSITIONS, followTable, esc, words, playerWords,
  phaseWords, shortHash, cardPoints, roadsBoardHtml, bigRoadHtml, beadPlateHtml, askMarksHtml, dealingWords, paysWords, $
} from '/assets/common.js';
import { play, setSound, soundOn } from '/assets/sound.js';
import { setUpLimits, startSession, endSession, noteBalance } from '/assets/limits.js';
import { tr, trn, languages, language, setLanguage, useSavedLanguage } from '/assets/i18n.js';
import { coupNet } from '/assets/felt-net.js';


// ---------------------------------------------------------------------------
// State

// Framed by the several-tables page (`/multi`): that page has the brand,
// the language and the way out, so a framed table shows its table and money.
if (window.self !== window.top) document.documentElement.classList.add('framed');

const S = {
  tableId: null,
  follow: null,
  lobbyTimer: null,
  t: null, // the latest TableView
  skew: 0, // server clock minus ours (ms)
  configKey: '',
  roadsKey: '',
  chip: null, // selected chip value (minor units)
  pending: new Map(), // bet id -> minor units on the slip, not yet sent
  pendingKey: null, // idempotency key kept only to retry a slip that did not reach the server
  mine: new Map(), // coup -> [WagerLine]
  shown: null, // the coup on the felt: {coup, cards, result, void, out}
  slotState: {}, // position -> 'empty' | 'down' | 'up' | 'held'
  peel: {}, // position -> 0..1 (the squeeze)
  peelFrom: {}, // position -> the card's edge being peeled: top, bottom, left or right
  squeezeSince: null, // { key, at }: when this hand went out to its squeezer
  exposed: { coup: null, positions: new Set() }, // cards this coup shown to everyone (not just to us)
  countdown: { coup: null, total: 0 },
  busy: false,
  historyTimer: null,
  withdrawArmed: null, // the timer of an armed "Withdraw bets" (pressed once)
  undo: [], // [bet, minor units] put on the slip, latest last
  turnedAt: 0, // when (performance.now) a card last turned face up
  resultTimer: null,
};

const MAIN_BETS = ['player', 'tie', 'banker'];
const SIDE_OF = (pos) => (pos.startsWith('player') ? 'player' : 'banker');

// ---------------------------------------------------------------------------
// Notices (aria-live), balance, routing

/** A notice; with `rule`, the rule that refused is one tap away. */
function notify(text, kind = 'error', rule = null) {
  const box = $('#notices');
  if ([...box.children].some((n) => n.dataset.text === text)) return;
  const p = document.createElement('div');
  p.dataset.text = text;
  p.className = `notice ${kind}`;
  p.dataset.kind = kind;
  const why = rule ? `<details class="notice-rule"><summary>${esc(tr('notice.rule'))}</summary>${esc(rule)}</details>` : '';
  p.innerHTML = `<span>${esc(text)}${why}</span><button type="button" class="dismiss" aria-label="${esc(tr('notice.dismiss'))}">×</button>`;
  p.querySelector('button').addEventListener('click', () => p.remove());
  box.append(p);
  while (box.children.length > 4) box.firstElementChild.remove();
  setTimeout(() => p.remove(), kind === 'error' ? 15000 : 4000);
}

function setBalance(balance, available) {
  for (const [id, v] of [['balance', balance], ['available', available]]) {
    if (v === null || v === undefined) continue;
    const el = $(`#${id}`);
    el.textContent = money(v);
    el.dataset.minor = String(v);
  }
  if (balance !== null && balance !== undefined) noteBalance(balance);
}

/** At a partition of a casino (`/p/NAME/`), the player's money at the
 * casino's bank beside this partition's wallet; elsewhere there is none. */
function setBank(bank) {
  const box = $('#bank-box');
  box.hidden = bank === null || bank === undefined;
  if (box.hidden) return;
  $('#bank').textContent = money(bank);
  $('#bank').dataset.minor = String(bank);
}

function show(view) {
  for (const v of ['login', 'lobby', 'table']) $(`#view-${v}`).hidden = v !== view;
  const user = auth.user;
  $('#who').hidden = !user;
  if (user) $('#user-name').textContent = `${user.name}${user.role !== 'player' ? ` (${user.role})` : ''}`;
  $('#btn-limits').hidden = !user || user.role !== 'player';
}

function leaveTable() {
  if (S.follow) S.follow.close();
  S.follow = null;
  S.tableId = null;
  S.t = null;
  $('#conn').hidden = true;
}

function route() {
  clearInterval(S.lobbyTimer);
  const m = /table=(\d+)/.exec(location.hash);
  if (!auth.signedIn) {
    leaveTable();
    showLogin();
  } else if (m) {
    openTable(Number(m[1]));
  } else {
    leaveTable();
    showLobby();
  }
}

async function refreshMe({ quiet = false } = {}) {
  try {
    const me = await api('/api/me');
    setBalance(me.balance, me.available);
    setBank(me.bank);
    return true;
  } catch (e) {
    if (e.status === 401) {
      auth.clear();
      notify(tr('session.ended'));
      route();
      return false;
    }
    if (!(quiet && e.status === 0)) notify(e.message, 'error', e.rule);
    return true;
  }
}

// ---------------------------------------------------------------------------
// Sign in

function showLogin() {
  show('login');
  $('#login-name').focus();
}

$('#login-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const name = $('#login-name').value.trim();
  const password = $('#login-password').value;
  const err = $('#login-error');
  err.textContent = '';
  if (!name || !password) {
    err.textContent = tr('login.missing');
    return;
  }
  const button = ev.target.querySelector('button[type=submit]');
  button.disabled = true;
  try {
    await login(name, password);
    startSession('');
    $('#login-password').value = '';
    await refreshMe();
    route();
  } catch (e) {
    err.textContent = e.status === 401 || e.status === 403
      ? tr('login.wrong')
      : e.message;
  } finally {
    button.disabled = false;
  }
});

async function signOut() {
  leaveTable();
  endSession();
  await logout();
  setBalance('', '');
  location.hash = '';
  route();
}

$('#logout').addEventListener('click', signOut);
setUpLimits({ onLeave: signOut });

// ---------------------------------------------------------------------------
// Lobby

function limitsText(t) {
  const parts = [tr('lobby.min', { amount: money(t.min) }), tr('lobby.max', { amount: money(t.max) })];
  parts.push(t.differential === null ? tr('lobby.no_diff') : tr('lobby.diff', { amount: money(t.differential) }));
  return parts.join(' · ');
}

/** How many of the last results the lobby's bar shows. */
const LAST_RESULTS = 12;

/** The last results of the shoe, oldest first, as beads (issue 49: the
 * last-results bar commercial lobbies have); none before the first coup. */
function lastResults(t) {
  const last = (t.results || '').slice(-LAST_RESULTS).split('').filter(Boolean);
  if (!last.length) return '';
  const label = tr('lobby.last_results', { list: last.map((r) => tr(`road.${r}`)).join(', ') });
  return `<div class="last-results" role="img" data-testid="last-results-${t.id}" data-results="${esc(last.join(''))}" aria-label="${esc(label)}">${
    last.map((r) => `<span class="mark bead ${esc(r)}">${esc(tr(`mark.${r}`))}</span>`).join('')}</div>`;
}

function lobbyCard(t) {
  const mode = t.mode === 'live' ? tr('mode.live') : tr('mode.rng');
  return `<li class="lobby-card panel" data-testid="lobby-table-${t.id}" data-phase="${esc(t.phase)}">
    <div class="lobby-top">
      <h2>${esc(t.name)}</h2>
      <span class="pill phase-${esc(t.phase)}">${esc(t.open ? phaseWords(t.phase) : tr('closed'))}</span>
    </div>
    <p class="sub">${esc(t.rulebook_title)}</p>
    <p>${esc(t.variant_title)} · ${esc(mode)} · ${esc(tr('lobby.dealing', { dealing: dealingWords(t.dealing), decks: t.decks }))}</p>
    <p class="limits-line">${esc(limitsText(t))}${t.announced_minimum ? esc(tr('lobby.rising', { amount: money(t.announced_minimum[0]) })) : ''}</p>
    <p class="lobby-players" data-testid="players-${t.id}" data-players="${esc(String(t.players ?? 0))}" title="${esc(tr('lobby.players_title'))}">${esc(trn('lobby.players', t.players ?? 0))}</p>
    ${lastResults(t)}
    <div class="mini-road" aria-label="${esc(tr('lobby.road_label'))}">${bigRoadHtml(t.roads && t.roads.big_road, { lastCols: 14, title: trn('road.big_n', (t.results || '').length) })}</div>
    <a class="btn primary join" href="#table=${t.id}" data-testid="join-${t.id}">${esc(tr('lobby.play', { name: t.name }))}</a>
  </li>`;
}

async function showLobby() {
  show('lobby');
  const load = async () => {
    try {
      const r = await api('/api/tables');
      const list = $('#lobby-list');
      const focused = document.activeElement && document.activeElement.dataset.testid;
      // A table closed for good stays in the records, not in the lobby.
      list.innerHTML = r.tables.filter((t) => !t.closed).map(lobbyCard).join('');
      scrollRoadsToEnd(list);
      if (focused) list.querySelector(`[data-testid="${focused}"]`)?.focus();
      const role = auth.user && auth.user.role;
      $('#lobby-note').textContent = role && role !== 'player'
        ? tr('lobby.staff', { role })
        : tr('lobby.choose');
    } catch (e) {
      notify(e.message, 'error', e.rule);
    }
  };
  await load();
  refreshMe();
  S.lobbyTimer = setInterval(load, 3000);
}

// ---------------------------------------------------------------------------
// The table: built once per configuration

function payText(line) {
  return `${words(line.outcome)} ${paysWords(line.pays)}`;
}

/** The standard denominations a casino's chips come in, in minor units:
 * $1, $5, $25, $100, $500, $1K, $5K, $25K, $100K, $500K, $1M. */
const DENOMINATIONS = [100, 500, 2500, 10000, 50000, 100000, 500000, 2500000, 10000000, 50000000, 100000000];

/** The most chips the tray holds: seven fit a phone's row. */
const TRAY = 7;

/** The chip tray, scaled to the table's limits: the smallest amount a side
 * bet or the table takes, the table minimum and the maximum (a maximum bet
 * is one chip, not fifty), then the standard denominations between them,
 * the smallest first, so that a $10 table offers $25 and $100 (issue 49: the
 * tray skipped them for the largest chips). Each a whole number of the
 * table's chip. */
function chipValues(t) {
  const smallest = Math.min(t.min, ...t.offers.map((o) => o.min));
  const all = [...new Set([smallest, t.min, t.max, ...DENOMINATIONS])]
    .filter((c) => c % t.chip === 0 && c >= smallest && c <= t.max)
    .sort((a, b) => a - b);
  if (!all.length) return [t.min];
  const keep = new Set([all[0], t.min, all[all.length - 1]]);
  for (const c of all) {
    if (keep.size >= TRAY) break;
    keep.add(c);
  }
  return [...keep].sort((a, b) => a - b);
}

/** A chip's face: the amount as a chip prints it, short enough to fit
 * ($1, $2.50, $25, $1K, $2.5K, $1M); the full amount is its label. */
function chipFace(minor) {
  const dollars = minor / 100;
  const short = (n, unit) => `$${Number.isInteger(n) ? n : n.toFixed(1).replace(/\.0$/, '')}${unit}`;
  if (dollars >= 1e6 && (dollars / 1e5) % 1 === 0) return short(dollars / 1e6, 'M');
  if (dollars >= 1000 && (dollars / 100) % 1 === 0) return short(dollars / 1000, 'K');
  return Number.isInteger(dollars) ? `$${dollars}` : `$${dollars.toFixed(2)}`;
}

/** A chip's accessible name: the full amount, beginning with its face
 * where the face is shortened ("$1K, $1,000.00 chip"), so that a voice
 * user can say what they see. */
function chipLabel(minor) {
  const full = tr('chip.label', { amount: money(minor) });
  const face = chipFace(minor);
  return money(minor).replace(/\.00$/, '') === face ? full : `${face}, ${full}`;
}

/** What a change of the table's limits changed, in the player's words
 * ("Banker maximum: $5,000.00 → $3,000.00"): the table's minimum, maximum
 * and differential, and each wager's own (issue 49: a lowered maximum
 * changed the panel without a word). None for another table or a first view. */
function limitChanges(before, after) {
  if (!before || before.id !== after.id) return [];
  const out = [];
  const shown = (x) => (x === null || x === undefined ? tr('limits.none') : money(x));
  const line = (what, x, y) => { if (x !== y) out.push(tr('notice.limit_line', { what, from: shown(x), to: shown(y) })); };
  line(tr('limits.minimum'), before.min, after.min);
  line(tr('limits.maximum'), before.max, after.max);
  line(tr('limits.differential'), before.differential, after.differential);
  for (const o of after.offers) {
    const was = before.offers.find((x) => x.bet === o.bet);
    if (!was) continue;
    line(tr('notice.bet_min', { bet: words(o.bet) }), was.min, o.min);
    line(tr('notice.bet_max', { bet: words(o.bet) }), was.max, o.max);
  }
  return out;
}

function configKey(t) {
  return JSON.stringify([t.id, t.chip, t.min, t.max, t.differential, t.announced_minimum, t.offers, t.personal_limits, t.ante]);
}

function buildTable(t) {
  $('#t-name').textContent = t.name;
  $('#t-sub').textContent = `${t.rulebook_title} · ${t.variant_title} · ${t.mode === 'live' ? tr('mode.live') : tr('mode.rng')} · ${tr('lobby.dealing', { dealing: dealingWords(t.dealing), decks: t.decks })}`;
  document.title = `${t.name} · Baccarat`;

  // The limits sign.
  const rows = [
    [tr('limits.minimum'), money(t.min), 'limit-min'],
    [tr('limits.maximum'), money(t.max), 'limit-max'],
    [tr('limits.chip'), money(t.chip), 'limit-chip'],
    [tr('limits.differential'), t.differential === null ? tr('limits.none') : money(t.differential), 'limit-differential'],
  ];
  if (t.announced_minimum) {
    const [min, at] = t.announced_minimum;
    rows.push([tr('limits.min_from'), tr('limits.min_from_value', { amount: money(min), time: new Date(at - S.skew).toLocaleTimeString() }), 'limit-announced']);
  }
  // A player's own limits, on a sign for them (NSW 6.8).
  const me = auth.user;
  const own = me && (t.personal_limits || []).find(([p]) => p === me.id);
  if (own) rows.push([tr('limits.yours'), `${money(own[1])}–${money(own[2])}`, 'limit-personal']);
  if (t.ante) {
    // The Ante Up sign (AU 14.3-14.4).
    const ante = t.ante.waived_at !== null
      ? tr('limits.ante_waived', { amount: money(t.ante.amount), from: money(t.ante.waived_at) })
      : tr('limits.ante_value', { amount: money(t.ante.amount) });
    rows.push([tr('limits.ante'), ante, 'limit-ante']);
  }
  $('#limits').innerHTML = rows.map(([k, v, id]) => `<div><dt>${esc(k)}</dt><dd data-testid="${id}">${esc(v)}</dd></div>`).join('');
  $('#help-link').href = `${BASE}/help?table=${t.id}`;

  // The layout: main wagers first (Player, Tie, Banker), then the side bets.
  const offers = [...t.offers].sort((a, b) => {
    const ia = MAIN_BETS.indexOf(a.bet), ib = MAIN_BETS.indexOf(b.bet);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  const spot = (o) => {
    const main = MAIN_BETS.includes(o.bet);
    const lim = o.min === t.min && o.max === t.max ? '' : `<span class="spot-limits">${esc(money(o.min))}–${esc(money(o.max))}</span>`;
    return `<button type="button" class="spot ${main ? 'main' : 'side'} bet-${esc(o.bet)}" data-bet="${esc(o.bet)}" data-testid="spot-${esc(o.bet)}" title="${esc(o.rule)}">
      <span class="spot-name">${esc(words(o.bet))}</span>
      <span class="spot-pays">${o.lines.map((l) => `<span>${esc(payText(l))}</span>`).join('')}</span>
      ${lim}
      <span class="spot-stake"><span class="on" data-testid="spot-${esc(o.bet)}-placed"></span><span class="slip" data-testid="spot-${esc(o.bet)}-pending"></span></span>
    </button>`;
  };
  $('#layout').innerHTML = `<div class="spots-main">${offers.filter((o) => MAIN_BETS.includes(o.bet)).map(spot).join('')}</div>`
    + `<div class="spots-side">${offers.filter((o) => !MAIN_BETS.includes(o.bet)).map(spot).join('')}</div>`;

  // The chips.
  const values = chipValues(t);
  if (!values.includes(S.chip)) S.chip = values.find((v) => v >= t.min) ?? values[0];
  $('#chips').innerHTML = values.map((v, i) => `<button type="button" class="chip chip-${i}" data-minor="${v}" data-testid="chip-${v}"
    aria-pressed="${v === S.chip}" aria-label="${esc(chipLabel(v))}">${esc(chipFace(v))}</button>`).join('');

  // The card slots: three a hand.
  for (const side of ['player', 'banker']) {
    $(`#cards-${side}`).innerHTML = POSITIONS.filter(([p]) => SIDE_OF(p) === side).map(([p]) => `
      <div class="card-slot ${p.endsWith('3') ? 'third' : ''}" data-testid="card-${p}" data-position="${p}" data-card="" data-state="empty" role="img" aria-label="${esc(tr(`pos.${p}`))}: ${esc(tr('card.not_dealt'))}">
        <div class="card"><div class="card-front"><span class="face"></span><span class="peel-cover" aria-hidden="true"></span></div><div class="card-back"></div></div>
      </div>`).join('');
  }
  S.slotState = {};
}

$('#layout').addEventListener('click', (ev) => {
  const spot = ev.target.closest('.spot');
  if (!spot || !S.t) return;
  if (auth.user?.role !== 'player') return notify(tr('only_players'));
  if (S.t.phase !== 'betting') return notify(tr('betting_not_open', { phase: phaseWords(S.t.phase).toLowerCase() }), 'info');
  const bet = spot.dataset.bet;
  const why = overLimit(bet, S.chip);
  if (why) return notify(why);
  S.pending.set(bet, (S.pending.get(bet) || 0) + S.chip);
  S.undo.push([bet, S.chip]);
  S.lastSpot = bet;
  play('chip');
  S.pendingKey = null;
  renderStakes();
});

$('#chips').addEventListener('click', (ev) => {
  const chip = ev.target.closest('.chip');
  if (!chip) return;
  S.chip = Number(chip.dataset.minor);
  for (const c of $('#chips').children) c.setAttribute('aria-pressed', String(c === chip));
});

// ---------------------------------------------------------------------------
// The table: opening and following

async function openTable(id) {
  if (S.tableId === id && S.follow) return;
  leaveTable();
  show('table');
  Object.assign(S, {
    tableId: id, t: null, configKey: '', roadsKey: '', shown: null, slotState: {}, peel: {}, peelFrom: {}, exposed: { coup: null, positions: new Set() },
    pending: new Map(), pendingKey: null, mine: new Map(),
  });
  $('#t-name').textContent = tr('table.n', { id });
  $('#conn').hidden = false;
  setConn('connecting');
  if (!(await refreshMe())) return;
  S.follow = followTable(id, onMessage, (status) => {
    const was = $('#conn').dataset.state;
    setConn(status);
    // Once per outage: is the session still good? (The socket retries by itself.)
    if (status === 'reconnecting' && was !== 'reconnecting') refreshMe({ quiet: true });
  });
  loadHistory();
}

function setConn(status) {
  const el = $('#conn');
  el.dataset.state = status;
  el.textContent = status === 'live' ? tr('conn.live') : status === 'reconnecting' ? tr('conn.reconnecting') : tr('conn.connecting');
  el.setAttribute('aria-label', tr('conn.label', { state: el.textContent }));
  $('#view-table').classList.toggle('stale', status === 'reconnecting');
}

function onMessage(msg) {
  const t = msg.table;
  if (!t || t.id !== S.tableId) return;
  if (typeof msg.now_ms === 'number') S.skew = msg.now_ms - Date.now();
  if (typeof msg.squeeze_ms === 'number') S.squeezeMs = msg.squeeze_ms;
  if (msg.balance !== null && msg.balance !== undefined) setBalance(msg.balance, msg.available);
  const prev = S.t;
  S.t = t;
  const key = configKey(t);
  if (key !== S.configKey) {
    S.configKey = key;
    buildTable(t);
    const changed = limitChanges(prev, t);
    if (changed.length) notify(tr('notice.limits_changed', { changes: changed.join('; ') }), 'info');
  }
  if (prev && prev.coup !== t.coup) newCoup(prev);
  // Chips never confirmed do not ride into the deal or the next coup: when
  // betting closes the slip is cleared, and the player told.
  if (prev && prev.phase === 'betting' && t.phase !== 'betting' && S.pending.size) {
    const total = [...S.pending.values()].reduce((a, b) => a + b, 0);
    S.pending.clear();
    S.undo = [];
    S.pendingKey = null;
    notify(tr('slip.taken_back', { amount: money(total) }), 'info');
  }
  // A card we see while its hand is out with us may be ours alone; any other
  // card we see is exposed to the table (a hand out again for a third card keeps
  // its first two face up).
  if (S.exposed.coup !== t.coup) S.exposed = { coup: t.coup, positions: new Set() };
  const me = auth.user && auth.user.id;
  for (const [pos, card] of t.cards) {
    if (card && !(t.out && t.out.player === me && t.out.side === SIDE_OF(pos))) S.exposed.positions.add(pos);
  }
  if (msg.mine && msg.mine.coup !== null && msg.mine.coup !== undefined) {
    const before = S.mine.get(msg.mine.coup) || [];
    // A supervisor's decision on a wager that waited for it reaches the
    // player as it is made.
    for (const w of msg.mine.wagers) {
      const was = before.find((b) => b.wager === w.wager);
      if (!was) continue;
      const what = tr('wager.yours', { bet: words(w.bet), amount: money(w.amount) });
      if (was.needs_approval && !w.needs_approval && w.status === 'open') notify(tr('wager.approved', { what }), 'info');
      if (was.status === 'open' && w.status === 'returned') notify(tr('wager.returned', { what }), 'error', w.rule);
    }
    S.mine.set(msg.mine.coup, msg.mine.wagers);
    const settled = (ws) => ws.filter((w) => w.status === 'settled').length;
    if (settled(msg.mine.wagers) > settled(before)) loadHistorySoon();
  }
  // The felt shows this coup once it has cards or a result; until then the last one.
  if (t.cards.length || msg.result || msg.void) {
    if (S.shown && S.shown.coup !== t.coup) { S.peel = {}; S.peelFrom = {}; }
    // Once the coup is complete its cards come with the result (the table's own
    // list is cleared when the coup closes).
    const cards = msg.result && Array.isArray(msg.result.cards) && msg.result.cards.length ? msg.result.cards
      : t.cards.length ? t.cards : (S.shown && S.shown.coup === t.coup ? S.shown.cards : []);
    S.shown = { coup: t.coup, cards, result: msg.result, void: msg.void, out: t.out };
  } else if (S.shown && S.shown.coup === t.coup) {
    S.shown = null; // the coup's cards were taken back (e.g. a misdeal reconstruction)
  }
  if (prev && prev.results.length + 1 === t.results.length && S.shown && !S.shown.result && S.shown.coup === prev.coup) {
    // The result came and went between two pushes: the roads still tell the winner.
    S.shown.result = { winner: { B: 'banker', P: 'player', T: 'tie' }[t.last], player: null, banker: null };
  }
  render();
}

function newCoup(prev) {
  // Remember last coup's slip for Rebet; and if its settlement was never seen,
  // read it from the history.
  const lines = (S.mine.get(prev.coup) || []).filter((w) => w.status !== 'withdrawn');
  if (lines.length) {
    const slip = new Map();
    for (const w of lines) slip.set(w.bet, (slip.get(w.bet) || 0) + w.amount);
    sessionStorage.setItem(`baccarat.rebet.${S.tableId}`, JSON.stringify([...slip]));
    if (lines.some((w) => w.status === 'open')) loadHistory(prev.coup);
  }
  S.countdown = { coup: null, total: 0 };
}

// ---------------------------------------------------------------------------
// Rendering one push

function render() {
  const t = S.t;
  $('#t-phase').textContent = t.open ? phaseWords(t.phase) : tr('closed_phase', { phase: phaseWords(t.phase) });
  $('#t-phase').dataset.phase = t.phase;
  Object.assign($('#view-table').dataset, { coup: String(t.coup), phase: t.phase, shoe: String(t.shoe) });
  renderCards();
  renderSqueeze();
  renderResult();
  renderStakes();
  renderPayouts();
  renderShoe();
  renderRoads();
  tick();
}

function renderCards() {
  const shown = S.shown;
  const me = auth.user && auth.user.id;
  const current = shown && shown.coup === S.t.coup;
  const cards = new Map((shown ? shown.cards : []).map(([p, c]) => [p, c]));
  const out = current ? S.t.out : null;
  for (const [pos] of POSITIONS) {
    const label = tr(`pos.${pos}`);
    const slot = document.querySelector(`[data-testid="card-${pos}"]`);
    if (!slot) continue;
    const has = cards.has(pos);
    const card = cards.get(pos) || null;
    let state = 'empty';
    if (has && !card) state = 'down';
    else if (card && out && out.player === me && out.side === SIDE_OF(pos) && !S.exposed.positions.has(pos)) state = 'held';
    else if (card) state = 'up';
    const before = S.slotState[pos] || 'empty';
    slot.dataset.card = card || '';
    slot.style.setProperty('--peel', String(S.peel[pos] || 0));
    slot.dataset.peelFrom = S.peelFrom[pos] || 'top';
    if (card) {
      const face = slot.querySelector('.face');
      if (face.dataset.card !== card) {
        face.innerHTML = cardFace(card);
        face.dataset.card = card;
      }
      slot.classList.toggle('red', cardParts(card).red);
    }
    const what = state === 'empty' ? tr('card.not_dealt') : state === 'down' ? tr('card.face_down')
      : state === 'held' ? tr('card.held', { card: cardParts(card).label }) : cardParts(card).label;
    slot.setAttribute('aria-label', `${label}: ${what}`);
    if (state === 'up' && before === 'empty' && current) {
      // Dealt face up: turn it over from its back.
      slot.dataset.state = 'down';
      void slot.offsetWidth;
    }
    if (state === 'up' && before !== 'up' && current) {
      S.turnedAt = performance.now();
      play('card');
    }
    slot.dataset.state = state;
    S.slotState[pos] = state;
  }
  $('#hands').classList.toggle('previous', !!shown && !current);
  // A hand this player holds takes the width of the felt, its cards large
  // and inside the screen (issue 49: the held Banker hand ran off a phone).
  let holding = false;
  for (const hand of document.querySelectorAll('#hands .hand')) {
    const held = !!hand.querySelector('.card-slot[data-state="held"]');
    hand.classList.toggle('held-hand', held);
    holding = holding || held;
  }
  $('#hands').classList.toggle('squeezing', holding);
  $('#coup-label').textContent = !shown ? (S.t.phase === 'betting' ? tr('coup.place') : '')
    : current ? tr('coup.n', { n: shown.coup }) : tr('coup.last', { last: shown.coup, next: S.t.coup });
  // Running totals of the cards everyone can see; the result's totals once known.
  for (const side of ['player', 'banker']) {
    let total = shown && shown.result && shown.result[side] !== null && shown.result[side] !== undefined ? shown.result[side] : null;
    if (total === null) {
      const up = POSITIONS.filter(([p]) => SIDE_OF(p) === side && S.slotState[p] === 'up').map(([p]) => cardPoints(cards.get(p)));
      total = up.length ? up.reduce((a, b) => a + b, 0) % 10 : null;
    }
    $(`#total-${side}`).textContent = total === null ? '' : String(total);
  }
}

function renderSqueeze() {
  const t = S.t;
  const box = $('#squeeze-box');
  const out = t.out;
  box.hidden = !out;
  if (!out) return;
  const mine = auth.user && out.player === auth.user.id;
  const hand = tr('squeeze.hand', { side: words(out.side) });
  $('#squeeze-text').textContent = mine
    ? tr('squeeze.mine', { hand })
    : tr('squeeze.other', { name: out.name ? out.name : tr('player_n', { id: out.player }), hand });
  const key = `${t.coup}:${out.side}:${out.player}`;
  // From when the hand went out, on the server's clock (a page loaded
  // mid-squeeze shows the time really left).
  if (typeof out.since_ms === 'number') S.squeezeSince = { key, at: out.since_ms - S.skew };
  else if (!S.squeezeSince || S.squeezeSince.key !== key) S.squeezeSince = { key, at: Date.now() };
  squeezeTick();
  $('#squeeze-actions').hidden = !mine;
  box.dataset.mine = String(!!mine);
}

/** How long a card takes to turn over (the `.card` transition in
 * style.css): the result waits for the last card to finish turning. */
const TURN_MS = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : 600;

function renderResult() {
  const el = $('#result');
  const shown = S.shown;
  el.dataset.winner = '';
  el.dataset.coup = shown ? String(shown.coup) : '';
  markWinners(null);
  renderWin(null);
  if (!shown) { el.textContent = ''; return; }
  if (shown.void) {
    el.textContent = tr('result.void', { coup: shown.coup, why: shown.void });
    el.dataset.winner = 'void';
    return;
  }
  const r = shown.result;
  if (!r || !r.winner) { el.textContent = ''; return; }
  // A card still turning over: the result comes when it has turned.
  const turning = TURN_MS - (performance.now() - (S.turnedAt || -Infinity));
  if (turning > 0) {
    el.textContent = '';
    clearTimeout(S.resultTimer);
    S.resultTimer = setTimeout(renderResult, turning + 20);
    return;
  }
  el.dataset.winner = r.winner;
  // On the page's own clock, for a test to read: when the last card turned,
  // and when the result came (an observer's clock runs late on a busy machine).
  el.dataset.turnedAt = String(Math.round(S.turnedAt || 0));
  el.dataset.shownAt = String(Math.round(performance.now()));
  const scored = r.player !== null && r.player !== undefined;
  const [a, b] = r.winner === 'banker' ? [r.banker, r.player] : [r.player, r.banker];
  el.textContent = r.winner === 'tie' ? (scored ? tr('result.tie_score', { n: r.player }) : tr('result.tie'))
    : scored ? tr('result.wins_score', { side: words(r.winner), a, b }) : tr('result.wins', { side: words(r.winner) });
  markWinners(r.winner);
  renderWin(shown.coup);
}

/** The winning spot glows while the result is on the felt. */
function markWinners(winner) {
  for (const spot of document.querySelectorAll('.spot')) spot.classList.toggle('won', !!winner && spot.dataset.bet === winner);
}

/** The player's net on the coup, on the felt: what the settled wagers won,
 * less what they lost and the commission (stakes returned are neither);
 * a net of nothing after a win says what was won and lost (`coupNet`). */
function renderWin(coup) {
  const el = $('#felt-win');
  const mine = coup === null ? [] : (S.mine.get(coup) || []).filter((w) => w.status === 'settled' && w.settlement);
  if (!mine.length) { el.hidden = true; el.dataset.net = ''; el.dataset.kind = ''; return; }
  const n = coupNet(mine);
  const net = n.net;
  el.hidden = false;
  el.dataset.net = String(net);
  el.dataset.kind = n.kind;
  el.classList.toggle('up', net > 0);
  // Every spot the player won on glows with the winning hand's, a side bet
  // too (issue 49: a pair won showed only in the list).
  for (const w of mine) {
    if (w.settlement.won <= 0) continue;
    const spot = document.querySelector(`.spot[data-bet="${CSS.escape(w.bet)}"]`);
    if (spot) spot.classList.add('won');
  }
  if (net > 0 && S.chimed !== coup) {
    S.chimed = coup;
    play('win');
    payChips(mine.filter((w) => w.settlement.won > 0).map((w) => w.bet));
  }
  el.textContent = n.kind === 'won' ? tr('win.won', { amount: money(net) })
    : n.kind === 'lost' ? tr('win.lost', { amount: money(-net) })
      : n.kind === 'even' ? tr('win.even', { won: money(n.won), lost: money(n.lost) }) : tr('win.returned');
}

/** A win is paid as a dealer pays it: a few chips slide from the dealer's
 * side of the felt to each winning spot (none where the player asked for
 * less motion). Each is noted in `window.__winChips` for the browser tests. */
function payChips(bets) {
  if (TURN_MS === 0) return; // prefers-reduced-motion
  const felt = $('#felt');
  const f = felt.getBoundingClientRect();
  for (const bet of new Set(bets)) {
    const spot = document.querySelector(`.spot[data-bet="${CSS.escape(bet)}"]`);
    if (!spot) continue;
    const r = spot.getBoundingClientRect();
    for (let i = 0; i < 3; i++) {
      const chip = document.createElement('span');
      chip.className = 'win-chip';
      chip.setAttribute('aria-hidden', 'true');
      chip.style.setProperty('--dx', `${r.left - f.left + r.width / 2 - f.width / 2 + (i - 1) * 12}px`);
      chip.style.setProperty('--dy', `${r.top - f.top + r.height / 2}px`);
      chip.style.animationDelay = `${i * 90}ms`;
      chip.dataset.bet = bet;
      felt.append(chip);
      setTimeout(() => chip.remove(), 1600);
      (window.__winChips = window.__winChips || []).push(bet);
    }
  }
}

/** Why another chip of `chip` on `bet` would be refused, before it is sent:
 * over the spot's maximum with what is already on it and on the slip, or
 * over the available balance with the whole slip (antes included). The
 * server checks both again; this keeps a slip from being refused whole. */
function overLimit(bet, chip) {
  const offer = (S.t.offers || []).find((o) => o.bet === bet);
  const on = openWagers().filter((w) => w.bet === bet).reduce((a, w) => a + w.amount, 0);
  const stack = (S.pending.get(bet) || 0) + chip;
  if (offer && on + stack > offer.max) {
    return tr('slip.over_max', { bet: words(offer.bet), max: money(offer.max), on: money(on + stack - chip) });
  }
  const available = spendable();
  const slip = [...S.pending].reduce((a, [b, v]) => a + v + anteFor(b, v), 0);
  const next = slip - (S.pending.get(bet) || 0) - anteFor(bet, S.pending.get(bet) || 0) + stack + anteFor(bet, stack);
  if (Number.isFinite(available) && next > available) {
    return tr('slip.over_balance', { available: money(available), need: money(next) });
  }
  return null;
}

/** What the player may stake now: the available balance, and at a
 * partition what the casino's bank holds for them too (it is brought here
 * as their bets need it). NaN until known. */
function spendable() {
  const raw = $('#available').dataset.minor;
  const available = raw === '' ? NaN : Number(raw);
  const bank = $('#bank-box').hidden ? 0 : Number($('#bank').dataset.minor || 0);
  return available + bank;
}

function openWagers() {
  return (S.mine.get(S.t.coup) || []).filter((w) => w.status === 'open');
}

function renderStakes() {
  if (!S.t) return;
  const placed = new Map();
  for (const w of openWagers()) placed.set(w.bet, (placed.get(w.bet) || 0) + w.amount);
  for (const spot of document.querySelectorAll('.spot')) {
    const bet = spot.dataset.bet;
    const on = placed.get(bet) || 0;
    const slip = S.pending.get(bet) || 0;
    const onEl = spot.querySelector('.on'), slipEl = spot.querySelector('.slip');
    onEl.textContent = on ? tr('stake.on', { amount: money(on) }) : '';
    onEl.dataset.minor = String(on);
    slipEl.textContent = slip ? tr('stake.slip', { amount: money(slip) }) : '';
    slipEl.dataset.minor = String(slip);
    spot.classList.toggle('has-chips', !!(on || slip));
  }
  const betting = S.t.phase === 'betting';
  const pendingTotal = [...S.pending.values()].reduce((a, b) => a + b, 0);
  const placedTotal = [...placed.values()].reduce((a, b) => a + b, 0);
  const antes = [...S.pending].reduce((a, [bet, amount]) => a + anteFor(bet, amount), 0);
  $('#slip-total').textContent = antes
    ? tr('slip.total_ante', { slip: money(pendingTotal), ante: money(antes), table: money(placedTotal) })
    : tr('slip.total', { slip: money(pendingTotal), table: money(placedTotal) });
  $('#btn-confirm').disabled = S.busy || !betting || !S.pending.size;
  $('#btn-clear').disabled = S.busy || !S.pending.size;
  $('#btn-undo').disabled = S.busy || !S.undo.length;
  $('#btn-double').disabled = S.busy || !betting || !(S.pending.size || placedTotal);
  $('#btn-max').disabled = S.busy || !betting || !S.lastSpot;
  $('#btn-withdraw').disabled = S.busy || !(betting && placedTotal);
  if ($('#btn-withdraw').disabled) disarmWithdraw();
  $('#btn-rebet').disabled = S.busy || !sessionStorage.getItem(`baccarat.rebet.${S.tableId}`);
  $('#layout').classList.toggle('closed', !betting);
}

/** What a settled wager was paid at, in its table's pay-table wording (the
 * spot's): the settlement names the odds as a ratio ("19:20" at an AU
 * table whose pay table prints "1:1 less 5%"). */
function paidAt(w) {
  const offer = S.t && S.t.offers.find((o) => o.bet === w.bet);
  const line = offer && offer.lines.find((l) => l.outcome === w.outcome);
  return paysWords(line ? line.pays : w.pays);
}

function payoutLine(w) {
  const s = w.settlement;
  const paid = w.pays && w.pays !== 'lose' ? paidAt(w) : null;
  const status = w.status === 'settled' ? `${words(w.outcome || 'void')}${paid ? ` · ${w.pays === 'push' ? paid : tr('pays.pays', { pays: paid })}` : ''}`
    : w.status === 'open' ? (w.needs_approval ? tr('payout.waiting') : tr('payout.on_table'))
      : w.status === 'withdrawn' ? tr('payout.withdrawn') : `${tr('payout.returned')}${w.rule ? ` (${w.rule})` : ''}`;
  const net = w.net === null || w.net === undefined ? null : w.net;
  const cls = net === null ? '' : net > 0 ? 'pos' : net < 0 ? 'neg' : 'zero';
  const grid = s ? [
    [tr('grid.stake'), money(s.stake)], [tr('grid.outcome'), words(w.outcome || '—')], [tr('grid.pays'), paid || w.pays || '—'], [tr('grid.won'), money(s.won)],
    [tr('grid.commission'), money(s.commission)], [tr('grid.returned'), money(s.returned)], [tr('grid.net'), money(net, { sign: true })],
  ] : [[tr('grid.stake'), money(w.amount)]];
  // A settled line says in a few words what happened; the settlement's every
  // figure is one tap away.
  const short = !s ? '' : net > 0 ? tr('payout.won', { amount: money(net) }) : net < 0 ? tr('payout.lost', { amount: money(-net) }) : tr('payout.stake_returned');
  const figures = `<dl class="p-grid">${grid.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>`;
  return `<li class="payout ${cls}" data-testid="payout-${w.wager}" data-wager="${w.wager}" data-bet="${esc(w.bet)}" data-status="${esc(w.status)}" data-outcome="${esc(w.outcome || '')}" data-net="${net === null ? '' : net}">
    <div class="p-head"><strong>${esc(words(w.bet))}</strong><span class="p-status">${esc(status)}</span>${net === null ? '' : `<span class="p-net">${esc(money(net, { sign: true }))}</span>`}</div>
    ${s ? `<p class="p-short" data-testid="payout-short-${w.wager}">${esc(short)}</p><details class="p-details"><summary>${esc(tr('payout.details'))}</summary>${figures}</details>` : figures}
  </li>`;
}

function renderPayouts() {
  // This coup's wagers, or the last coup that had any.
  let coup = S.t.coup;
  let lines = S.mine.get(coup) || [];
  if (!lines.length) {
    const coups = [...S.mine.keys()].filter((c) => (S.mine.get(c) || []).length).sort((a, b) => b - a);
    if (coups.length) { coup = coups[0]; lines = S.mine.get(coup); }
  }
  $('#payouts-coup').textContent = lines.length ? tr('payouts.coup', { n: coup }) : '';
  const settled = lines.filter((w) => w.status === 'settled');
  const total = settled.reduce((a, w) => a + w.net, 0);
  $('#payouts').innerHTML = lines.length
    ? lines.map(payoutLine).join('') + (settled.length ? `<li class="payout-total" data-testid="coup-net" data-net="${total}">${esc(tr('payouts.net'))} <strong>${esc(money(total, { sign: true }))}</strong></li>` : '')
    : `<li class="empty">${esc(tr('payouts.empty'))}</li>`;
}

function renderShoe() {
  const t = S.t;
  const c = t.seed_commitment;
  $('#shoe').innerHTML = `<p>${esc(t.shoe ? tr('shoe.n', { shoe: t.shoe, coup: t.coup }) : tr('shoe.none'))}</p>
    <p><label for="shoe-progress">${esc(tr('shoe.dealt'))}</label>
    <progress id="shoe-progress" max="${t.shoe_size}" value="${t.dealt}"></progress>
    <span data-testid="shoe-progress" data-dealt="${t.dealt}" data-size="${t.shoe_size}">${t.dealt} / ${t.shoe_size}</span></p>
    <p>${esc(tr('shoe.commitment'))} ${c ? `<code data-testid="seed-commitment" title="${esc(c)}" tabindex="0" aria-label="${esc(tr('shoe.commitment_label', { hash: c }))}">${esc(shortHash(c))}</code>` : esc(tr('shoe.none_yet'))}</p>
    <p><a href="${BASE}/fair?table=${t.id}" target="_blank" rel="noopener" data-testid="fair-link">${esc(tr('shoe.fair'))}</a> ${esc(tr('shoe.fair_note'))}</p>`;
}

/** The road the strip shows, the player's choice kept on this device. */
const STRIP = 'baccarat.strip';

/** The phone's road strip: the last columns of the bead plate or the big
 * road, and each outcome's ask-road marks (`askMarksHtml`, compact). */
function renderStrip() {
  const t = S.t;
  const bead = localStorage.getItem(STRIP) === 'bead';
  const r = t.roads || {};
  $('#strip-road').innerHTML = bead
    ? beadPlateHtml(r.bead_plate, { lastCols: 8 })
    : bigRoadHtml(r.big_road, { lastCols: 12, title: tr('road.big') });
  $('#strip-road').dataset.road = bead ? 'bead' : 'big';
  const sw = $('#strip-switch');
  sw.textContent = bead ? tr('strip.show_big') : tr('strip.show_bead');
  const ask = (side, marks) => `<span class="strip-ask-row" data-side="${side}"><b class="mark bead ${side === 'banker' ? 'B' : 'P'}" aria-hidden="true">${esc(tr(`mark.${side === 'banker' ? 'B' : 'P'}`))}</b>${askMarksHtml(marks)}</span>`;
  $('#strip-ask').innerHTML = `<span class="sr-only">${esc(tr('strip.ask'))}</span>${ask('banker', r.ask_banker)}${ask('player', r.ask_player)}`;
  scrollRoadsToEnd($('#strip-road'));
}

// The whole board, one tap away (a scroll: the page's hash is its route).
$('#strip-all').addEventListener('click', () => $('#roads-title').scrollIntoView({ block: 'start' }));

$('#strip-switch').addEventListener('click', () => {
  localStorage.setItem(STRIP, localStorage.getItem(STRIP) === 'bead' ? 'big' : 'bead');
  if (S.t) renderStrip();
});

function renderRoads() {
  const t = S.t;
  const key = `${t.shoe}:${t.results}`;
  if (key === S.roadsKey) return;
  S.roadsKey = key;
  renderStrip();
  $('#roads-board').innerHTML = t.roads ? roadsBoardHtml(t.roads) : '';
  drawAsk();
  scrollRoadsToEnd($('#roads-board'));
  $('#shoe-stats').innerHTML = shoeStatsHtml(t.stats);
  $('#ask-banker-marks').innerHTML = `<strong>${esc(tr('ask.if_banker'))}</strong>${askMarksHtml(t.roads && t.roads.ask_banker)}`;
  $('#ask-player-marks').innerHTML = `<strong>${esc(tr('ask.if_player'))}</strong>${askMarksHtml(t.roads && t.roads.ask_player)}`;
}

/** This shoe's results counted, as players read them beside the roads: each
 * count and its share of the coups (a whole percentage, for reading only). */
function shoeStatsHtml(st) {
  if (!st) return '';
  const share = (n) => (st.coups ? ` (${Math.round((100 * n) / st.coups)}%)` : '');
  const item = (cls, label, n, pct) =>
    `<span class="stat ${cls}" data-stat="${cls}" data-count="${n}">${esc(label)} ${n}${pct ? share(n) : ''}</span>`;
  return `<span class="stat coups" data-stat="coups" data-count="${st.coups}">${esc(trn('stats.coups', st.coups))}</span>`
    + item('banker', tr('stats.banker'), st.banker, true)
    + item('player', tr('stats.player'), st.player, true)
    + item('tie', tr('stats.tie'), st.tie, true)
    + item('player-pairs', tr('stats.player_pairs'), st.player_pairs, false)
    + item('banker-pairs', tr('stats.banker_pairs'), st.banker_pairs, false)
    + item('naturals', tr('stats.naturals'), st.naturals, false);
}

/** Scroll each road so that its latest marks are in view. */
function scrollRoadsToEnd(root) {
  for (const el of root.querySelectorAll('.road-scroll')) {
    let right = 0;
    for (const m of el.querySelectorAll('.mark')) right = Math.max(right, m.offsetLeft + m.offsetWidth);
    el.scrollLeft = Math.max(0, right + 40 - el.clientWidth);
  }
}

// The countdown, corrected for the server's clock.
function tick() {
  const t = S.t;
  const el = $('#countdown');
  if (!t || t.phase !== 'betting' || !t.closes_at_ms || $('#view-table').hidden) {
    el.hidden = true;
    return;
  }
  const left = Math.max(0, t.closes_at_ms - (Date.now() + S.skew));
  if (S.countdown.coup !== t.coup) S.countdown = { coup: t.coup, total: Math.max(left, 1000) };
  el.hidden = false;
  el.dataset.remainingMs = String(left);
  el.querySelector('.countdown-text').textContent = left > 0 ? tr('countdown', { s: Math.ceil(left / 1000) }) : tr('countdown.closing');
  el.querySelector('.countdown-bar span').style.width = `${Math.min(100, (100 * left) / S.countdown.total)}%`;
  el.classList.toggle('urgent', left < 3000);
  const auto = $('#slip-auto').checked;
  if (left < 3000 && S.pending.size && S.countdown.warned !== t.coup) {
    S.countdown.warned = t.coup;
    notify(auto ? tr('slip.warn_auto') : tr('slip.warn'), 'info');
  }
  if (auto && left > 0 && left < 1500 && S.pending.size && !S.busy && S.countdown.autoSent !== t.coup) {
    S.countdown.autoSent = t.coup;
    confirmSlip();
  }
}
setInterval(tick, 200);

// The squeeze's time, at an RNG table (a live table's dealer keeps it): when
// it runs out the dealer turns the hand over.
function squeezeTick() {
  const el = $('#squeeze-timer');
  const t = S.t;
  if (!t || !t.out || !S.squeezeMs || !S.squeezeSince || t.mode !== 'rng') {
    el.hidden = true;
    return;
  }
  const left = Math.max(0, S.squeezeMs - (Date.now() - S.squeezeSince.at));
  el.hidden = false;
  el.dataset.remainingMs = String(left);
  // A ring that empties as the time runs (issue 49: the timer was only a
  // sentence), the seconds in its middle, the sentence beside it.
  const secs = Math.ceil(left / 1000);
  el.style.setProperty('--left', (left / S.squeezeMs).toFixed(3));
  el.innerHTML = `<span class="squeeze-ring" data-testid="squeeze-ring" aria-hidden="true"><b>${secs}</b></span><span>${esc(left > 0 ? tr('squeeze.time', { s: secs }) : tr('squeeze.up'))}</span>`;
}
setInterval(squeezeTick, 200);

// ---------------------------------------------------------------------------
// Confirm, clear, rebet

/** The ante due with a wager at an Ante Up table: the sign's amount with an
 * initial wager below the waiver (AU 14.4-14.5), else nothing. */
function anteFor(bet, amount) {
  const a = S.t && S.t.ante;
  if (!a || !MAIN_BETS.includes(bet)) return 0;
  return a.waived_at !== null && amount >= a.waived_at ? 0 : a.amount;
}

async function withBusy(fn) {
  if (S.busy) return;
  S.busy = true;
  renderStakes();
  try { await fn(); } finally { S.busy = false; renderStakes(); }
}

$('#btn-confirm').addEventListener('click', () => confirmSlip());

/** Send the slip (Confirm, or the automatic confirmation before the close). */
const confirmSlip = () => withBusy(async () => {
  if (!S.pending.size || !S.t) return;
  // AU 14.5: at an Ante Up table each initial wager goes with its ante.
  const lines = [...S.pending].map(([bet, amount]) => ({ bet, amount, ante: anteFor(bet, amount) }));
  const key = S.pendingKey || (S.pendingKey = newKey('slip'));
  try {
    const r = await api(`/api/tables/${S.tableId}/wagers`, { method: 'POST', body: { wagers: lines, key } });
    S.pendingKey = null;
    S.pending.clear();
    S.undo = [];
    const placed = [], refused = [];
    (r.results || []).forEach((res, i) => {
      const l = lines[i];
      const what = `${words(l.bet)} ${money(l.amount)}`;
      if (res.result === 'wager') placed.push(what);
      else refused.push([tr('slip.not_placed', { what, why: playerWords(res.code, res.message || tr('slip.not_accepted')) }), res.rule]);
    });
    // The reply's balance is what is available (a stake held is still the
    // player's until settled): the Balance figure stays as the table shows it.
    if (r.balance !== undefined) setBalance(null, r.balance);
    if (placed.length) notify(tr('slip.placed', { list: placed.join(', ') }), 'info');
    for (const [text, rule] of refused) notify(text, 'error', rule);
  } catch (e) {
    if (e.status !== 0) S.pendingKey = null; // refused: a new slip gets a new key
    notify(e.status === 0 ? tr('slip.retry', { message: e.message }) : e.message, 'error', e.rule);
  }
});

// Sound, on or off (remembered on this device).
function renderSoundButton() {
  const on = soundOn();
  $('#btn-sound').setAttribute('aria-pressed', String(on));
  $('#btn-sound').textContent = on ? tr('sound.on') : tr('sound.off');
}
$('#btn-sound').addEventListener('click', () => {
  setSound(!soundOn());
  renderSoundButton();
});
renderSoundButton();

// The player's setting for a slip left unconfirmed: confirmed automatically
// just before betting closes, or (the default) warned at 3 s and taken back.
const AUTO_KEY = 'baccarat.autoConfirm';
$('#slip-auto').checked = localStorage.getItem(AUTO_KEY) === 'true';
$('#slip-auto').addEventListener('change', () => localStorage.setItem(AUTO_KEY, String($('#slip-auto').checked)));

// Clear takes back only the chips not confirmed yet; confirmed bets stay.
$('#btn-clear').addEventListener('click', () => {
  S.pending.clear();
  S.undo = [];
  S.pendingKey = null;
  renderStakes();
});

// Undo takes back the last chip put on the slip.
$('#btn-undo').addEventListener('click', () => {
  const last = S.undo.pop();
  if (!last) return;
  const [bet, chip] = last;
  const left = (S.pending.get(bet) || 0) - chip;
  if (left > 0) S.pending.set(bet, left);
  else S.pending.delete(bet);
  S.pendingKey = null;
  renderStakes();
});

// Max: the last spot bet on raised to the most it takes (its maximum less what
// is on it), within the available balance, in whole chip units; one Undo
// takes it back.
$('#btn-max').addEventListener('click', () => {
  if (!S.t || S.t.phase !== 'betting') return;
  const bet = S.lastSpot;
  if (!bet) return notify(tr('max.first'), 'info');
  const unit = S.t.chip || 1;
  const offer = (S.t.offers || []).find((o) => o.bet === bet);
  if (!offer) return;
  // The largest whole number of units that overLimit allows (it only grows
  // with the stack): a binary search.
  let lo = 0, hi = Math.floor(offer.max / unit);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (overLimit(bet, mid * unit)) hi = mid - 1; else lo = mid;
  }
  if (lo === 0) return notify(overLimit(bet, unit) || tr('max.no_more', { bet: words(bet) }));
  S.pending.set(bet, (S.pending.get(bet) || 0) + lo * unit);
  S.undo.push([bet, lo * unit]);
  S.pendingKey = null;
  renderStakes();
});

// Double: each stake on the slip twice over (or, with an empty slip, the
// bets on the table again as a new slip), within the limits.
$('#btn-double').addEventListener('click', () => {
  if (!S.t || S.t.phase !== 'betting') return;
  const base = S.pending.size ? new Map(S.pending)
    : openWagers().reduce((m, w) => m.set(w.bet, (m.get(w.bet) || 0) + w.amount), new Map());
  for (const [bet, amount] of base) {
    const why = overLimit(bet, amount);
    if (why) return notify(why);
  }
  for (const [bet, amount] of base) {
    S.pending.set(bet, (S.pending.get(bet) || 0) + amount);
    S.undo.push([bet, amount]);
  }
  S.pendingKey = null;
  renderStakes();
});

/** Withdrawing confirmed bets is its own action, and asks first: the first
 * press arms it (for a few seconds), the second withdraws every open bet of
 * this coup; the server refuses any the rulebook does not let go. */
function disarmWithdraw() {
  if (!S.withdrawArmed) return;
  clearTimeout(S.withdrawArmed);
  S.withdrawArmed = null;
  $('#btn-withdraw').textContent = tr('btn.withdraw');
  $('#btn-withdraw').removeAttribute('aria-pressed');
}

$('#btn-withdraw').addEventListener('click', () => {
  if (!S.withdrawArmed) {
    S.withdrawArmed = setTimeout(disarmWithdraw, 4000);
    $('#btn-withdraw').textContent = tr('withdraw.armed');
    $('#btn-withdraw').setAttribute('aria-pressed', 'true');
    return;
  }
  disarmWithdraw();
  withBusy(async () => {
    if (!S.t || S.t.phase !== 'betting') {
      notify(tr('withdraw.closed'), 'info');
      return;
    }
    for (const w of openWagers()) {
      try {
        await api(`/api/tables/${S.tableId}/withdraw`, { method: 'POST', body: { wager: w.wager } });
      } catch (e) {
        notify(tr('withdraw.failed', { what: `${words(w.bet)} ${money(w.amount)}`, message: e.message }));
      }
    }
  });
});

$('#btn-rebet').addEventListener('click', () => {
  const saved = sessionStorage.getItem(`baccarat.rebet.${S.tableId}`);
  if (!saved) return;
  S.pending = new Map(JSON.parse(saved));
  S.undo = [...S.pending];
  S.pendingKey = null;
  renderStakes();
  notify(tr('rebet.done'), 'info');
});

// ---------------------------------------------------------------------------
// The squeeze: peel the held cards (drag, or the Squeeze button), then Reveal

function heldSlots() {
  return [...document.querySelectorAll('.card-slot[data-state="held"]')];
}

function setPeel(slot, v) {
  const p = Math.max(0, Math.min(1, v));
  S.peel[slot.dataset.position] = p;
  slot.style.setProperty('--peel', String(p));
}

$('#btn-squeeze').addEventListener('click', () => {
  for (const slot of heldSlots()) setPeel(slot, (S.peel[slot.dataset.position] || 0) + 0.25);
});

$('#hands').addEventListener('pointerdown', (ev) => {
  const slot = ev.target.closest('.card-slot[data-state="held"]');
  if (!slot) return;
  ev.preventDefault();
  slot.setPointerCapture(ev.pointerId);
  // Peel from the edge nearest the pointer, away from it. The third card lies
  // sideways (turned a quarter clockwise): the edge on screen is another of
  // the card's own.
  const pos = slot.dataset.position;
  const r = slot.getBoundingClientRect();
  const fx = (ev.clientX - r.left) / (r.width || 1), fy = (ev.clientY - r.top) / (r.height || 1);
  const near = { top: fy, bottom: 1 - fy, left: fx, right: 1 - fx };
  const seen = Object.keys(near).reduce((a, b) => (near[a] <= near[b] ? a : b));
  const edge = slot.classList.contains('third') ? { right: 'top', bottom: 'right', left: 'bottom', top: 'left' }[seen] : seen;
  const p0 = (S.peelFrom[pos] || 'top') === edge ? (S.peel[pos] || 0) : 0;
  S.peelFrom[pos] = edge;
  slot.dataset.peelFrom = edge;
  const x0 = ev.clientX, y0 = ev.clientY;
  const size = (seen === 'top' || seen === 'bottom' ? r.height : r.width) || 100;
  const away = (e) => ({ top: e.clientY - y0, bottom: y0 - e.clientY, left: e.clientX - x0, right: x0 - e.clientX })[seen];
  const move = (e) => setPeel(slot, p0 + away(e) / size);
  const up = () => { slot.removeEventListener('pointermove', move); slot.removeEventListener('pointerup', up); slot.removeEventListener('pointercancel', up); };
  slot.addEventListener('pointermove', move);
  slot.addEventListener('pointerup', up);
  slot.addEventListener('pointercancel', up);
});

async function handAction(action) {
  const out = S.t && S.t.out;
  try {
    await api(`/api/tables/${S.tableId}/hand`, { method: 'POST', body: action === 'expose' && out ? { action, side: out.side } : { action } });
  } catch (e) {
    notify(e.message, 'error', e.rule);
  }
}
$('#btn-reveal').addEventListener('click', () => handAction('expose'));
$('#btn-decline').addEventListener('click', () => handAction('decline'));

// ---------------------------------------------------------------------------
// The ask-road: on hover, focus and tap; drawn in the roads too, blinking
// where the result would go (the server's positions: the page computes no road).

function drawAsk() {
  for (const el of document.querySelectorAll('#roads-board .ask-preview')) el.remove();
  const side = S.asking;
  const cells = side && S.t && S.t.roads && S.t.roads[`ask_${side}_cells`];
  if (!cells) return;
  const put = (road, cls, col, row) => {
    const grid = document.querySelector(`#roads-board .road-${road} .road-grid`);
    if (!grid) return;
    const m = document.createElement('span');
    m.className = `mark ${cls} ask-preview`;
    m.style.gridColumn = String(col + 1);
    m.style.gridRow = String(row + 1);
    m.setAttribute('aria-hidden', 'true');
    if (cls.startsWith('ring')) m.innerHTML = `<span class="letter">${esc(tr(side === 'banker' ? 'mark.B' : 'mark.P'))}</span>`;
    grid.append(m);
  };
  put('big', `ring ${side === 'banker' ? 'B' : 'P'}`, cells.col, cells.row);
  ['eye', 'small', 'roach'].forEach((kind, i) => {
    const c = cells.derived[i];
    if (c) put(kind, `d-${kind} ${c.mark}`, c.col, c.row);
  });
}

for (const side of ['banker', 'player']) {
  const btn = $(`#ask-${side}`), pop = $(`#ask-${side}-marks`);
  btn.setAttribute('aria-describedby', pop.id);
  const st = { hover: false, focus: false, pinned: false };
  const sync = () => {
    const open = st.hover || st.focus || st.pinned;
    pop.hidden = !open;
    btn.setAttribute('aria-expanded', String(open));
    S.asking = open ? side : (S.asking === side ? null : S.asking);
    drawAsk();
  };
  btn.addEventListener('mouseenter', () => { st.hover = true; sync(); });
  btn.addEventListener('mouseleave', () => { st.hover = false; sync(); });
  btn.addEventListener('focus', () => { st.focus = true; sync(); });
  btn.addEventListener('blur', () => { st.focus = false; st.pinned = false; sync(); });
  btn.addEventListener('click', () => { st.pinned = !st.pinned; sync(); });
  btn.addEventListener('keydown', (e) => { if (e.key === 'Escape') { st.pinned = st.focus = st.hover = false; sync(); } });
}

// ---------------------------------------------------------------------------
// History

function loadHistorySoon() {
  clearTimeout(S.historyTimer);
  S.historyTimer = setTimeout(() => loadHistory(), 300);
}

async function loadHistory(missedCoup = null) {
  if (!auth.signedIn || auth.user?.role !== 'player') return;
  try {
    const r = await api('/api/me/history');
    const rows = r.history || [];
    if (missedCoup !== null) {
      // Settlement of a coup whose result passed between two pushes.
      const lines = rows.filter((h) => h.table === S.tableId && h.coup === missedCoup).map((h) => h.line);
      if (lines.length) {
        const known = S.mine.get(missedCoup) || [];
        S.mine.set(missedCoup, known.map((w) => lines.find((l) => l.wager === w.wager) || w));
        if (S.t) renderPayouts();
      }
    }
    $('#history').querySelector('tbody').innerHTML = rows.length ? rows.slice(0, 40).map((h) => {
      const l = h.line;
      const cls = l.net > 0 ? 'pos' : l.net < 0 ? 'neg' : 'zero';
      return `<tr class="${cls}" data-wager="${l.wager}"><td title="${esc(tr('history.where', { table: h.table, coup: h.coup }))}">${h.table === S.tableId ? '' : `T${h.table} `}#${h.coup}</td><td>${esc(words(l.bet))}</td><td>${esc(money(l.amount))}</td><td>${esc(words(l.outcome || l.status))}</td><td class="num">${esc(money(l.net, { sign: true }))}</td></tr>`;
    }).join('') : `<tr><td colspan="5">${esc(tr('history.empty'))}</td></tr>`;
  } catch (e) {
    notify(e.message, 'error', e.rule);
  }
}

// ---------------------------------------------------------------------------
// Start

// The language: the switch in the header (every language the catalogue
// holds), the choice saved on this device, and everything redrawn in it.
const langSelect = $('#lang');
langSelect.innerHTML = languages().map(([tag, name]) => `<option value="${esc(tag)}" lang="${esc(tag)}">${esc(name)}</option>`).join('');
useSavedLanguage();
langSelect.value = language();
langSelect.addEventListener('change', () => setLanguage(langSelect.value));
document.addEventListener('languagechange', () => {
  renderSoundButton();
  disarmWithdraw();
  setConn($('#conn').dataset.state);
  if (S.t && !$('#view-table').hidden) {
    const kept = S.slotState; // the cards stay as they lie: no second turn
    buildTable(S.t);
    S.slotState = kept;
    S.roadsKey = '';
    render();
    loadHistory();
  } else {
    route();
  }
});

window.addEventListener('hashchange', route);
route();
