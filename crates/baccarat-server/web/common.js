// Shared by the table page and the pit console: the API, money, the table's
// WebSocket with reconnection, and plain-words errors. No build step; loaded as
// an ES module. Words come from the catalogue (i18n.js): English unless the
// page opted into the player's language.

import { tr, trn, word, language } from '/assets/i18n.js';
import { deltaFollower } from '/assets/delta.js';

/**
 * Who is signed in, kept in sessionStorage so a reload keeps the seat. The
 * session itself is an HttpOnly cookie the page never sees: a script injected
 * into the page could not steal it.
 */
export const auth = {
  get user() { const u = sessionStorage.getItem('baccarat.user'); return u ? JSON.parse(u) : null; },
  get signedIn() { return this.user !== null; },
  set(user) { sessionStorage.setItem('baccarat.user', JSON.stringify(user)); },
  clear() { sessionStorage.removeItem('baccarat.user'); sessionStorage.removeItem('baccarat.token'); },
};

/** An error from the server, in plain words, with the rule that refused it. */
export class ApiError extends Error {
  constructor(status, body) {
    super(plainError(status, body));
    this.status = status;
    this.rule = body && body.rule;
    this.body = body;
  }
}

/** What a refusal means, for a person. The rule, when a rulebook's rule
 * refused, is not in the text: it is `ApiError.rule`, shown one tap away. */
export function plainError(status, body) {
  const msg = (body && body.error) || '';
  if (status === 401) return tr('err.401', { message: msg || tr('err.401_default') });
  if (status === 403 && body && body.code === 'self_limit') return playerWords('self_limit', msg);
  if (status === 403) return tr('err.403', { message: msg || tr('err.403_default') });
  if (status === 413) return tr('err.413');
  if (status === 429) return tr('err.429');
  if (status === 0) return tr('err.0');
  if (!msg) return tr('err.other', { status });
  return playerWords(body && body.code, msg);
}

/**
 * A refusal's message in a player's words: amounts in the currency (the
 * server writes minor units as "5000.00"), the engine's phrasing turned to
 * the player, and no rule number (the rule goes beside it).
 */
export function playerWords(code, message) {
  let m = String(message || '').trim();
  const amount = (text) => {
    const [whole, cents] = text.split('.');
    return money(Number(whole) * 100 + Number(cents));
  };
  const wallet = /^available (-?\d+\.\d{2}) is less than (-?\d+\.\d{2})/.exec(m);
  if (code === 'wallet' && wallet) return tr('err.wallet', { available: amount(wallet[1]), need: amount(wallet[2]) });
  if (code === 'float') return tr('err.float');
  if (code === 'settling') return tr('err.settling');
  if (code === 'halted') return tr('err.halted');
  // In another language than the server's: the kind of refusal in the
  // player's words (the rule, when there is one, is beside it).
  if (language() !== 'en') {
    if (code === 'self_limit') return `${tr('err.self_limit_generic')} ${tr('err.limits_hint')}`;
    if (code === 'rule' || code === 'engine') {
      return /closed|not open|no more bets/i.test(m) ? tr('err.closed_generic') : tr('err.rule_generic');
    }
  }
  m = m.replace(/\s*\((?:NSW|AU|EU)[^)]*\)\s*$/, '');
  m = m.replace(/(^|[^\w.$])(-?\d+\.\d{2})(?!\d)/g, (_, pre, n) => pre + amount(n));
  m = m.replace(/^(\w[\w ]*?) wagers of one player may total at most/, (_, bet) => `Your ${words(bet)} bets may total at most`);
  m = m.replace(/^wagers are closed once "no more bets" is called and the first card is drawn$/, 'Bets are closed: "no more bets" has been called. Wait for the next coup.');
  m = m.replace(/^betting is not open$/, 'Betting is not open yet: wait for the next coup.');
  m = m.charAt(0).toUpperCase() + m.slice(1);
  m = /[.!?]$/.test(m) ? m : `${m}.`;
  return code === 'self_limit' ? `${m} ${tr('err.limits_hint')}` : m;
}

