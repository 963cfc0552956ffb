// Shared by the table page and the pit console: the API, money, the table's
// WebSocket with reconnection, and plain-words errors. No build step; loaded as
// an ES module.

/** The signed-in session, kept in sessionStorage so a reload keeps the seat. */
export const auth = {
  get token() { return sessionStorage.getItem('baccarat.token'); },
  get user() { const u = sessionStorage.getItem('baccarat.user'); return u ? JSON.parse(u) : null; },
  set(token, user) {
    sessionStorage.setItem('baccarat.token', token);
    sessionStorage.setItem('baccarat.user', JSON.stringify(user));
  },
  clear() { sessionStorage.removeItem('baccarat.token'); sessionStorage.removeItem('baccarat.user'); },
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

/** What a refusal means, for a person. */
export function plainError(status, body) {
  const msg = (body && body.error) || '';
  const rule = body && body.rule && !['table', 'wallet', 'ledger', 'engine', 'slip', 'bounds', 'mode', 'config', 'idempotency'].includes(body.rule)
    ? ` (${body.rule})` : '';
  if (status === 401) return 'Please sign in again: ' + (msg || 'your session has ended.');
  if (status === 403) return 'Not allowed: ' + (msg || 'your role may not do this.');
  if (status === 413) return 'That request is too large.';
  if (status === 429) return 'Too many requests; please wait a moment.';
  if (status === 0) return 'Cannot reach the table server. Check the connection.';
  if (!msg) return `The server refused the request (${status}).`;
  return msg.charAt(0).toUpperCase() + msg.slice(1) + rule;
}

/** Call the API; resolves with JSON or throws ApiError. */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (auth.token) headers.authorization = 'Bearer ' + auth.token;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
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
  auth.set(r.token, { id: r.user, name: r.name, role: r.role });
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
  return { rank, suit, symbol, red, label: `${rank} of ${{ S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' }[suit]}` };
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
 */
export function followTable(id, onMessage, onStatus = () => {}) {
  let ws = null;
  let closed = false;
  let delay = 250;
  const open = () => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const q = auth.token ? '?token=' + encodeURIComponent(auth.token) : '';
    ws = new WebSocket(`${proto}//${location.host}/api/tables/${id}/ws${q}`);
    ws.onopen = () => { delay = 250; onStatus('live'); };
    ws.onmessage = (ev) => { try { onMessage(JSON.parse(ev.data)); } catch (e) { console.error(e); } };
    ws.onclose = () => {
      if (closed) return;
      onStatus('reconnecting');
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 5000);
    };
  };
  open();
  return { close() { closed = true; if (ws) ws.close(); } };
}

/** Escape text for HTML. */
export function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/** Wager and outcome ids as words: "player_pair" -> "Player pair". */
export function words(id) {
  const s = String(id || '').replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}
