// Surveillance (`/surveillance`): the exposure monitor for every table
// (GET /api/exposure): each offered wager's exact expected return to the
// player from the cards not yet shown, the table's exposure at its maximum,
// and the alerts, newest first, each naming the card that turned a wager;
// and who is taking it (GET /api/protection, ratings-view.js).
// For surveillance, the pit's supervisors, inspectors and admins (the
// server refuses anyone else). It reads every second; nothing here changes
// anything. No markup is made from data (admin-base.js's `el`).

import { ApiError, api, auth, cardParts, logout } from '/assets/common.js';
import { language, languages, setLanguage, tr, useSavedLanguage } from '/assets/i18n.js';
import { $, el, fill, money, roleWords, showError, signInWith } from '/assets/admin-base.js';
import { acrossList, takingList } from '/assets/ratings-view.js';

const ROLES = ['surveillance', 'supervisor', 'inspector', 'admin'];
const EVERY_MS = 1000;

/** The alerts seen so far (newest first) and the last one's number. */
const seen = { alerts: [], last: 0 };
let user = null;
let timer = null;

async function start() {
  const select = $('#lang');
  fill(select, languages().map(([tag, name]) => el('option', { value: tag, lang: tag }, name)));
  useSavedLanguage();
  select.value = language();
  select.addEventListener('change', () => setLanguage(select.value));
  $('#login-form').addEventListener('submit', onLogin);
  $('#logout').addEventListener('click', async () => { await logout(); location.reload(); });
  const me = await api('/api/me').catch(() => null);
  if (me && ROLES.includes(me.role)) enter({ id: me.user, name: me.name, role: me.role });
  else showLogin();
}

function showLogin() {
  $('#login-view').hidden = false;
  $('#watch-view').hidden = true;
  $('#login-name').focus();
}

async function onLogin(ev) {
  ev.preventDefault();
  await signInWith(ROLES, enter, 'watch.not_for_role');
}

function enter(u) {
  user = u;
  auth.set(u);
  $('#login-view').hidden = true;
  $('#watch-view').hidden = false;
  $('#logout').hidden = false;
  fill($('#who'), tr('admin.signed_in'), ' ', el('strong', {}, u.name), ' ',
    el('span', { class: 'badge role', testid: 'who-role' }, roleWords(u.role)));
  document.addEventListener('languagechange', () => { if (last) render(last); if (taking) renderTaking(taking); });
  $('#taking-refresh').addEventListener('click', loadTaking);
  tick();
  loadTaking();
}

/** The surveillance report of the current gaming day (`/api/protection`): read on entry and on asking, not every second (it is computed from the day's records). */
let taking = null;

async function loadTaking() {
  try {
    taking = await api('/api/protection');
    renderTaking(taking);
  } catch (e) {
    showError(e);
  }
}

function renderTaking(r) {
  $('#taking-note').textContent = tr('rate.taking_note', { z: r.z_flag, n: r.min_wagers });
  fill($('#taking'), takingList(r));
  fill($('#across'), acrossList(r));
}

let last = null;

async function tick() {
  clearTimeout(timer);
  try {
    const x = await api(`/api/exposure?after=${seen.last}`);
    for (const a of x.alerts) seen.alerts.unshift(a);
    seen.alerts.length = Math.min(seen.alerts.length, 200);
    if (x.alerts.length) seen.last = x.alerts[x.alerts.length - 1].id;
    last = x;
    render(x);
    $('#errors').textContent = '';
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) { auth.clear(); location.reload(); return; }
    showError(e);
  }
  timer = setTimeout(tick, EVERY_MS);
}

function render(x) {
  fill($('#alerts'), seen.alerts.length ? seen.alerts.map(alertItem) : el('li', { class: 'muted' }, tr('watch.no_alerts')));
  fill($('#tables'), x.tables.map(tablePanel));
}

/** Cards as the pit writes them: rank and suit symbol. */
function cardWords(ids) {
  if (!ids.length) return tr('watch.no_card');
  return ids.map((id) => { const p = cardParts(id); return `${p.rank}${p.symbol}`; }).join(' ');
}

const pct = (v) => `${v >= 0 ? '+' : ''}${v.toFixed(3)}%`;

function alertItem(a) {
  const when = new Date(a.at_ms).toLocaleTimeString(language());
  return el('li', { testid: 'alert', data: { table: a.table, bet: a.bet, cards: a.cards.join(' ') } },
    el('strong', {}, tr('watch.alert_line', { table: a.table, bet: a.bet, ev: pct(a.ev_percent) })), ' ',
    tr('watch.alert_where', { shoe: a.shoe, coup: a.coup, card: cardWords(a.cards), seq: a.seq }), ' ',
    el('span', { class: 'muted small' }, when));
}

function tablePanel(t) {
  const rows = t.offers.map((o) => el('tr', { testid: 'offer', data: { bet: o.bet, alert: String(o.alert) }, class: o.alert ? 'alert' : null },
    el('th', { scope: 'row' }, o.bet, el('span', { class: 'muted small' }, ` ${o.pay_table}`)),
    el('td', { title: o.ev }, pct(o.ev_percent)),
    el('td', {}, money(o.max)),
    el('td', {}, money(o.exposure, { sign: true })),
    el('td', {}, o.alert ? el('span', { class: 'badge off' }, tr('watch.flag')) : '')));
  return el('div', { class: 'panel', testid: `watch-table-${t.table}`, data: { alert: String(t.alert) } },
    el('h3', {}, tr('watch.table', { table: t.table, shoe: t.shoe, coup: t.coup })),
    el('p', { class: 'muted small' }, tr('watch.pool', { unseen: t.unseen, shown: t.shown, threshold: pct(t.threshold_percent) })),
    t.unpriced ? el('p', {}, t.unpriced) : null,
    el('details', { testid: 'reveals' }, el('summary', {}, tr('watch.reveals')),
      el('ul', { class: 'small' }, t.reveals.map((r) => el('li', {}, r)))),
    el('div', { class: 'scroll-x', tabindex: '0', role: 'group', 'aria-label': tr('watch.caption', { table: t.table }) },
      el('table', { class: 'grid' },
        el('caption', { class: 'sr-only' }, tr('watch.caption', { table: t.table })),
        el('thead', {}, el('tr', {},
          el('th', { scope: 'col' }, tr('watch.col.bet')),
          el('th', { scope: 'col' }, tr('watch.col.ev')),
          el('th', { scope: 'col' }, tr('watch.col.max')),
          el('th', { scope: 'col' }, tr('watch.col.exposure')),
          el('th', { scope: 'col' }, tr('watch.col.alert')))),
        el('tbody', {}, rows))));
}

start();
