// The pit console's shared state and small helpers: who is signed in, the
// table and pit views as last pushed, cards and rules in words, messages.

import { ApiError, cardParts, POSITIONS, esc, $ } from '/assets/common.js';
export { dealingWords } from '/assets/common.js';

export const POS_LABEL = Object.fromEntries(POSITIONS);
export const PLAYER_POS = ['player1', 'player2', 'player3'];
export const BANKER_POS = ['banker1', 'banker2', 'banker3'];

export const PHASE_WORDS = {
  no_shoe: 'No shoe in play',
  ready: 'Between coups',
  betting: 'Betting open',
  no_more_bets: 'No more bets',
  dealing: 'Dealing',
  reconstruction: 'Misdeal reconstruction (players may withdraw)',
  shoe_over: 'Shoe over',
};

export const KIND_WORDS = {
  player_third_to_banker: "Player's unauthorised third card became the Banker's third card",
  player_third_to_next_coup: "Player's unauthorised third card kept as the first card of the next coup",
  player_third_to_no_bet_coup: "Player's unauthorised third card, exposed: first card of a no-bet coup",
  excess_card_to_no_bet_coup: 'Excess or exposed card: first card of a no-bet coup',
  excess_card_to_next_coup: 'Excess card: first card of the next coup',
  first_card_face_up: 'First card found face up in the shoe: a no-bet coup starts with it',
  face_up_within_coup: 'Card found face up in the shoe during the coup: played as if face down',
  insufficient_cards: 'Too few cards to complete the coup',
  missing_card: 'Card missing from the shoe',
  foreign_card: 'Foreign card found',
  misdeal: 'Misdeal',
  scanner_discrepancy: 'Scanner discrepancy',
  invalidated: 'Game invalidated by a supervisor',
  shuffler_malfunction: 'Shuffling device malfunction',
  wrong_hand: 'Cards passed to the wrong player',
};

// ---------------------------------------------------------------------------
// State

export const state = {
  user: null, // { id, name, role }
  tables: [],
  tableId: null,
  table: null, // latest TableView
  pit: null, // latest pit route answer
  shoes: null, // inspector: GET /shoes
  follow: null,
  skew: 0, // server clock minus ours, from the WebSocket's now_ms
  lastPush: null, // { result, void } from the last push (inspector's result line)
  coupCards: { coup: null, cards: {} }, // the coup's cards, kept after it closes
  lastDone: null, // the last finished coup seen: { coup, result, void, cards }
  recall: null,
  recallCoup: 0,
  recallStep: 0,
};

export const role = () => (state.user ? state.user.role : null);
export const isStaff = () => ['dealer', 'supervisor', 'admin'].includes(role());
export const isSupervisor = () => ['supervisor', 'admin'].includes(role());
export const isInspector = () => ['inspector', 'admin'].includes(role());
export const serverNow = () => Date.now() + state.skew;
export const isLive = () => !!state.table && state.table.mode === 'live';

// ---------------------------------------------------------------------------
// Small helpers

/** A card id as typed or scanned ("9h", "TS", "10♠") -> "9H", "10S"; null if not a card. */
export function parseCard(text) {
  const s = String(text || '').trim().toUpperCase()
    .replace('♠', 'S').replace('♥', 'H').replace('♦', 'D').replace('♣', 'C');
  const m = /^(10|T|[2-9]|[AJQK])([SHDC])$/.exec(s);
  if (!m) return null;
  return (m[1] === 'T' ? '10' : m[1]) + m[2];
}

/** A list of cards ("9H KD, 2c") -> ["9H", "KD", "2C"], or throws naming the bad one. */
export function parseCards(text) {
  const out = [];
  for (const tok of String(text || '').split(/[\s,;]+/).filter(Boolean)) {
    const c = parseCard(tok);
    if (!c) throw new Error(`"${tok}" is not a card: write the rank (A, 2-10 or T, J, Q, K) then the suit (C, D, H, S), e.g. 9H or 10S.`);
    out.push(c);
  }
  return out;
}