/**
 * The partition this page was opened under, as `/p/NAME` (any server of a
 * partitioned casino passes such a path on to NAME's server), or ''. Every
 * API call, feed and link of the page goes under it, so a page opened
 * through another partition's server shows that partition's tables.
 */
export const BASE = (location.pathname.match(/^\/p\/[a-z][a-z0-9_]{0,39}(?=\/|$)/) || [''])[0];

/** Call the API (`path` from the root, as `/api/me`: under [BASE]); resolves with JSON or throws ApiError. */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { 'content-type': 'application/json' };
  let res;
  try {
    res = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, { error: String(e) });
  }
  let json = null;
  try { json = await res.json(); } catch (_) { json = null; }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

export async function login(name, password) {
  const r = await api('/api/login', { method: 'POST', body: { name, password } });
  auth.set({ id: r.user, name: r.name, role: r.role });
  return r;
}

export async function logout() {
  try { await api('/api/logout', { method: 'POST' }); } catch (_) { /* already gone */ }
  auth.clear();
}

/** A fresh idempotency key. */
export function newKey(prefix = 'k') {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return prefix + '-' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/**
 * Money from integer minor units (cents), by integer arithmetic only:
 * 123456 -> "$1,234.56"; -500 -> "-$5.00".
 */
export function money(minor, { sign = false } = {}) {
  if (minor === null || minor === undefined) return '—';
  const n = BigInt(minor);
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = (abs % 100n).toString().padStart(2, '0');
  const prefix = neg ? '-' : (sign && n > 0n ? '+' : '');
  return `${prefix}$${whole}.${cents}`;
}

/** A pay line's odds in the one wording every page uses (issue 49): the
 * pay table's own ("1:1 less 5%" where the rulebook prints that, "19:20"
 * where it prints 19 to 20, glossed "(1:1 less 5%)"), a push in words. */
export function paysWords(pays) {
  if (pays === 'push') return tr('pays.push');
  return pays === '19:20' ? `${pays} ${tr('pays.gloss_19_20')}` : pays;
}

/** Parse "12.50" or "12" dollars typed by a person into minor units, or null. */
export function parseMoney(text) {
  const m = /^\s*\$?(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] || '0').padEnd(2, '0'));
}

/** A card id like "10H" as rank and suit symbol. */
export function cardParts(id) {
  const suit = id.slice(-1);
  const rank = id.slice(0, -1);
  const symbol = { S: '♠', H: '♥', D: '♦', C: '♣' }[suit] || suit;
  const red = suit === 'H' || suit === 'D';
  return { rank, suit, symbol, red, label: tr('card.label', { rank, suit: tr(`suit.${suit}`) }) };
}

/**
 * Where the pips of a spot card lie, in percent of the card's width and
 * height: the conventional layouts, so a 6 (two columns of three) can never
 * be read as a 9 (two columns of four and one in the middle). Pips below the
 * middle are drawn upside down, as printed.
 */
const PIPS = {
  A: [[50, 50]],
  2: [[50, 22], [50, 78]],
  3: [[50, 22], [50, 50], [50, 78]],
  4: [[30, 22], [70, 22], [30, 78], [70, 78]],
  5: [[30, 22], [70, 22], [50, 50], [30, 78], [70, 78]],
  6: [[30, 22], [70, 22], [30, 50], [70, 50], [30, 78], [70, 78]],
  7: [[30, 22], [70, 22], [50, 36], [30, 50], [70, 50], [30, 78], [70, 78]],
  8: [[30, 22], [70, 22], [50, 36], [30, 50], [70, 50], [50, 64], [30, 78], [70, 78]],
  9: [[30, 22], [70, 22], [30, 41], [70, 41], [50, 50], [30, 59], [70, 59], [30, 78], [70, 78]],
  10: [[30, 22], [70, 22], [50, 32], [30, 41], [70, 41], [30, 59], [70, 59], [50, 68], [30, 78], [70, 78]],
};

