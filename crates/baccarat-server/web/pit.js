// The pit console: dealers, supervisors, inspectors (and the administrator).
// Plain ES module, no build step. Shared helpers come from common.js; the rules
// are the engine's: this page never decides an outcome, a position or a payout,
// it shows what the server says and sends the staff's commands.

import {
  auth, api, ApiError, login, logout, money, parseMoney, cardParts, POSITIONS, followTable, esc, words,
} from '/assets/common.js';

const $ = (sel, root = document) => root.querySelector(sel);
const POS_LABEL = Object.fromEntries(POSITIONS);
const PLAYER_POS = ['player1', 'player2', 'player3'];
const BANKER_POS = ['banker1', 'banker2', 'banker3'];

const PHASE_WORDS = {
  no_shoe: 'No shoe in play',
  ready: 'Between coups',
  betting: 'Betting open',
  no_more_bets: 'No more bets',
  dealing: 'Dealing',
  reconstruction: 'Misdeal reconstruction (players may withdraw)',
  shoe_over: 'Shoe over',
};

const KIND_WORDS = {
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

const state = {
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

const role = () => (state.user ? state.user.role : null);
const isStaff = () => ['dealer', 'supervisor', 'admin'].includes(role());
const isSupervisor = () => ['supervisor', 'admin'].includes(role());
const isInspector = () => ['inspector', 'admin'].includes(role());
const serverNow = () => Date.now() + state.skew;
const isLive = () => !!state.table && state.table.mode === 'live';

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
function parseCards(text) {
  const out = [];
  for (const tok of String(text || '').split(/[\s,;]+/).filter(Boolean)) {
    const c = parseCard(tok);
    if (!c) throw new Error(`"${tok}" is not a card: write the rank (A, 2-10 or T, J, Q, K) then the suit (C, D, H, S), e.g. 9H or 10S.`);
    out.push(c);
  }
  return out;
}

function cardText(id) {
  if (!id) return 'a face-down card';
  const p = cardParts(id);
  return `${p.rank}${p.symbol}`;
}

function cardHtml(id) {
  if (!id) return '<span class="muted">face down</span>';
  const p = cardParts(id);
  return `<span class="mono" aria-label="${esc(p.label)}">${esc(p.rank + p.symbol)}</span>`;
}

const short = (hex, n = 12) => (hex ? String(hex).slice(0, n) : '—');
const spotWords = (spot) => (spot && spot.box !== undefined ? `box ${spot.box}` : 'standing area');
const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const sideWords = (side) => (side === 'banker' ? 'Banker' : 'Player');
const dealingWords = (d) => words(d).replace(/^Method ([a-z])$/, (_, x) => `Method ${x.toUpperCase()}`);
const sideOf = (pos) => (pos && pos.startsWith('banker') ? 'banker' : 'player');
/** A player by name where the pit route gave it (staff see who is betting), else by id. */
const who = (id) => {
  const n = state.pit && state.pit.names && state.pit.names[id];
  return n ? `${n} (#${id})` : `player #${id}`;
};

/** The rule whose citation is `cite` (exactly, or the longest that starts it). */
function ruleForCite(cite) {
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

function ruleByKey(key) {
  return state.pit ? (state.pit.rules || []).find((r) => r.key === key) || null : null;
}

function citeOf(key) {
  const r = ruleByKey(key);
  return r ? r.cite : '';
}

/** A rule quoted: its citation and verbatim text. */
function quoteHtml(rule, caption) {
  if (!rule) return '';
  const text = rule.quote
    ? `<blockquote class="quote">${esc(rule.quote.trim())}</blockquote>`
    : '<p class="muted">The rulebook text for this citation is not on file.</p>';
  return `<figure class="rule" data-key="${esc(rule.key)}"><figcaption>${esc(caption || rule.cite)}</figcaption>${text}</figure>`;
}

/** Replace a container's HTML only if it changed, keeping focus on the same control. */
function renderInto(el, html) {
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

function say(text) {
  $('#status').textContent = text;
}

function clearError() {
  $('#errors').innerHTML = '';
}

/** A failure in plain words, with the rule that refused it. */
function errorHtml(e) {
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

function showError(e) {
  $('#errors').innerHTML = errorHtml(e);
}

// ---------------------------------------------------------------------------
// Events in words (notices and recall)

function settlementWords(s) {
  if (!s) return '';
  const net = s.returned + s.won - s.commission - s.stake;
  const parts = [`stake ${money(s.stake)}`];
  if (s.returned) parts.push(`returned ${money(s.returned)}`);
  if (s.won) parts.push(`won ${money(s.won)}`);
  if (s.commission) parts.push(`commission ${money(s.commission)}`);
  if (s.lost) parts.push(`lost ${money(s.lost)}`);
  if (s.void) parts.push(`void ${money(s.void)}`);
  return `${parts.join(', ')}; net to the player ${money(net, { sign: true })}`;
}

/** One event in words. `ctx.wagers`: Map wager id -> wager (for settlements). */
export function describe(e, ctx = {}) {
  const w = ctx.wagers;
  switch (e.event) {
    case 'shoe_started': {
      let s = `Shoe ${e.shoe} started`;
      if (e.live_decks) s += `: live shoe of ${e.live_decks} decks`;
      else if (e.preshuffled) s += `: ${e.preshuffled.length} pre-shuffled cards`;
      else if (e.continuous) s += ': continuous shuffler';
      else s += ': shuffled here';
      if (e.set) s += `, card set ${e.set}`;
      if (e.algorithm) s += ` (${e.algorithm})`;
      if (e.commitment) s += `; seed commitment ${short(e.commitment, 16)}…`;
      if (e.cut) s += `; cut at card ${e.cut.at}, cutting card ${e.cut.from_back} cards from the back`;
      return s;
    }
    case 'burned':
      return `Burned ${e.cards.length} card${e.cards.length === 1 ? '' : 's'} (${words(e.procedure)})${e.shown ? `, shown ${cardText(e.shown)}` : ''}: ${e.cards.map(cardText).join(' ')}`;
    case 'betting_opened':
      if (e.no_bet) return `Coup ${e.coup}: a no-bet coup${e.first_card ? `, starting with ${cardText(e.first_card)}` : ''}`;
      return `Coup ${e.coup}: betting opened ("place your bets")`;
    case 'wager_placed': {
      const x = e.wager;
      return `Wager #${x.id}: ${who(x.player)}, ${spotWords(x.spot)}, ${words(x.bet)} ${money(x.amount)}${x.ante ? ` with ante ${money(x.ante)}` : ''}${x.token ? ' in promotional tokens' : ''}${x.needs_approval ? ' — needs a supervisor’s approval' : ''}`;
    }
    case 'wager_withdrawn': return `Wager #${e.wager} withdrawn by the player`;
    case 'wager_approved': return `Wager #${e.wager} approved by a supervisor`;
    case 'wager_returned': return `Wager #${e.wager} returned whole`;
    case 'wager_reduced': return `Wager #${e.wager} reduced to ${money(e.to)}`;
    case 'betting_closed': return `No more bets (coup ${e.coup})`;
    case 'personal_limits_set': return `Player #${e.player} may wager ${money(e.min)} to ${money(e.max)}`;
    case 'wagers_reopened': return 'Wagers reopened before any card is exposed';
    case 'minimum_announced': return `Sign: the minimum rises to ${money(e.minimum)} at ${clock(e.effective_ms)}`;
    case 'minimum_changed': {
      const g = (e.grandfathered || []).map(([p, m]) => `player #${p} at ${money(m)}`);
      return `Minimum now ${money(e.minimum)}${g.length ? `; keeping the old minimum: ${g.join(', ')}` : ''}`;
    }
    case 'cutting_card_out':
      return `Cutting card out: ${e.coups_left === 1 ? 'this is the last coup' : 'finish this coup, then one more ("last coup")'}`;
    case 'card_dealt':
      return `${cardText(e.card)} to ${POS_LABEL[e.position] || e.position}, ${e.face_up ? 'face up' : 'face down'}`;
    case 'irregularity':
      return `Irregularity: ${KIND_WORDS[e.kind] || words(e.kind)}${e.card ? ` — card ${cardText(e.card)}` : ''}`;
    case 'coup_completed': {
      const s = e.summary;
      const hand = (name, total, cards) => `${name} ${total} (${cards} cards: ${cards > 2 ? 'drew a third card' : 'stood'})`;
      const winner = s.player_total > s.banker_total ? 'Player wins' : s.banker_total > s.player_total ? 'Banker wins' : 'Tie';
      return `Coup ${e.coup} complete: ${hand('Player', s.player_total, s.player_cards)}, ${hand('Banker', s.banker_total, s.banker_cards)} — ${winner}`;
    }
    case 'wager_settled': {
      const x = w && w.get(e.wager);
      const what = x ? ` (${words(x.bet)} ${money(x.amount)}, ${who(x.player)})` : '';
      const outcome = e.outcome ? words(e.outcome) : 'void';
      return `Wager #${e.wager}${what} settled: ${outcome}, pay line “${e.pays}”; ${settlementWords(e.settlement)}`;
    }
    case 'coup_voided': return `Coup ${e.coup} declared void: wagers returned`;
    case 'coup_closed': return `Coup ${e.coup} closed`;
    case 'reconstructed': return `Coup reconstructed in dealing order: ${e.cards.map(cardText).join(' ')}; players may withdraw before play resumes`;
    case 'resumed': return 'Play resumed';
    case 'hand_passed':
      return e.to ? `${sideWords(e.side)} hand passed face down to player #${e.to} to squeeze` : `${sideWords(e.side)} hand kept by the dealer`;
    case 'cards_declined': return `Player #${e.player} declined the ${sideWords(e.side)} hand; it passes on`;
    case 'hand_exposed': return `${sideWords(e.side)} hand exposed${e.by ? ` by player #${e.by}` : ' by the dealer'}`;
    case 'nominee_appointed': return e.nominee ? `Player #${e.player} appointed player #${e.nominee} as nominee` : `Player #${e.player} ended their nominee`;
    case 'marker_taken': return `Player #${e.player} took the Banker marker at seat ${e.seat}`;
    case 'marker_released': return `The Banker marker is offered on from seat ${e.from_seat}`;
    case 'withdrawals_offered': return 'Players may take their wagers back before play resumes';
    case 'shoe_ended': return `Shoe ${e.shoe} ended: ${e.reason}${e.seed ? `; seed revealed ${short(e.seed, 16)}…` : ''}`;
    default: {
      const rest = Object.entries(e).filter(([k]) => k !== 'event' && k !== 'rule')
        .map(([k, v]) => `${words(k).toLowerCase()} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
      return `${words(e.event)}${rest.length ? ': ' + rest.join(', ') : ''}`;
    }
  }
}

// ---------------------------------------------------------------------------
// Sign in / out

async function start() {
  $('#login-form').addEventListener('submit', onLogin);
  $('#logout').addEventListener('click', onLogout);
  $('#card-form').addEventListener('submit', onCardSubmit);
  $('#hold-form').addEventListener('submit', onHoldFix);
  $('#recall-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadRecall(); });
  $('#run-verify').addEventListener('click', runVerify);
  $('#table-list').addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-table]');
    if (b) selectTable(Number(b.dataset.table), { focusEntry: true });
  });
  setupDialog();
  document.addEventListener('click', onAction);

  if (auth.signedIn) {
    try {
      const me = await api('/api/me');
      state.user = { id: me.user, name: me.name, role: me.role };
      auth.set(state.user);
    } catch (e) {
      auth.clear();
    }
  }
  if (state.user) await enterConsole();
  else showLogin();
}

function showLogin() {
  $('#login-view').hidden = false;
  $('#console-view').hidden = true;
  $('#logout').hidden = true;
  $('#who').textContent = '';
  $('#conn').textContent = '';
  $('#login-name').focus();
}

async function onLogin(ev) {
  ev.preventDefault();
  const name = $('#login-name').value.trim();
  const password = $('#login-password').value;
  const out = $('#login-error');
  out.textContent = '';
  if (!name || !password) {
    out.textContent = 'Enter your name and password.';
    return;
  }
  const btn = $('#login-submit');
  btn.disabled = true;
  try {
    const r = await login(name, password);
    if (r.role === 'player') {
      await logout();
      out.textContent = 'This console is for pit staff and inspectors. Players play from the table page.';
      return;
    }
    state.user = { id: r.user, name: r.name, role: r.role };
    $('#login-password').value = '';
    await enterConsole();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      out.textContent = 'Sign-in failed: ' + ((e.body && e.body.error) || 'wrong name or password') + '.';
    } else {
      out.textContent = e.message;
    }
  } finally {
    btn.disabled = false;
  }
}

async function onLogout() {
  clearInterval(tablesTimer);
  if (state.follow) state.follow.close();
  state.follow = null;
  await logout();
  state.user = null;
  state.tableId = null;
  state.table = null;
  state.pit = null;
  clearError();
  say('Signed out.');
  showLogin();
}

let tablesTimer = null;

async function enterConsole() {
  $('#login-view').hidden = true;
  $('#console-view').hidden = false;
  $('#logout').hidden = false;
  $('#who').innerHTML = `Signed in as <strong>${esc(state.user.name)}</strong> <span class="badge role">${esc(words(state.user.role))}</span>`;
  $('#verify-panel').hidden = !isInspector();
  await loadTables();
  clearInterval(tablesTimer);
  tablesTimer = setInterval(() => { loadTables().catch(() => {}); }, 10000);
  const fromHash = Number((/^#table=(\d+)$/.exec(location.hash) || [])[1]);
  const saved = fromHash || Number(sessionStorage.getItem('pit.table'));
  if (saved && state.tables.some((t) => t.id === saved)) await selectTable(saved, { focusEntry: true });
  else renderWorkspace();
}

async function loadTables() {
  try {
    const r = await api('/api/tables');
    state.tables = r.tables;
    renderTables();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    showError(e);
  }
}

function expired() {
  clearInterval(tablesTimer);
  auth.clear();
  state.user = null;
  if (state.follow) state.follow.close();
  showLogin();
  $('#login-error').textContent = 'Your session has ended. Please sign in again.';
}

function renderTables() {
  const html = state.tables.map((t) => {
    const live = t.mode === 'live';
    return `<li><button type="button" class="table-opt" data-table="${t.id}" data-testid="table-option-${t.id}" data-mode="${esc(t.mode)}" aria-pressed="${t.id === state.tableId}">
      <span class="t-name">${esc(t.name)} ${live ? '<span class="badge live">LIVE</span>' : '<span class="badge rng">RNG</span>'}${t.open ? '' : ' <span class="badge closed">CLOSED</span>'}</span>
      <span class="t-meta">Table ${t.id} · ${esc(t.rulebook)} · ${esc(PHASE_WORDS[t.phase] || t.phase)}</span>
    </button></li>`;
  }).join('');
  renderInto($('#table-list'), html);
}

// ---------------------------------------------------------------------------
// Picking a table, following it

async function selectTable(id, { focusEntry = false } = {}) {
  if (state.follow) state.follow.close();
  state.tableId = id;
  state.table = state.tables.find((t) => t.id === id) || null;
  state.pit = null;
  state.shoes = null;
  state.recall = null;
  state.lastPush = null;
  state.coupCards = { coup: null, cards: {} };
  state.lastDone = null;
  sessionStorage.setItem('pit.table', String(id));
  history.replaceState(null, '', `#table=${id}`);
  clearError();
  $('#action-result').innerHTML = '';
  $('#recall').innerHTML = '';
  $('#recall')._html = '';
  renderTables();
  showChosen();
  renderWorkspace();
  state.follow = followTable(id, onPush, onConn);
  try {
    if (isStaff()) await refreshNow();
    else {
      applyTable(await api(`/api/tables/${id}`));
    }
    if (!isStaff()) {
      state.shoes = await api(`/api/tables/${id}/shoes`);
      renderShoe();
    }
    if (isInspector()) await loadRecall();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    showError(e);
  }
  if (focusEntry && isStaff() && isLive()) $('#card-input').focus();
}

/** On a narrow screen the picker is a strip: bring the chosen table into it. */
function showChosen() {
  const ul = $('#table-list');
  const chosen = ul.querySelector(`[data-table="${state.tableId}"]`);
  if (chosen && ul.scrollWidth > ul.clientWidth) ul.scrollLeft = chosen.parentElement.offsetLeft - ul.offsetLeft - 8;
}
window.addEventListener('resize', showChosen);

function onConn(s) {
  const el = $('#conn');
  el.dataset.state = s;
  el.textContent = s === 'live' ? '● Live' : 'Reconnecting…';
}

function onPush(msg) {
  if (!msg || !msg.table || msg.table.id !== state.tableId) return;
  if (msg.now_ms) state.skew = msg.now_ms - Date.now();
  state.lastPush = { result: msg.result, void: msg.void, coup: msg.table.coup };
  applyTable(msg.table);
  absorbResultCards(msg.table.coup, msg.result);
  // Staff get the pit's own data with every push (approvals, notices, the
  // card due): nothing is fetched. The rulebook's quotes came with the first
  // load and do not change.
  if (isStaff() && msg.pit) applyPit({ ...(state.pit || {}), ...msg.pit, table: msg.table });
  else if (isStaff()) scheduleRefresh();
}

/**
 * A completed coup's result lists every card (the last card often leaves the
 * table's view in the same batch that completes the coup): show them all.
 */
function absorbResultCards(coup, result) {
  if (!result || !Array.isArray(result.cards) || !state.table || state.table.coup !== coup) return;
  if (state.coupCards.coup !== coup) state.coupCards = { coup, cards: {} };
  const before = JSON.stringify(state.coupCards.cards);
  state.coupCards.cards = { ...state.coupCards.cards, ...Object.fromEntries(result.cards) };
  if (JSON.stringify(state.coupCards.cards) !== before) renderDeal();
}

/** A table view from a push or a fetch. */
function applyTable(t) {
  if (!t || t.id !== state.tableId) return;
  state.table = t;
  const i = state.tables.findIndex((x) => x.id === t.id);
  if (i >= 0) {
    state.tables[i] = t;
    renderTables();
  }
  const cc = state.coupCards;
  if (cc.coup !== t.coup) state.coupCards = { coup: t.coup, cards: {} };
  if (t.cards.length) state.coupCards.cards = Object.fromEntries(t.cards);
  renderTable();
  renderDeal();
  renderIrregularities();
  renderLimits();
  if (!isStaff()) renderShoe();
}

// Nothing polls: the table's socket pushes after every durable batch, and
// when it drops it reconnects and is sent the table as it then stands.

// The pit route, refreshed on each push but at most about four times a second.
const MIN_REFRESH_MS = 250;
let refreshTimer = null;
let refreshInflight = null;
let refreshWanted = false;
let lastRefresh = 0;

function scheduleRefresh() {
  refreshWanted = true;
  if (refreshTimer || refreshInflight) return;
  const wait = Math.max(0, lastRefresh + MIN_REFRESH_MS - Date.now());
  refreshTimer = setTimeout(() => { refreshTimer = null; refreshPit(); }, wait);
}

function refreshPit() {
  if (refreshInflight) { refreshWanted = true; return refreshInflight; }
  refreshWanted = false;
  lastRefresh = Date.now();
  const id = state.tableId;
  refreshInflight = (async () => {
    try {
      const p = await api(`/api/tables/${id}/pit`);
      if (id === state.tableId) applyPit(p);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) expired();
      else if (id === state.tableId) showError(e);
    } finally {
      refreshInflight = null;
      if (refreshWanted) scheduleRefresh();
    }
  })();
  return refreshInflight;
}

/** A fresh pit view that reflects everything done before this call. */
async function refreshNow() {
  if (refreshInflight) await refreshInflight;
  clearTimeout(refreshTimer);
  refreshTimer = null;
  await refreshPit();
}

function applyPit(p) {
  state.pit = p;
  applyTable(p.table);
  if (p.coup) absorbResultCards(p.coup.coup, p.coup.result);
  renderWagers();
  renderNotices();
  renderResult();
  renderShoe();
  renderLimits();
  renderIrregularities();
}

// ---------------------------------------------------------------------------
// Rendering

function renderWorkspace() {
  const picked = state.tableId !== null;
  const staff = isStaff();
  $('#pick-hint').hidden = picked;
  $('#table-panel').hidden = !picked;
  $('#deal-panel').hidden = !picked;
  $('#irr-panel').hidden = !picked || !staff;
  $('#wagers-panel').hidden = !picked || !staff;
  $('#notices-panel').hidden = !picked || !staff;
  $('#limits-panel').hidden = !picked || !staff;
  $('#shoe-panel').hidden = !picked;
  $('#recall-panel').hidden = !picked || !isInspector();
  $('#verify-panel').hidden = !isInspector();
  if (picked) {
    renderTable();
    renderDeal();
    renderIrregularities();
    renderLimits();
  }
}

function renderTable() {
  const t = state.table;
  if (!t) return;
  $('#table-title').innerHTML = `${esc(t.name)} <span class="badge ${t.mode === 'live' ? 'live' : 'rng'}">${t.mode === 'live' ? 'LIVE' : 'RNG'}</span>${t.open ? '' : ' <span class="badge closed">CLOSED</span>'}`;
  const facts = [
    ['Table', `${t.id} · ${esc(t.variant_title)}`],
    ['Rulebook', esc(t.rulebook_title)],
    ['Dealing', `${esc(dealingWords(t.dealing))} · ${t.decks} decks`],
    ['Phase', `<strong data-testid="phase" data-phase="${esc(t.phase)}">${esc(PHASE_WORDS[t.phase] || t.phase)}</strong>${t.closes_at_ms && t.phase === 'betting' ? ` (closes at ${clock(t.closes_at_ms)})` : ''}`],
    ['Shoe / coup', `shoe ${t.shoe}, coup ${t.coup}${t.mode === 'live' ? '' : ` · ${t.dealt} of ${t.shoe_size} cards dealt`}`],
    ['Limits', `${money(t.min)} to ${money(t.max)}${t.differential !== null ? ` · differential ${money(t.differential)}` : ''}`],
  ];
  if (t.announced_minimum) {
    facts.push(['Sign', `minimum rises to ${money(t.announced_minimum[0])} at ${clock(t.announced_minimum[1])}`]);
  }
  if (t.halted) {
    // The server stopped this table because an invariant broke; a supervisor
    // may void its coup (every stake back), and it serves again.
    const act = isSupervisor() ? ' <button type="button" data-act="void-halted" data-testid="void-halted">Void the coup</button>' : '';
    facts.push(['Stopped', `<strong class="warn" data-testid="halted">${esc(t.halted)}</strong>${act}`]);
  }
  $('#table-facts').innerHTML = facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('');

  // Open / close: a supervisor's decision.
  let html = '';
  if (isStaff()) {
    const can = isSupervisor();
    html += `<div><button type="button" data-act="toggle-open" data-testid="table-open" ${can ? '' : 'disabled aria-describedby="open-reason"'}>${t.open ? 'Close table' : 'Open table'}</button>
      ${can ? '' : '<span id="open-reason" class="reason" data-testid="table-open-reason">Only a supervisor may open or close a table.</span>'}</div>`;
  }
  renderInto($('#table-controls'), html);
}

/** What happens if the player holding a hand does not expose it: the server
 * turns it after the squeeze time at an RNG table, the dealer at a live one
 * (NSW 8.15; AU 8.14), citing the table's own rule. */
function squeezeLimit(t) {
  const rule = citeOf('dealing');
  const secs = state.pit && state.pit.squeeze_seconds;
  const when = t.mode === 'live' ? 'the dealer may turn it if the player does not' : `the dealer turns it after ${secs ? `${secs} s` : 'the squeeze time'} if not exposed`;
  return rule ? `${when} (${rule})` : when;
}

function dueHtml(t) {
  if (t.due) return `Next card: ${esc(POS_LABEL[t.due] || t.due)}`;
  if (!isStaff()) return esc(`No card due — ${(PHASE_WORDS[t.phase] || t.phase).toLowerCase()}`);
  const hint = {
    no_shoe: t.mode === 'live' ? 'No card due — start a live shoe' : 'No card due — the server starts the shoe',
    ready: t.mode === 'live' ? 'No card due — open betting for the next coup' : 'No card due — between coups',
    betting: 'No card due — betting is open',
    no_more_bets: 'No card due',
    reconstruction: 'No card due — resume the coup after the reconstruction',
    shoe_over: t.mode === 'live' ? 'Shoe over — start a new live shoe' : 'Shoe over',
    dealing: t.out ? `${sideWords(t.out.side)} hand is out with ${who(t.out.player)} to squeeze — ${squeezeLimit(t)}` : 'No card due',
  }[t.phase];
  return esc(hint || 'No card due');
}

function renderDeal() {
  const t = state.table;
  if (!t) return;
  const due = $('#due');
  due.dataset.position = t.due || '';
  due.dataset.side = t.due ? sideOf(t.due) : '';
  renderInto(due, dueHtml(t));

  // Show the coup's cards; once it closes, keep showing them with its result.
  const shown = state.coupCards.coup === t.coup ? state.coupCards.cards : {};
  const slot = (pos) => {
    const has = Object.prototype.hasOwnProperty.call(shown, pos);
    const c = has ? shown[pos] : undefined;
    const isDue = t.due === pos;
    const label = POS_LABEL[pos];
    if (c) {
      const p = cardParts(c);
      return `<div class="slot filled${p.red ? ' red' : ''}" data-testid="card-${pos}" data-card="${esc(c)}" role="img" aria-label="${esc(label)}: ${esc(p.label)}">${esc(p.rank)}<span aria-hidden="true">${p.symbol}</span></div>`;
    }
    if (has) return `<div class="slot down" data-testid="card-${pos}" data-card="" data-down="true" role="img" aria-label="${esc(label)}: face down"><small>face down</small></div>`;
    return `<div class="slot${isDue ? ' is-due' : ''}" data-testid="card-${pos}" data-card="" role="img" aria-label="${esc(label)}: ${isDue ? 'due next' : 'empty'}"><small>${esc(label).replace(' ', '<br>')}</small>${isDue ? '<small>DUE</small>' : ''}</div>`;
  };
  renderInto($('#hands'), `
    <div class="hand player"><h3>Player</h3><div class="slots">${PLAYER_POS.map(slot).join('')}</div></div>
    <div class="hand banker"><h3>Banker</h3><div class="slots">${BANKER_POS.map(slot).join('')}</div></div>`);

  const live = t.mode === 'live' && isStaff();
  $('#card-form').hidden = !live;
  $('#card-log').hidden = !live;
  let html = '';
  if (live) {
    const canShoe = ['no_shoe', 'shoe_over'].includes(t.phase);
    html += `<div><button type="button" data-act="start-shoe" data-testid="start-shoe" ${canShoe ? '' : 'disabled aria-describedby="shoe-reason"'}>Start live shoe (${t.decks} decks)</button>
      ${canShoe ? '' : '<span id="shoe-reason" class="reason">A shoe is in play.</span>'}</div>`;
    html += `<div><button type="button" data-act="open-betting" data-testid="open-betting" ${t.phase === 'ready' ? '' : 'disabled'}>Open betting</button></div>`;
    html += `<div><button type="button" data-act="close-betting" data-testid="close-betting" ${t.phase === 'betting' ? '' : 'disabled'}>Close betting</button></div>`;
    if (t.phase === 'reconstruction') {
      html += `<div><button type="button" data-act="resume" data-testid="resume-coup">Resume the coup</button></div>`;
    }
  }
  renderInto($('#live-controls'), html);
  renderResult();
}

function resultWords(c) {
  if (c.void) return `Coup ${c.coup} void (${c.void}): wagers returned`;
  const r = c.result;
  return `Coup ${c.coup}: Player ${r.player}, Banker ${r.banker} — ${r.winner === 'tie' ? 'Tie' : `${words(r.winner)} wins`}`;
}

function renderResult() {
  const t = state.table;
  const el = $('#result');
  if (!t) return;
  // The coup's outcome from the pit view or the last push, whichever has it.
  const cands = [];
  if (state.pit && state.pit.coup && state.pit.coup.coup === t.coup) cands.push(state.pit.coup);
  if (state.lastPush && state.lastPush.coup === t.coup) cands.push({ coup: t.coup, result: state.lastPush.result, void: state.lastPush.void });
  const coup = cands.find((c) => c.void || c.result) || null;
  el.dataset.void = coup && coup.void ? 'true' : 'false';
  el.dataset.winner = coup && !coup.void && coup.result ? coup.result.winner : '';
  if (coup) {
    const before = state.lastDone && state.lastDone.coup === coup.coup ? state.lastDone.cards : {};
    const cards = state.coupCards.coup === coup.coup ? { ...before, ...state.coupCards.cards } : before;
    state.lastDone = { coup: coup.coup, result: coup.result, void: coup.void, cards };
  }
  renderInto(el, coup ? esc(resultWords(coup)) : '');
  // Between coups on a fast table: the coup before, with the cards this console saw.
  const prev = state.lastDone && state.lastDone.coup < t.coup ? state.lastDone : null;
  let html = '';
  if (!coup && prev) {
    const seen = POSITIONS.map(([p]) => p).filter((p) => prev.cards[p]);
    html = `Last: ${esc(resultWords(prev))}${seen.length ? ` <span class="muted">(cards: ${seen.map((p) => `${esc(POS_LABEL[p])} ${esc(cardText(prev.cards[p]))}`).join(', ')})</span>` : ''}`;
  }
  renderInto($('#last-result'), html);
}

function renderWagers() {
  const p = state.pit;
  if (!p) return;
  const t = p.table;
  const lines = (p.coup && p.coup.wagers) || [];
  const sup = isSupervisor();
  const beforeFirstCard = ['betting', 'no_more_bets'].includes(t.phase) && t.cards.length === 0;
  if (!lines.length) {
    renderInto($('#wagers'), `<p class="muted" data-testid="no-wagers">No wagers on coup ${p.coup ? p.coup.coup : t.coup}.</p>`);
    return;
  }
  const status = (l) => {
    if (l.status === 'settled') {
      const o = l.outcome ? words(l.outcome) : 'Void';
      const pays = l.pays && l.pays !== l.outcome && l.pays !== 'void' ? `, pays ${esc(l.pays)}` : '';
      return `Settled: ${esc(o)}${pays}<br><span class="muted">net ${money(l.net, { sign: true })}${l.settlement && l.settlement.commission ? `, commission ${money(l.settlement.commission)}` : ''}</span>`;
    }
    if (l.status === 'returned') return `Returned${l.rule ? ` (${esc(l.rule)})` : ''}`;
    if (l.status === 'withdrawn') return 'Withdrawn';
    return `Open${l.rule ? ` (${esc(l.rule)})` : ''}`;
  };
  const rows = lines.map((l) => {
    const acts = [];
    if (l.needs_approval && l.status === 'open') {
      acts.push(`<button type="button" data-act="approve" data-wager="${l.wager}" data-testid="approve-${l.wager}" ${sup ? '' : 'disabled'}>Approve</button>`);
    }
    if (l.status === 'open' && beforeFirstCard && sup) {
      acts.push(`<button type="button" class="danger" data-act="refuse" data-wager="${l.wager}" data-testid="refuse-${l.wager}" ${sup ? '' : 'disabled'}>Refuse</button>`);
    }
    const flag = l.needs_approval && l.status === 'open'
      ? `<br><span class="flag">Banker and Player together: needs approval${citeOf('combination') ? ` (${esc(citeOf('combination'))})` : ''}</span>` : '';
    return `<tr data-testid="wager-${l.wager}" data-status="${esc(l.status)}" data-needs-approval="${l.needs_approval}" class="${l.needs_approval && l.status === 'open' ? 'needs-approval' : ''}">
      <td data-label="Wager">#${l.wager}<br><span class="muted small">${esc(who(l.player))}, ${esc(spotWords(l.spot))}</span></td>
      <td data-label="Bet">${esc(words(l.bet))}${flag}</td>
      <td data-label="Amount" class="num">${money(l.amount)}</td>
      <td data-label="Status">${status(l)}</td>
      <td><div class="acts">${acts.join('')}</div></td>
    </tr>`;
  }).join('');
  const total = lines.filter((l) => l.status === 'open' || l.status === 'settled').reduce((a, l) => a + l.amount, 0);
  renderInto($('#wagers'), `<p class="muted">Coup ${p.coup.coup} · ${lines.length} wager${lines.length === 1 ? '' : 's'} · ${money(total)} on the layout</p>
    <div class="scroll-x"><table class="wagers"><thead><tr><th>Wager</th><th>Bet</th><th class="num">Amount</th><th>Status</th><th><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody></table></div>
    ${sup ? '' : `<p class="reason">Approving and refusing wagers is for a supervisor${citeOf('supervisor_refusal') ? ` (${esc(citeOf('supervisor_refusal'))})` : ''}.</p>`}`);
}

function noticeHtml(n, { open = false, fresh = false } = {}) {
  const rule = ruleForCite(n.rule);
  const quote = rule && rule.quote
    ? `<details${open ? ' open' : ''}><summary>Rule text: ${esc(rule.cite)}</summary><blockquote class="quote">${esc(rule.quote.trim())}</blockquote></details>` : '';
  const kind = n.event.kind || n.event.event;
  return `<li data-testid="notice-${n.seq}" data-rule="${esc(n.rule)}" data-kind="${esc(kind)}"${fresh ? ' class="fresh"' : ''}>
    <span class="cite-tag">${esc(n.rule)}</span> · <span>${esc(describe(n.event))}</span> <span class="muted">(#${n.seq})</span>${quote}</li>`;
}

function renderNotices() {
  const p = state.pit;
  if (!p) return;
  const html = p.notices.length
    ? p.notices.map((n) => noticeHtml(n)).join('')
    : '<li class="muted" data-testid="no-notices">No notices yet for this table.</li>';
  renderInto($('#notices'), html);
}

function renderShoe() {
  const t = state.table;
  if (!t) return;
  const shoes = (state.pit && state.pit.shoes) || (state.shoes && state.shoes.shoes) || [];
  const cur = shoes.length ? shoes[shoes.length - 1] : null;
  let html = '';
  if (t.mode === 'live') {
    html += `<p>Live shoe: the cards come from the dealer's shoe, entered at this console. ${t.phase === 'no_shoe' ? 'No shoe has started.' : `Shoe ${t.shoe} is in play.`}</p>`;
  } else {
    html += '<p>RNG table: the server shuffles, cuts, burns and deals each shoe itself.</p>';
  }
  if (cur) {
    const burn = state.pit && state.pit.notices.find((n) => n.event.event === 'burned');
    html += `<dl class="facts">
      <dt>Shoe</dt><dd>${cur.shoe}</dd>
      <dt>Seed commitment</dt><dd class="mono" data-testid="seed-commitment">${cur.commitment ? esc(cur.commitment) : '— (live shoe: no seed)'}</dd>
      <dt>Cut</dt><dd data-testid="shoe-cut">${cur.cut ? `at card ${cur.cut.at}; cutting card ${cur.cut.from_back} cards from the back` : '—'}</dd>
      <dt>Burn</dt><dd data-testid="shoe-burn">${burn ? esc(describe(burn.event)) : (t.mode === 'live' ? 'by the dealer, per the rulebook' : `per the rulebook's procedure${citeOf('burn') ? ` (${esc(citeOf('burn'))})` : ''}`)}</dd>
    </dl>`;
    const done = shoes.filter((s) => s.seed);
    if (done.length) {
      html += `<details><summary>Finished shoes: seeds revealed (${done.length})</summary><ul>${done.slice(-5).reverse().map((s) => `<li>Shoe ${s.shoe}: seed <span class="mono">${esc(s.seed)}</span><br>commitment <span class="mono">${esc(s.commitment || '—')}</span></li>`).join('')}</ul></details>`;
    }
  }
  renderInto($('#shoe'), html);
}

const IRREGULARITIES = [
  { cmd: 'face_up_in_shoe', label: 'Card face up in the shoe', keys: ['face_up_within', 'face_up_first'], live: true },
  // A person supplies cards only at a live table: at an RNG table the RNG alone
  // decides them, and the server refuses these (the trust matrix, trust.rs).
  { cmd: 'missing_or_foreign', label: 'Missing or foreign card', keys: ['missing_or_foreign'], live: true },
  { cmd: 'misdeal', label: 'Misdeal', keys: ['misdeal'], live: true },
  { cmd: 'wrong_hand', label: 'Wrong hand', keys: ['wrong_hand'], live: true },
  { cmd: 'cutting_card_out', label: 'Cutting card out', keys: ['cutting_card', 'last_coup'], live: true },
  { cmd: 'scanner_discrepancy', label: 'Scanner discrepancy', keys: ['scanner_discrepancy'], live: true },
  { cmd: 'invalidate', label: 'Invalidate the game', keys: ['invalidated'], supervisor: true },
];

function renderIrregularities() {
  const t = state.table;
  if (!t || !isStaff()) return;
  const html = IRREGULARITIES.map((x) => {
    let reason = '';
    if (x.supervisor && !isSupervisor()) reason = 'Supervisor only';
    else if (x.live && t.mode !== 'live') reason = 'Live shoe only';
    const cite = x.keys.map(citeOf).filter(Boolean).join(', ');
    return `<button type="button" data-act="irr" data-cmd="${x.cmd}" data-testid="irr-${x.cmd}" ${reason ? 'disabled' : ''}>${esc(x.label)}<span class="cite">${esc(cite)}${reason ? ` · ${reason}` : ''}</span></button>`;
  }).join('');
  renderInto($('#irr-buttons'), html);
}

function renderLimits() {
  const t = state.table;
  if (!t || !isStaff()) return;
  const sup = isSupervisor();
  const rule = ruleByKey('minimum_change');
  const minutes = noticeMinutes();
  let html = `<p>Minimum ${money(t.min)}, maximum ${money(t.max)}${t.differential !== null ? `, table differential ${money(t.differential)}` : ''}.</p>`;
  if (t.announced_minimum) {
    const [m, at] = t.announced_minimum;
    html += `<p data-testid="announced-minimum"><strong>Sign up:</strong> the minimum rises to ${money(m)} at ${clock(at)}${serverNow() >= at ? ' (the notice has run)' : ''}.</p>`;
  }
  html += `<div class="controls">
    <div><button type="button" data-act="announce" data-testid="announce-minimum" ${sup ? '' : 'disabled'}>Announce a higher minimum…</button></div>
    <div><button type="button" data-act="change-min" data-testid="change-minimum" ${sup ? '' : 'disabled'}>Change the minimum…</button></div>
    <div><button type="button" data-act="change-limits" data-testid="change-limits" ${sup ? '' : 'disabled'}>Change a wager's limits…</button></div>
  </div>`;
  // Each wager's limits as they stand (a supervisor may alter them).
  html += `<table class="offer-limits" data-testid="offer-limits"><thead><tr><th scope="col">Wager</th><th scope="col">Minimum</th><th scope="col">Maximum</th></tr></thead><tbody>${
    (t.offers || []).map((o) => `<tr data-testid="offer-limit-${esc(o.bet)}" data-min="${o.min}" data-max="${o.max}"><td>${esc(words(o.bet))}</td><td>${money(o.min)}</td><td>${money(o.max)}</td></tr>`).join('')}</tbody></table>`;
  if (!sup) html += '<p class="reason">Changing the limits is for a supervisor.</p>';
  if (rule) {
    html += `<details data-testid="minimum-quote"><summary>${esc(rule.cite)}: ${minutes ? `${minutes} minutes' notice for a higher minimum` : 'notice for a higher minimum'}</summary>${quoteHtml(rule)}</details>`;
  }
  renderInto($('#limits'), html);
}

/** The notice the rulebook asks for a higher minimum, as its text states it. */
function noticeMinutes() {
  const r = ruleByKey('minimum_change');
  const m = r && r.quote && /at least (\d+) minutes/.exec(r.quote);
  return m ? Number(m[1]) : null;
}

// ---------------------------------------------------------------------------
// Commands

function maxSeq() {
  return state.pit ? state.pit.notices.reduce((a, n) => Math.max(a, n.seq), 0) : 0;
}

async function command(body) {
  return api(`/api/tables/${state.tableId}/commands`, { method: 'POST', body });
}

/** After a command: fetch the pit view and show the notices it produced, with their rules. */
async function showOutcome(what, beforeSeq, { always = true } = {}) {
  await refreshNow();
  const fresh = state.pit ? state.pit.notices.filter((n) => n.seq > beforeSeq) : [];
  if (!fresh.length && !always) {
    $('#action-result').innerHTML = '';
    say(`${what}.`);
    return;
  }
  let html = `<h3>${esc(what)}</h3>`;
  if (fresh.length) {
    html += `<ol class="notices" data-testid="action-notices">${fresh.map((n) => noticeHtml(n, { open: true, fresh: true })).join('')}</ol>`;
  } else {
    html += '<p class="muted">Recorded. No rule-bearing notice followed.</p>';
  }
  $('#action-result').innerHTML = html;
  say(`${what}. ${fresh.map((n) => `${n.rule}: ${describe(n.event)}`).join('. ')}`);
}

/** Run a staff command from a button (not a dialog); errors to the alert region. */
async function simple(body, what) {
  const before = maxSeq();
  clearError();
  try {
    await command(body);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    showError(e);
    return;
  }
  await showOutcome(what, before, { always: false });
}

async function onAction(ev) {
  const b = ev.target.closest('[data-act]');
  if (!b || b.disabled) return;
  const t = state.table;
  switch (b.dataset.act) {
    case 'start-shoe':
      return simple({ command: 'start_shoe', source: { live: { decks: t.decks } }, cut: null, burn: null, show_burn: false }, `Live shoe of ${t.decks} decks started`);
    case 'open-betting':
      await simple({ command: 'open_betting', no_bet: false }, 'Betting opened');
      return;
    case 'close-betting':
      // The next thing a dealer does is enter the first card.
      if (isLive()) $('#card-input').focus();
      await simple({ command: 'close_betting' }, 'Betting closed: no more bets');
      if (isLive() && document.activeElement === document.body) $('#card-input').focus();
      return;
    case 'resume':
      return simple({ command: 'resume_coup' }, 'Coup resumed');
    case 'void-halted': {
      const before = maxSeq();
      clearError();
      try {
        await api(`/api/tables/${state.tableId}/void`, { method: 'POST', body: {} });
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return expired();
        showError(e);
        return;
      }
      return showOutcome('The stopped coup is void; every stake returned', before);
    }
    case 'approve':
      return simple({ command: 'approve_wager', wager: Number(b.dataset.wager) }, `Wager #${b.dataset.wager} approved`);
    case 'refuse':
      return refuseDialog(Number(b.dataset.wager));
    case 'toggle-open':
      return openCloseDialog();
    case 'irr':
      return irregularityDialog(b.dataset.cmd);
    case 'announce':
      return announceDialog();
    case 'change-min':
      return changeMinimumDialog();
    case 'change-limits':
      return changeLimitsDialog();
    case 'hold-send':
      queueHold = null;
      clearError();
      $('#card-input').focus();
      renderQueue();
      pump();
      return;
    case 'hold-discard':
      for (const item of cardQueue.splice(0)) setLog(item, 'discarded');
      queueHold = null;
      clearError();
      renderQueue();
      say('The queued cards were discarded; none of them was sent.');
      $('#card-input').focus();
      return;
    case 'step':
      return stepRecall(Number(b.dataset.delta));
    case 'recall-coup':
      state.recallCoup = Number(b.dataset.index);
      state.recallStep = 0;
      return renderRecall();
    default:
  }
}

// ---------------------------------------------------------------------------
// Card entry: typed or scanned, queued, sent one at a time in order

const cardQueue = []; // { n, card, table }
const cardLog = []; // { n, card, status, position }
let entryNo = 0;
let pumping = false;
let queueHold = null; // { message } while sending is paused

function onCardSubmit(ev) {
  ev.preventDefault();
  const input = $('#card-input');
  const text = input.value;
  input.value = '';
  const tokens = text.split(/[\s,;]+/).filter(Boolean);
  if (!tokens.length) return;
  const items = tokens.map((tok) => ({ n: ++entryNo, card: parseCard(tok), raw: tok, table: state.tableId }));
  for (const item of items) cardLog.push({ n: item.n, card: item.card || item.raw, status: item.card ? 'queued' : 'invalid' });
  // Kept in order: an entry that is not a card holds the ones after it.
  cardQueue.push(...items);
  while (cardLog.length > 14) cardLog.shift();
  renderQueue();
  pump();
}

/** The card an entry that was not a card should have been: it goes first. */
function onHoldFix(ev) {
  ev.preventDefault();
  const input = $('#card-fix');
  const card = parseCard(input.value);
  if (!card) {
    $('#hold-msg').textContent = `“${input.value}” is not a card either: write the rank then the suit, e.g. 9H or 10S.`;
    input.focus();
    return;
  }
  input.value = '';
  const item = { n: ++entryNo, card, raw: card, table: state.tableId };
  cardLog.push({ n: item.n, card, status: 'queued' });
  cardQueue.unshift(item);
  queueHold = null;
  clearError();
  renderQueue();
  $('#card-input').focus();
  pump();
}

function setLog(item, status, position) {
  const l = cardLog.find((x) => x.n === item.n);
  if (l) {
    l.status = status;
    if (position) l.position = position;
  }
}

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (cardQueue.length && !queueHold) {
      const item = cardQueue[0];
      if (!item.card) {
        cardQueue.shift();
        setLog(item, 'invalid');
        queueHold = {
          replace: true,
          message: `“${item.raw}” is not a card (write the rank, A, 2-10 or T, J, Q, K, then the suit, C, D, H or S). Sending is paused so that the cards stay in order: give the card it should have been and it is sent first, before any queued after it.`,
        };
        // Corrected in place: the field for the right card takes the focus,
        // beside the message (no second banner that outlives the fix).
        renderQueue();
        const fix = $('#card-fix');
        fix.scrollIntoView({ block: 'nearest' });
        fix.focus();
        break;
      }
      setLog(item, 'sending');
      renderQueue();
      const r = await sendCard(item);
      if (r === 'retry') continue;
      cardQueue.shift();
      renderQueue();
    }
  } finally {
    pumping = false;
    renderQueue();
  }
}

/** Send one card; 'retry' after a rate limit (the table never saw it). */
async function sendCard(item) {
  let before = null;
  try {
    // Where it goes: the position due just before it is sent (the engine places it).
    before = await api(`/api/tables/${item.table}`);
    await api(`/api/tables/${item.table}/commands`, {
      method: 'POST', body: { command: 'card_in', card: item.card, to: null, face_up: true },
    });
  } catch (e) {
    if (e instanceof ApiError && e.status === 429) {
      await new Promise((res) => setTimeout(res, Math.max(50, (e.body && e.body.retry_after_ms) || 200)));
      return 'retry';
    }
    if (e instanceof ApiError && e.status === 401) {
      setLog(item, 'unknown');
      queueHold = { message: 'Your session has ended; sign in again. The cards still queued were not sent.' };
      return 'stop';
    }
    if (e instanceof ApiError && e.status === 0) {
      setLog(item, 'unknown');
      queueHold = { message: `The connection failed while sending ${cardText(item.card)}: it may or may not have reached the table. Check the cards shown before sending the rest.` };
      return 'stop';
    }
    setLog(item, 'refused');
    queueHold = { message: `${cardText(item.card)} was refused: ${e.message}`, error: e };
    if (item.table === state.tableId) showError(e);
    return 'stop';
  }
  const pos = before && before.due;
  setLog(item, 'done', pos);
  if (item.table === state.tableId && before) {
    // Remember where the card went even if the coup closes with it.
    if (state.coupCards.coup !== before.coup) state.coupCards = { coup: before.coup, cards: Object.fromEntries(before.cards) };
    if (pos && !state.coupCards.cards[pos]) state.coupCards.cards[pos] = item.card;
    renderDeal();
    scheduleRefresh();
  }
  return 'done';
}

function renderQueue() {
  const el = $('#card-queue');
  const pending = cardQueue.length;
  el.dataset.pending = String(pending);
  el.dataset.held = queueHold ? 'true' : 'false';
  renderInto(el, pending ? `<p>${pending} card${pending === 1 ? '' : 's'} ${queueHold ? 'held' : 'waiting to be sent…'}</p>` : '');
  const hold = $('#hold-form');
  hold.hidden = !queueHold;
  if (queueHold) {
    $('#hold-msg').textContent = queueHold.message;
    $('#hold-fix-row').hidden = !queueHold.replace;
    const send = hold.querySelector('[data-act="hold-send"]');
    send.textContent = pending ? (queueHold.replace ? `Skip it, send the ${pending} queued` : `Send the ${pending} queued`) : (queueHold.replace ? 'Skip it' : 'Carry on');
    hold.querySelector('[data-act="hold-discard"]').hidden = !pending;
  }
  const statusWords = { queued: 'queued', sending: 'sending', done: '✓', refused: 'refused', unknown: 'not confirmed', invalid: 'not a card', discarded: 'discarded' };
  renderInto($('#card-log'), cardLog.slice().reverse().map((l) => `<li data-status="${l.status}" data-card="${esc(l.card)}">${esc(parseCard(l.card) ? cardText(l.card) : l.card)}${l.position ? ` → ${esc(POS_LABEL[l.position])}` : ''} <span class="muted">${statusWords[l.status] || l.status}</span></li>`).join(''));
}

// ---------------------------------------------------------------------------
// Dialogs

let dlgOpener = null;
let dlgConfirm = null;
let dlgBusy = false;

function setupDialog() {
  const dlg = $('#dialog');
  $('#dlg-cancel').addEventListener('click', () => dlg.close());
  dlg.addEventListener('close', () => {
    dlgConfirm = null;
    const back = dlgOpener && document.contains(dlgOpener) && !dlgOpener.disabled ? dlgOpener : (isLive() ? $('#card-input') : null);
    if (back) back.focus();
  });
  dlg.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Tab') return;
    const f = [...dlg.querySelectorAll('button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
      .filter((x) => !x.disabled && x.offsetParent !== null);
    if (!f.length) return;
    const first = f[0];
    const last = f[f.length - 1];
    if (ev.shiftKey && document.activeElement === first) { ev.preventDefault(); last.focus(); }
    else if (!ev.shiftKey && document.activeElement === last) { ev.preventDefault(); first.focus(); }
  });
  $('#dlg-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!dlgConfirm || dlgBusy) return;
    const btn = $('#dlg-confirm');
    const err = $('#dlg-error');
    err.innerHTML = '';
    dlgBusy = true;
    btn.disabled = true;
    const label = btn.textContent;
    btn.textContent = 'Sending…';
    try {
      const done = await dlgConfirm(new FormData($('#dlg-form')));
      if (done !== false) dlg.close();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) { dlg.close(); expired(); return; }
      err.innerHTML = errorHtml(e);
    } finally {
      dlgBusy = false;
      btn.disabled = false;
      btn.textContent = label;
    }
  });
}

/**
 * Open the dialog. `rules`: [{ key, caption }] quoted in full; `onConfirm(form)`
 * runs the command (throw to keep the dialog open with the error).
 */
function openDialog({ title, intro = '', rules = [], fields = '', confirm = 'Confirm', danger = false, onConfirm }) {
  const dlg = $('#dialog');
  dlgOpener = document.activeElement;
  $('#dlg-title').textContent = title;
  $('#dlg-intro').innerHTML = intro;
  const quoted = rules.map((r) => {
    const rule = ruleByKey(r.key);
    if (!rule) return '';
    const caption = r.caption ? `${r.caption} — ${rule.cite}` : rule.cite;
    // Rules that do not apply now are a click away.
    if (r.more) return `<details class="more-rule"><summary>${esc(caption)}</summary>${quoteHtml(rule, caption)}</details>`;
    return quoteHtml(rule, caption);
  }).join('');
  $('#dlg-rules').innerHTML = quoted;
  $('#dlg-rules').hidden = !quoted;
  $('#dlg-fields').innerHTML = fields;
  $('#dlg-error').innerHTML = '';
  const btn = $('#dlg-confirm');
  btn.textContent = confirm;
  btn.className = danger ? 'danger' : '';
  dlgConfirm = onConfirm;
  dlg.showModal();
  const first = dlg.querySelector('#dlg-fields input:not([type=radio]):not([type=checkbox]), #dlg-fields input:checked') || btn;
  first.focus();
}

/** Run a command from a dialog and show its notices; errors stay in the dialog. */
async function dialogCommand(body, what) {
  const before = maxSeq();
  await command(body);
  clearError();
  await showOutcome(what, before);
}

function currentCardsInOrder() {
  const t = state.table;
  return t ? t.cards.filter(([, c]) => c).map(([, c]) => c).join(' ') : '';
}

function irregularityDialog(cmd) {
  const t = state.table;
  const dealing = t && ['dealing'].includes(t.phase);
  const players = [...new Set(((state.pit && state.pit.coup && state.pit.coup.wagers) || []).map((w) => w.player))];
  const radio = (name, value, label, checked) => `<label class="choice"><input type="radio" name="${name}" value="${value}" data-testid="choice-${value}"${checked ? ' checked' : ''}><span>${label}</span></label>`;
  switch (cmd) {
    case 'face_up_in_shoe':
      return openDialog({
        title: 'Card found face up in the shoe',
        intro: `<p>${dealing
          ? 'A card of this coup has been dealt, so the rule for a card found face up <strong>within a coup</strong> applies: it is played as if it were face down, at the position due.'
          : 'No card of this coup has been dealt, so the card becomes the <strong>first card of a no-bet coup</strong>: wagers on this coup are returned.'} The engine applies the rule from the table's state.</p>`,
        rules: dealing
          ? [{ key: 'face_up_within', caption: 'Applies now' }, { key: 'face_up_first', caption: 'Before the first card', more: true }]
          : [{ key: 'face_up_first', caption: 'Applies now' }, { key: 'face_up_within', caption: 'After the first card', more: true }],
        fields: `<div class="field"><label for="dlg-card">The card found face up</label><input id="dlg-card" name="card" data-testid="dialog-card" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="e.g. 2C" required></div>`,
        confirm: 'Report face-up card',
        onConfirm: async (f) => {
          const card = parseCard(f.get('card'));
          if (!card) throw new Error('Enter the card found face up, e.g. 2C or 10S.');
          const pos = t.due;
          const coup = t.coup;
          await dialogCommand({ command: 'face_up_in_shoe', card }, `Face-up card ${cardText(card)} reported`);
          if (dealing && pos && state.coupCards.coup === coup && !state.coupCards.cards[pos]) {
            state.coupCards.cards[pos] = card;
            renderDeal();
          }
        },
      });
    case 'missing_or_foreign':
      return openDialog({
        title: 'Missing or foreign card',
        intro: '<p>The coup is declared void with all monies returned, and the remaining cards are removed and checked: the shoe ends.</p>',
        rules: [{ key: 'missing_or_foreign' }],
        fields: `<fieldset><legend>What was found</legend>
          ${radio('what', 'missing', 'A card is missing', true)}
          ${radio('what', 'foreign', 'A foreign card was found', false)}
          <div class="field"><label for="dlg-card">The foreign card (if known)</label><input id="dlg-card" name="card" data-testid="dialog-card" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="e.g. 5D"></div></fieldset>`,
        confirm: 'Void the coup',
        danger: true,
        onConfirm: async (f) => {
          let card = null;
          if (f.get('what') === 'foreign') {
            card = parseCard(f.get('card'));
            if (!card) throw new Error('Enter the foreign card, e.g. 5D, or choose "A card is missing".');
          }
          await dialogCommand({ command: 'missing_or_foreign', card }, card ? `Foreign card ${cardText(card)} reported` : 'Missing card reported');
        },
      });
    case 'misdeal':
      return openDialog({
        title: 'Misdeal',
        intro: '<p>Reconstruct the coup with the cards in their proper order (each player may then withdraw before play resumes), or, where it cannot be reconstructed, declare it void with all monies returned.</p>',
        rules: [{ key: 'misdeal' }],
        fields: `<fieldset><legend>Remedy</legend>
          ${radio('remedy', 'reconstruct', `Reconstruct with the cards in their proper dealing order${citeOf('misdeal') ? ` (${esc(citeOf('misdeal'))})` : ''}`, true)}
          <div class="field"><label for="dlg-cards">Cards in dealing order (Player 1st, Banker 1st, Player 2nd, Banker 2nd, then any third cards)</label>
          <input id="dlg-cards" name="cards" data-testid="dialog-cards" autocomplete="off" autocapitalize="characters" spellcheck="false" value="${esc(currentCardsInOrder())}"></div>
          ${radio('remedy', 'void', `It cannot be reconstructed: void the coup, all monies returned${citeOf('misdeal') ? ` (${esc(citeOf('misdeal'))})` : ''}`, false)}</fieldset>`,
        confirm: 'Apply remedy',
        onConfirm: async (f) => {
          if (f.get('remedy') === 'void') {
            await dialogCommand({ command: 'misdeal', reconstructed: null }, 'Misdeal: coup void');
          } else {
            const cards = parseCards(f.get('cards'));
            if (!cards.length) throw new Error('Enter the cards in their proper order, or choose to void the coup.');
            await dialogCommand({ command: 'misdeal', reconstructed: cards }, 'Misdeal: coup reconstructed');
          }
        },
      });
    case 'wrong_hand':
      return openDialog({
        title: 'Cards passed to the wrong player',
        rules: [{ key: 'wrong_hand' }],
        fields: `<fieldset><legend>Remedy</legend>
          ${radio('remedy', 'stand', 'The result stands', true)}
          ${radio('remedy', 'void', 'Void the hand at the player’s request (only where the rulebook allows it)', false)}</fieldset>`,
        confirm: 'Record',
        onConfirm: async (f) => {
          const v = f.get('remedy') === 'void';
          await dialogCommand({ command: 'wrong_hand', void_hand: v }, v ? 'Wrong hand: hand void' : 'Wrong hand: the result stands');
        },
      });
    case 'cutting_card_out':
      return openDialog({
        title: 'Cutting card out',
        intro: '<p>Remove the cutting card and place it to the side. The engine counts the coups left: finish this coup and one more, or, if it came out as the first card of a coup, this is the last coup.</p>',
        rules: [{ key: 'cutting_card' }, { key: 'last_coup', caption: 'If it comes out as the first card of a coup', more: true }],
        confirm: 'Record cutting card',
        onConfirm: async () => dialogCommand({ command: 'cutting_card_out' }, 'Cutting card out'),
      });
    case 'scanner_discrepancy':
      return openDialog({
        title: 'Scanner discrepancy',
        intro: '<p>A supervisor confirms the actual cards (in dealing order) and the coup completes with them; if the outcome cannot be confirmed, the coup is void.</p>',
        rules: [{ key: 'scanner_discrepancy' }],
        fields: `<fieldset><legend>Remedy</legend>
          ${radio('remedy', 'confirm', 'The actual cards are confirmed, in dealing order:', true)}
          <div class="field"><label for="dlg-cards">Confirmed cards</label>
          <input id="dlg-cards" name="cards" data-testid="dialog-cards" autocomplete="off" autocapitalize="characters" spellcheck="false" value="${esc(currentCardsInOrder())}"></div>
          ${radio('remedy', 'void', 'The outcome cannot be confirmed: void the coup', false)}</fieldset>`,
        confirm: 'Apply remedy',
        onConfirm: async (f) => {
          if (f.get('remedy') === 'void') {
            await dialogCommand({ command: 'scanner_discrepancy', confirmed: null }, 'Scanner discrepancy: coup void');
          } else {
            const cards = parseCards(f.get('cards'));
            if (cards.length < 4) throw new Error('Enter at least the four cards of the coup in dealing order, or choose to void it.');
            await dialogCommand({ command: 'scanner_discrepancy', confirmed: cards }, 'Scanner discrepancy: cards confirmed');
          }
        },
      });
    case 'invalidate':
      return openDialog({
        title: 'Invalidate the game',
        intro: '<p>The outcome is invalidated and the wagers refunded, except those of players named for a fraudulent act, which are forfeited.</p>',
        rules: [{ key: 'invalidated' }],
        // The reason is a rule the table's rulebook cites; at an RNG table the
        // server requires one once the coup's cards are out.
        fields: `<label>Reason <select name="reason" data-testid="void-reason">${['invalidated', 'shuffler_malfunction'].filter(citeOf).map((k) => `<option value="${k}">${esc(citeOf(k))}</option>`).join('')}</select></label>`
          + (players.length
            ? `<fieldset><legend>Forfeit the wagers of${citeOf('invalidated') ? ` (${esc(citeOf('invalidated'))})` : ''}</legend>${players.map((p) => `<label class="choice"><input type="checkbox" name="forfeit" value="${p}" data-testid="forfeit-${p}"><span>Player #${p}</span></label>`).join('')}</fieldset>`
            : '<p class="muted">No wagers on this coup.</p>'),
        confirm: 'Invalidate',
        danger: true,
        onConfirm: async (f) => {
          const forfeit = f.getAll('forfeit').map(Number);
          const reason = f.get('reason') || null;
          await dialogCommand({ command: 'invalidate', forfeit, reason }, forfeit.length ? 'Game invalidated; named players forfeit' : 'Game invalidated; wagers refunded');
        },
      });
    default:
  }
}

function refuseDialog(wager) {
  const w = state.pit && state.pit.coup.wagers.find((x) => x.wager === wager);
  openDialog({
    title: `Refuse wager #${wager}`,
    intro: w ? `<p>Player #${w.player}, ${esc(spotWords(w.spot))}: ${esc(words(w.bet))} ${money(w.amount)}. The wager is removed from the layout and returned.</p>` : '',
    rules: [{ key: 'supervisor_refusal' }],
    confirm: 'Refuse wager',
    danger: true,
    onConfirm: async () => dialogCommand({ command: 'refuse_wager', wager }, `Wager #${wager} refused`),
  });
}

function openCloseDialog() {
  const t = state.table;
  const open = !t.open;
  openDialog({
    title: open ? `Open ${t.name}` : `Close ${t.name}`,
    intro: open
      ? '<p>The table opens for play.</p>'
      : '<p>The coup in progress is finished; then the table deals no more until it is opened again. (The rulebooks ask no notice for this; their notice is for a higher minimum.)</p>',
    confirm: open ? 'Open table' : 'Close table',
    danger: !open,
    onConfirm: async () => {
      await api(`/api/tables/${t.id}/open`, { method: 'POST', body: { open } });
      await refreshNow();
      await loadTables();
      say(open ? 'The table is open.' : 'The table is closed: the coup in progress finishes, then no more.');
    },
  });
}

function announceDialog() {
  const t = state.table;
  const minutes = noticeMinutes();
  const suggest = ((t.min * 2) / 100).toFixed(2);
  openDialog({
    title: 'Announce a higher minimum',
    intro: `<p>The sign goes up now. ${minutes ? `The rulebook asks at least <strong>${minutes} minutes</strong>' notice: the new minimum may take effect from about <strong>${clock(serverNow() + minutes * 60000)}</strong>` : 'The engine adds the rulebook\'s notice period'}; the table then shows the exact time.</p>`,
    rules: [{ key: 'minimum_change' }],
    fields: `<div class="field"><label for="dlg-min">New minimum (dollars; currently ${money(t.min)})</label><input id="dlg-min" name="minimum" inputmode="decimal" data-testid="dialog-minimum" value="${suggest}"></div>`,
    confirm: 'Put up the sign',
    onConfirm: async (f) => {
      const minimum = parseMoney(f.get('minimum'));
      if (!minimum) throw new Error('Enter the new minimum in dollars, e.g. 20 or 20.00.');
      if (minimum <= t.min) throw new Error(`The announced minimum must be higher than the current ${money(t.min)}.`);
      // at_ms is the clock now; the engine adds the rulebook's notice (NSW 6.7).
      await dialogCommand({ command: 'announce_minimum', minimum, at_ms: serverNow() }, `Higher minimum ${money(minimum)} announced`);
    },
  });
}

/** NSW 6.7: a wager's limits altered between coups: its maximum, and a side
 * bet's minimum (the main wagers' minimum by "Change the minimum", with its
 * notice). The server refuses what the rulebook does not allow, citing it. */
function changeLimitsDialog() {
  const t = state.table;
  const main = ['player', 'banker', 'tie'];
  openDialog({
    title: "Change a wager's limits",
    intro: `<p>Between coups. A side bet's minimum and maximum, or a main wager's maximum; the main wagers' minimum changes with "Change the minimum", which keeps its notice${citeOf('minimum_change') ? ` (${esc(citeOf('minimum_change'))})` : ''}.</p>`,
    rules: [{ key: 'minimum_change' }],
    fields: `<div class="field"><label for="dlg-bet">Wager</label><select id="dlg-bet" name="bet" data-testid="dialog-bet">${
      (t.offers || []).map((o) => `<option value="${esc(o.bet)}" data-min="${o.min}" data-max="${o.max}">${esc(words(o.bet))} (now ${money(o.min)}–${money(o.max)})</option>`).join('')}</select></div>
      <div class="field"><label for="dlg-lmin">Minimum (dollars; side bets only, empty to keep it)</label><input id="dlg-lmin" name="min" inputmode="decimal" data-testid="dialog-limit-min"></div>
      <div class="field"><label for="dlg-lmax">Maximum (dollars)</label><input id="dlg-lmax" name="max" inputmode="decimal" data-testid="dialog-limit-max"></div>`,
    confirm: 'Change the limits',
    onConfirm: async (f) => {
      const bet = String(f.get('bet'));
      const max = parseMoney(String(f.get('max') || ''));
      if (!max) throw new Error('Maximum: enter it in dollars, e.g. 500 or 500.00.');
      const minText = String(f.get('min') || '').trim();
      const min = minText === '' ? null : parseMoney(minText);
      if (minText !== '' && !min) throw new Error('Minimum: enter it in dollars, or leave it empty to keep it.');
      if (min !== null && main.includes(bet)) throw new Error(`The ${words(bet)} minimum changes with "Change the minimum", which keeps its notice.`);
      await dialogCommand({ command: 'change_limits', bet, min, max }, `${words(bet)} limits changed: maximum ${money(max)}${min !== null ? `, minimum ${money(min)}` : ''}`);
    },
  });
}

function changeMinimumDialog() {
  const t = state.table;
  const players = [...new Set(((state.pit && state.pit.coup && state.pit.coup.wagers) || []).map((w) => w.player))];
  const ann = t.announced_minimum;
  const noticeRun = ann && serverNow() >= ann[1];
  openDialog({
    title: 'Change the minimum',
    intro: `<p>Currently ${money(t.min)}.${ann ? ` Announced: ${money(ann[0])} from ${clock(ann[1])}${noticeRun ? ' — the notice has run.' : ' — the notice has not yet run.'}` : ' No higher minimum has been announced.'}
      A raise whose notice has not run lets the players present keep the old minimum${citeOf('minimum_change') ? ` (${esc(citeOf('minimum_change'))})` : ''}; tick them below.</p>`,
    rules: [{ key: 'minimum_change' }],
    fields: `<div class="field"><label for="dlg-min">New minimum (dollars)</label><input id="dlg-min" name="minimum" inputmode="decimal" data-testid="dialog-minimum" value="${ann ? (ann[0] / 100).toFixed(2) : (t.min / 100).toFixed(2)}"></div>
      <fieldset><legend>Players present (keep the old minimum on a raise without notice)</legend>
      ${players.length ? players.map((p) => `<label class="choice"><input type="checkbox" name="present" value="${p}" checked data-testid="present-${p}"><span>Player #${p} (has a wager this coup)</span></label>`).join('') : '<p class="muted">No player has a wager on this coup.</p>'}
      <div class="field"><label for="dlg-others">Other players present (player numbers, comma separated)</label><input id="dlg-others" name="others" data-testid="dialog-present" inputmode="numeric"></div></fieldset>`,
    confirm: 'Change the minimum',
    onConfirm: async (f) => {
      const minimum = parseMoney(f.get('minimum'));
      if (!minimum) throw new Error('Enter the new minimum in dollars, e.g. 20 or 20.00.');
      const others = String(f.get('others') || '').split(/[\s,;]+/).filter(Boolean);
      if (others.some((x) => !/^\d+$/.test(x))) throw new Error('Other players present: write player numbers such as 5, 7.');
      const present = [...new Set([...f.getAll('present').map(Number), ...others.map(Number)])];
      await dialogCommand({ command: 'change_minimum', minimum, at_ms: serverNow(), present }, `Minimum changed to ${money(minimum)}`);
    },
  });
}

// ---------------------------------------------------------------------------
// Inspector: recall and verification

/** Whether a recalled coup is over: closed after its settlement, or voided. */
function coupDone(c) {
  return c.records.some((rec) => rec.event && ['coup_closed', 'coup_voided'].includes(rec.event.event));
}

async function loadRecall() {
  const id = state.tableId;
  if (id === null) return;
  const n = Math.min(100, Math.max(1, Number($('#recall-last').value) || 5));
  renderInto($('#recall'), '<p class="muted">Loading the audit chain…</p>');
  try {
    const r = await api(`/api/tables/${id}/audit?last=${n}`);
    if (id !== state.tableId) return;
    state.recall = r;
    // The last completed coup, not one still being dealt.
    const done = r.coups.map(coupDone);
    const last = done.lastIndexOf(true);
    state.recallCoup = last >= 0 ? last : Math.max(0, r.coups.length - 1);
    state.recallStep = 0;
    renderRecall();
    say(`Recall loaded: ${r.coups.length} coup${r.coups.length === 1 ? '' : 's'} of table ${id}.`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    renderInto($('#recall'), '');
    showError(e);
  }
}

function stepRecall(delta) {
  const c = state.recall && state.recall.coups[state.recallCoup];
  if (!c) return;
  state.recallStep = Math.min(c.records.length - 1, Math.max(0, state.recallStep + delta));
  renderRecall();
  const cur = $('#recall [aria-current="step"]');
  if (cur) cur.scrollIntoView({ block: 'nearest' });
}

function renderRecall() {
  const r = state.recall;
  if (!r) return;
  if (!r.coups.length) {
    renderInto($('#recall'), '<p data-testid="recall-empty">No coups recorded at this table yet.</p>');
    return;
  }
  // Wagers by id across the recalled coups, so a settlement names its bet.
  const wagers = new Map();
  for (const c of r.coups) for (const rec of c.records) if (rec.event.event === 'wager_placed') wagers.set(rec.event.wager.id, rec.event.wager);
  const pick = r.coups.map((c, i) => `<button type="button" class="${i === state.recallCoup ? '' : 'secondary'}" data-act="recall-coup" data-index="${i}" data-testid="recall-coup-${c.coup}" data-complete="${coupDone(c)}" aria-pressed="${i === state.recallCoup}">Coup ${c.coup}${coupDone(c) ? '' : ' (in progress)'}</button>`).join('');
  const c = r.coups[state.recallCoup];
  const step = c.records[state.recallStep];
  const ruleOf = (e) => (e.rule ? ` <span class="cite-tag">${esc(e.rule)}</span>` : '');
  const items = c.records.map((rec, i) => `<li data-testid="record-${rec.seq}" data-event="${esc(rec.event.event)}"${i === state.recallStep ? ' aria-current="step"' : ''}>
      <span>#${rec.seq}</span><span class="h mono" title="${esc(rec.hash)}">${esc(short(rec.hash, 10))}</span><span class="w">${esc(describe(rec.event, { wagers }))}${ruleOf(rec.event)}</span></li>`).join('');
  const html = `<div class="row" role="group" aria-label="Coups recalled">${pick}</div>
    <article class="recall-coup" data-testid="recall-coup" data-coup="${c.coup}">
      <h3>Table ${r.table}, coup ${c.coup}</h3>
      <p class="muted">Rulebook ${esc(c.rulebook)} (SHA-256 <span class="mono">${esc(short(c.rulebook_sha256, 16))}…</span>) · engine ${esc(c.engine)} · ${c.records.length} records</p>
      <div class="stepper">
        <button type="button" class="secondary" data-act="step" data-delta="-1" data-testid="recall-prev" ${state.recallStep === 0 ? 'disabled' : ''}>◀ Previous</button>
        <span data-testid="recall-position">Step ${state.recallStep + 1} of ${c.records.length}</span>
        <button type="button" data-act="step" data-delta="1" data-testid="recall-next" ${state.recallStep >= c.records.length - 1 ? 'disabled' : ''}>Next ▶</button>
      </div>
      <div class="step-detail" data-testid="recall-step" data-seq="${step.seq}">
        <p><strong>Record #${step.seq}:</strong> ${esc(describe(step.event, { wagers }))}${ruleOf(step.event)}</p>
        <p class="muted">hash <span class="mono">${esc(step.hash)}</span></p>
        <details><summary>Record as stored</summary><pre class="mono" style="white-space:pre-wrap">${esc(JSON.stringify(step.event, null, 2))}</pre></details>
      </div>
      <ol class="records" data-testid="recall-records">${items}</ol>
    </article>`;
  renderInto($('#recall'), html);
}

async function runVerify() {
  const el = $('#verify-status');
  const led = $('#ledger-status');
  const btn = $('#run-verify');
  btn.disabled = true;
  el.dataset.ok = '';
  el.textContent = 'Verifying…';
  led.textContent = '';
  try {
    const v = await api('/api/verify');
    el.dataset.ok = String(v.ok);
    el.innerHTML = `${v.ok ? '✓ Verified: OK' : '✗ Problems found'} — ${v.tables} tables, ${v.records} records, ${v.shoes} shoes, ${v.coups} coups, ${v.settlements} settlements checked.`
      + (v.problems.length ? `<ul data-testid="verify-problems">${v.problems.map((p) => `<li>${esc(typeof p === 'string' ? p : JSON.stringify(p))}</li>`).join('')}</ul>` : '');
    const l = await api('/api/ledger/check');
    led.dataset.ok = String(l.ok);
    led.textContent = l.ok
      ? `✓ Ledger balances: OK — ${l.accounts} accounts, ${l.transfers} transfers.`
      : `✗ Ledger problem: ${l.problem}`;
    say(v.ok && l.ok ? 'Verification passed.' : 'Verification found problems.');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    el.dataset.ok = 'false';
    el.textContent = 'Verification could not run: ' + e.message;
  } finally {
    btn.disabled = false;
  }
}

start();