export function cardText(id) {
  if (!id) return 'a face-down card';
  const p = cardParts(id);
  return `${p.rank}${p.symbol}`;
}

function cardHtml(id) {
  if (!id) return '<span class="muted">face down</span>';
  const p = cardParts(id);
  return `<span class="mono" aria-label="${esc(p.label)}">${esc(p.rank + p.symbol)}</span>`;
}

export const short = (hex, n = 12) => (hex ? String(hex).slice(0, n) : '—');
export const spotWords = (spot) => (spot && spot.box !== undefined ? `box ${spot.box}` : 'standing area');
export const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
export const sideWords = (side) => (side === 'banker' ? 'Banker' : 'Player');
export const sideOf = (pos) => (pos && pos.startsWith('banker') ? 'banker' : 'player');
/** A player by name where the pit route gave it (staff see who is betting), else by id. */
export const who = (id) => {
  const n = state.pit && state.pit.names && state.pit.names[id];
  return n ? `${n} (#${id})` : `player #${id}`;
};

/** The rule whose citation is `cite` (exactly, or the longest that starts it). */
export function ruleForCite(cite) {
  if (!cite || !state.pit) return null;
  let best = null;
  for (const r of state.pit.rules || []) {
    if (r.cite === cite) return r;
    if (cite.startsWith(r.cite) && !/[\d.]/.test(cite.charAt(r.cite.length))) {
      if (!best || r.cite.length > best.cite.length) best = r;
    }
  }
  return best;
}

export function ruleByKey(key) {
  return state.pit ? (state.pit.rules || []).find((r) => r.key === key) || null : null;
}

export function citeOf(key) {
  const r = ruleByKey(key);
  return r ? r.cite : '';
}

/** A rule quoted: its citation and verbatim text. */
export function quoteHtml(rule, caption) {
  if (!rule) return '';
  const text = rule.quote
    ? `<blockquote class="quote">${esc(rule.quote.trim())}</blockquote>`
    : '<p class="muted">The rulebook text for this citation is not on file.</p>';
  return `<figure class="rule" data-key="${esc(rule.key)}"><figcaption>${esc(caption || rule.cite)}</figcaption>${text}</figure>`;
}

/** Replace a container's HTML only if it changed, keeping focus on the same control. */
export function renderInto(el, html) {
  if (el._html === html) return;
  const active = document.activeElement;
  const keep = active && el.contains(active) ? active.getAttribute('data-testid') : null;
  el.innerHTML = html;
  el._html = html;
  if (keep) {
    const again = el.querySelector(`[data-testid="${CSS.escape(keep)}"]`);
    if (again && !again.disabled) again.focus();
  }
}

// ---------------------------------------------------------------------------
// Messages (aria-live regions)

export function say(text) {
  $('#status').textContent = text;
}

export function clearError() {
  $('#errors').innerHTML = '';
}

/** A failure in plain words, with the rule that refused it. */
export function errorHtml(e) {
  const msg = e instanceof ApiError ? e.message : String((e && e.message) || e);
  let html = `<p>${esc(msg)}</p>`;
  const rule = e instanceof ApiError ? ruleForCite(e.rule) : null;
  if (rule && rule.quote) {
    html += `<details><summary>The rule: ${esc(rule.cite)}</summary><blockquote class="quote">${esc(rule.quote.trim())}</blockquote></details>`;
  } else if (e instanceof ApiError && e.rule) {
    html += `<p class="muted">The rule: ${esc(e.rule)}</p>`;
  }
  return html;
}

export function showError(e) {
  $('#errors').innerHTML = errorHtml(e);
}

/** An element with attributes (`testid`, `data`, the rest as given) and children: no markup from data. */
export function node(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'testid') e.dataset.testid = v;
    else if (k === 'data') Object.assign(e.dataset, v);
    else e.setAttribute(k, v);
  }
  e.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return e;
}