/**
 * A card's face as HTML: its index (rank over suit) in all four corners, each
 * the right way up, so whichever end or side a squeeze uncovers first shows
 * the index as it reads; and its pips in the printed layout, or a court panel.
 */
export function cardFace(id) {
  const c = cardParts(id);
  const index = (at) => `<span class="corner ${at}" data-rank="${esc(c.rank)}"><b>${esc(c.rank)}</b><i>${c.symbol}</i></span>`;
  const corners = ['tl', 'tr', 'bl', 'br'].map(index).join('');
  const layout = PIPS[c.rank];
  const middle = layout
    ? `<span class="pips${c.rank === 'A' ? ' ace' : ''}">${layout.map(([x, y]) =>
      `<i class="pip${y > 50 ? ' down' : ''}" style="left:${x}%;top:${y}%">${c.symbol}</i>`).join('')}</span>`
    : `<span class="court" data-court="${esc(c.rank)}"><b>${esc(c.rank)}</b><i>${c.symbol}</i></span>`;
  return corners + middle;
}

/** Position ids in dealing order, with labels. */
export const POSITIONS = [
  ['player1', 'Player 1st'], ['banker1', 'Banker 1st'], ['player2', 'Player 2nd'],
  ['banker2', 'Banker 2nd'], ['player3', 'Player 3rd'], ['banker3', 'Banker 3rd'],
];

/**
 * Follow a table's WebSocket, reconnecting with back-off. `onMessage(msg)` gets
 * each push: { table, result, void, balance, available, mine, now_ms }.
 * `onStatus("live" | "reconnecting")` reports the connection. Returns { close }.
 *
 * The socket is asked for deltas (`?deltas=1`, docs/api.md "Table
 * WebSocket"): the whole message comes once, then numbered deltas, each
 * applied here to the last message; a number out of turn asks for the whole
 * message again (`{"resync": true}`). The page is handed a copy of each
 * message, as if it had come whole, so it may keep or change it.
 */
export function followTable(id, onMessage, onStatus = () => {}) {
  let frames = deltaFollower();
  return follow(`/api/tables/${id}/ws?deltas=1`, (frame, ws) => {
    const got = frames.take(frame);
    if (got.resync) ws.send(JSON.stringify({ resync: true }));
    else onMessage(got.message ?? got.other);
  }, onStatus, () => { frames = deltaFollower(); });
}

/**
 * Follow a WebSocket at `path`, reconnecting with back-off; the session cookie
 * goes with the upgrade, never a token in the URL. `onMessage(data, ws)` gets
 * each message parsed; `onOpen()` is called as each connection opens, before
 * its first message. Returns { close }.
 */
export function follow(path, onMessage, onStatus = () => {}, onOpen = () => {}) {
  let ws = null;
  let closed = false;
  let delay = 250;
  const open = () => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const sock = new WebSocket(`${proto}//${location.host}${BASE}${path}`);
    ws = sock;
    sock.onopen = () => { delay = 250; onOpen(); onStatus('live'); };
    sock.onmessage = (ev) => { try { onMessage(JSON.parse(ev.data), sock); } catch (e) { console.error(e); } };
    sock.onclose = () => {
      if (closed) return;
      onStatus('reconnecting');
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 5000);
    };
  };
  open();
  return { close() { closed = true; if (ws) ws.close(); } };
}

/** `$` means one thing on every page: the first element matching a CSS
 * selector (`$('#balance')`), within `root` if given. */
export const $ = (sel, root = document) => root.querySelector(sel);

/** HTML made from a template whose values are escaped unless made by `html`
 * themselves (or `raw`); an array is its items in turn. Rendering is safe by
 * default: `html\`<li>${name}</li>\`` cannot be broken by a name. */
