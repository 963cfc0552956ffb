// The pit console: dealers, supervisors, inspectors (and the administrator).
// Plain ES modules, no build step: this one signs in, follows a table and
// renders it; card entry (pit-cards.js), the dialogs (pit-dialogs.js), the
// recall (pit-recall.js), events in words (pit-words.js) and the shared state
// (pit-base.js) are their own files. The rules are the engine's: this page
// never decides an outcome, a position or a payout, it shows what the server
// says and sends the staff's commands.

import { auth, api, ApiError, login, logout, money, cardParts, POSITIONS, followTable, esc, words, html, raw, $ } from '/assets/common.js';
import { BANKER_POS, PHASE_WORDS, PLAYER_POS, POS_LABEL, cardText, citeOf, clearError, clock, dealingWords, isInspector, isLive, isStaff, isSupervisor, quoteHtml, renderInto, role, ruleByKey, ruleForCite, say, serverNow, showError, sideOf, sideWords, spotWords, state, who } from '/assets/pit-base.js';
import { describe } from '/assets/pit-words.js';
import { holdDiscard, holdSend, onCardSubmit, onHoldFix, restoreQueue } from '/assets/pit-cards.js';
import { announceDialog, changeLimitsDialog, changeMinimumDialog, irregularityDialog, openCloseDialog, refuseDialog, setupDialog } from '/assets/pit-dialogs.js';
import { loadRecall, renderRecall, runVerify, stepRecall } from '/assets/pit-recall.js';
import { refreshExposure, watches } from '/assets/pit-exposure.js';
import { rates, refreshRatings } from '/assets/pit-ratings.js';

// ---------------------------------------------------------------------------
// Sign in / out

async function start() {
  $('#login-form').addEventListener('submit', onLogin);
  $('#logout').addEventListener('click', onLogout);
  $('#card-form').addEventListener('submit', onCardSubmit);
  $('#hold-form').addEventListener('submit', onHoldFix);
  $('#recall-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadRecall(); });
  $('#run-verify').addEventListener('click', runVerify);
  $('#ratings-refresh').addEventListener('click', refreshRatings);
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

export async function loadTables() {
  try {
    const r = await api('/api/tables');
    // A table closed for good stays in the records, not on the floor.
    state.tables = r.tables.filter((t) => !t.closed);
    renderTables();
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    showError(e);
  }
}

export function expired() {
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
  if (isStaff()) restoreQueue(id);
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
  // The card field, unless cards kept from before a reload wait for a
  // correction: then its field keeps the focus (`pit-cards.js`).
  const fixing = !$('#hold-fix-row').hidden && !$('#hold-form').hidden;
  if (focusEntry && isStaff() && isLive() && !fixing) $('#card-input').focus();
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
  refreshExposure();
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

export function scheduleRefresh() {
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
export async function refreshNow() {
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
  $('#exposure-panel').hidden = !picked || !watches();
  $('#ratings-panel').hidden = !picked || !rates();
  if (picked) {
    refreshExposure();
    refreshRatings();
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

export function renderDeal() {
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
  const off = sup ? '' : raw('disabled');
  const [m, at] = t.announced_minimum || [];
  const out = html`<p>Minimum ${money(t.min)}, maximum ${money(t.max)}${t.differential !== null ? `, table differential ${money(t.differential)}` : ''}.</p>
    ${t.announced_minimum ? html`<p data-testid="announced-minimum"><strong>Sign up:</strong> the minimum rises to ${money(m)} at ${clock(at)}${serverNow() >= at ? ' (the notice has run)' : ''}.</p>` : ''}
    <div class="controls">
      <div><button type="button" data-act="announce" data-testid="announce-minimum" ${off}>Announce a higher minimum…</button></div>
      <div><button type="button" data-act="change-min" data-testid="change-minimum" ${off}>Change the minimum…</button></div>
      <div><button type="button" data-act="change-limits" data-testid="change-limits" ${off}>Change a wager's limits…</button></div>
    </div>
    <table class="offer-limits" data-testid="offer-limits"><thead><tr><th scope="col">Wager</th><th scope="col">Minimum</th><th scope="col">Maximum</th></tr></thead>
    <tbody>${(t.offers || []).map((o) => html`<tr data-testid="offer-limit-${o.bet}" data-min="${o.min}" data-max="${o.max}"><td>${words(o.bet)}</td><td>${money(o.min)}</td><td>${money(o.max)}</td></tr>`)}</tbody></table>
    ${sup ? '' : html`<p class="reason">Changing the limits is for a supervisor.</p>`}
    ${rule ? html`<details data-testid="minimum-quote"><summary>${rule.cite}: ${minutes ? `${minutes} minutes' notice for a higher minimum` : 'notice for a higher minimum'}</summary>${raw(quoteHtml(rule))}</details>` : ''}`;
  renderInto($('#limits'), String(out));
}

/** The notice the rulebook asks for a higher minimum, as its text states it. */
export function noticeMinutes() {
  const r = ruleByKey('minimum_change');
  const m = r && r.quote && /at least (\d+) minutes/.exec(r.quote);
  return m ? Number(m[1]) : null;
}

// ---------------------------------------------------------------------------
// Commands

export function maxSeq() {
  return state.pit ? state.pit.notices.reduce((a, n) => Math.max(a, n.seq), 0) : 0;
}

export async function command(body) {
  return api(`/api/tables/${state.tableId}/commands`, { method: 'POST', body });
}

/** After a command: fetch the pit view and show the notices it produced, with their rules. */
export async function showOutcome(what, beforeSeq, { always = true } = {}) {
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
      return holdSend();
    case 'hold-discard':
      return holdDiscard();
    case 'step':
      return stepRecall(Number(b.dataset.delta));
    case 'recall-coup':
      state.recallCoup = Number(b.dataset.index);
      state.recallStep = 0;
      return renderRecall();
    default:
  }
}

start();