export function html(strings, ...values) {
  const one = (v) => (v instanceof Html ? v.text : Array.isArray(v) ? v.map(one).join('') : esc(v));
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? one(values[i]) : ''), ''));
}

/** Markup already safe (made here, never from a person's text). */
export function raw(text) {
  return new Html(String(text));
}

class Html {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

/** Escape text for HTML. */
export function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/** Wager and outcome ids as words: "player_pair" -> "Player pair" (or the
 * page's language's word for it). */
export function words(id) {
  const w = word(id);
  if (w) return w;
  const s = String(id || '').replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A dealing style in words: "method_a" -> "Method A" (the rulebooks' own
 * names), or the page's language's word for it. */
export function dealingWords(id) {
  return word(id) || words(id).replace(/^(Method|Style) ([a-z])$/, (_, k, x) => `${k} ${x.toUpperCase()}`);
}

// ---------------------------------------------------------------------------
// Additions for the table page (usable by the pit console too). Everything
// below only draws what the server sends; the roads are never recomputed here.

/** A phase id in words. */
export function phaseWords(phase) {
  const known = ['no_shoe', 'ready', 'betting', 'no_more_bets', 'dealing', 'reconstruction', 'shoe_over'];
  return known.includes(phase) ? tr(`phase.${phase}`) : words(phase);
}

/** A long hex value shortened for display: "6dc957af…c856a". */
export function shortHash(hex, head = 8, tail = 6) {
  const s = String(hex || '');
  return s.length > head + tail + 1 ? `${s.slice(0, head)}…${s.slice(-tail)}` : s;
}

/** A card's point value in baccarat (A = 1, 10 and pictures = 0), or null. */
export function cardPoints(id) {
  if (!id) return null;
  const rank = String(id).slice(0, -1);
  if (rank === 'A') return 1;
  if (['10', 'J', 'Q', 'K'].includes(rank)) return 0;
  const n = Number(rank);
  return Number.isInteger(n) ? n : null;
}

/** Words for a derived-road mark: "R" -> "red (filled)". */
export function markWords(mark) {
  if (!mark) return tr('road.no_mark');
  return mark === 'R' ? tr('road.red') : tr('road.blue');
}

/** The letter on a road's mark: B, P, T (庄, 闲, 和 in Chinese). */
function letter(result) {
  return ['B', 'P', 'T'].includes(result) ? tr(`mark.${result}`) : result;
}

function at(col, row) {
  return `grid-column:${col + 1};grid-row:${row + 1}`;
}

function roadBox(kind, title, cols, inner, extra = '') {
  const n = Math.max(cols, kind === 'bead' ? 8 : kind === 'big' ? 16 : 16);
  return `<div class="road road-${kind}"><h3 class="road-title">${esc(title)}${extra}</h3>`
    + `<div class="road-scroll" tabindex="0" role="group" aria-label="${esc(title)}">`
    + `<div class="road-grid" style="--cols:${n}">${inner}</div></div></div>`;
}

function pairDots(e) {
  return (e.banker_pair ? '<i class="pair-dot bp" aria-hidden="true"></i>' : '')
    + (e.player_pair ? '<i class="pair-dot pp" aria-hidden="true"></i>' : '');
}

function entryWords(e) {
  const parts = [['B', 'P', 'T'].includes(e.result) ? tr(`road.${e.result}`) : e.result];
  if (e.ties) parts.push(e.ties === 1 ? tr('road.then_tie') : tr('road.then_ties', { n: e.ties }));
  if (e.banker_pair) parts.push(tr('road.banker_pair'));
  if (e.player_pair) parts.push(tr('road.player_pair'));
  if (e.natural) parts.push(tr('road.natural'));
  return parts.join(', ');
}

/** The bead plate: columns of up to six, top to bottom, filled discs with a letter. */
export function beadPlateHtml(columns, { lastCols = 0 } = {}) {
  let inner = '';
  const all = columns || [];
  (lastCols ? all.slice(-lastCols) : all).forEach((col, c) => col.forEach((e, r) => {
    inner += `<span class="mark bead ${esc(e.result)}${e.natural ? ' natural' : ''}" style="${at(c, r)}" role="img" `
      + `aria-label="${esc(entryWords(e))}">${esc(letter(e.result))}${pairDots(e)}</span>`;
  }));
  return roadBox('bead', tr('road.bead'), lastCols ? Math.min(all.length, lastCols) : all.length, inner);
}

/**
 * The big road at the server's col/row: hollow rings (red Banker "B", blue
 * Player "P"), ties as a green slash with a count, pairs as dots. `lastCols`
 * keeps only the last columns (the lobby preview).
 */
export function bigRoadHtml(cells, { leadingTies = 0, lastCols = 0, title = tr('road.big') } = {}) {
  const list = cells || [];
  const maxCol = list.reduce((m, e) => Math.max(m, e.col), -1);
  const from = lastCols ? Math.max(0, maxCol + 1 - lastCols) : 0;
  let inner = '';
  for (const e of list) {
    if (e.col < from) continue;
    const ties = e.ties ? `<i class="tie-slash" aria-hidden="true"></i>${e.ties > 1 ? `<b class="tie-count" aria-hidden="true">${e.ties}</b>` : ''}` : '';
    inner += `<span class="mark ring ${esc(e.result)}" style="${at(e.col - from, e.row)}" role="img" `
      + `aria-label="${esc(tr('road.at', { what: entryWords(e), col: e.col + 1, row: e.row + 1 }))}">`
      + `<span class="letter" aria-hidden="true">${esc(letter(e.result))}</span>${ties}${pairDots(e)}</span>`;
  }
  const extra = leadingTies ? ` <small>${esc(trn('road.leading_ties', leadingTies))}</small>` : '';
  return roadBox('big', title, maxCol + 1 - from, inner, extra);
}

/** A derived road (big eye boy, small road, cockroach pig) at the server's col/row. */
export function derivedRoadHtml(kind, title, cells) {
  const list = cells || [];
  const cols = list.reduce((m, e) => Math.max(m, e.col + 1), 0);
  let inner = '';
  for (const e of list) {
    inner += `<span class="mark d-${kind} ${esc(e.mark)}" style="${at(e.col, e.row)}" role="img" `
      + `aria-label="${esc(tr('road.at', { what: markWords(e.mark), col: e.col + 1, row: e.row + 1 }))}"></span>`;
  }
  return roadBox(kind, title, cols, inner);
}

export const DERIVED_ROADS = [
  ['eye', 'Big eye boy', 'big_eye_boy'],
  ['small', 'Small road', 'small_road'],
  ['roach', 'Cockroach pig', 'cockroach_pig'],
];

/** The three ask-road marks for one outcome, drawn and labelled. */
export function askMarksHtml(marks) {
  return DERIVED_ROADS.map(([kind], i) => {
    const title = tr(`road.${kind}`);
    const m = (marks || [])[i] || null;
    const mark = m ? `<span class="mark d-${kind} ${esc(m)}" aria-hidden="true"></span>` : '<span class="no-mark" aria-hidden="true">—</span>';
    return `<span class="ask-mark" data-mark="${esc(m || '')}">${mark}<span>${esc(title)}: ${esc(markWords(m))}</span></span>`;
  }).join('');
}

/** The whole roads board (without the ask-road). */
export function roadsBoardHtml(board) {
  const b = board || {};
  return `<div class="roads-top">${beadPlateHtml(b.bead_plate)}${bigRoadHtml(b.big_road, { leadingTies: b.leading_ties || 0 })}</div>`
    + `<div class="roads-derived">${DERIVED_ROADS.map(([kind, , key]) => derivedRoadHtml(kind, tr(`road.${kind}`), b[key])).join('')}</div>`;
}
