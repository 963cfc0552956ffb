// The pit's exposure panel (issue 50): the chosen table's offered wagers
// priced from the cards it has shown (GET /api/tables/{id}/exposure), read
// again after every push, at most about four times a second. For the
// supervisor, the inspector, surveillance and the admin; never the dealer
// (who could signal the count) and never a player. No markup from data.

import { api, money, $ } from '/assets/common.js';
import { node, state } from '/assets/pit-base.js';

const WATCHERS = ['supervisor', 'inspector', 'surveillance', 'admin'];
const MIN_MS = 250;

/** Whether the person signed in reads the monitor. */
export const watches = () => !!state.user && WATCHERS.includes(state.user.role);

let inflight = false;
let wanted = false;
let lastAt = 0;

/** Read the chosen table's pricing again (coalesced). */
export function refreshExposure() {
  if (!watches() || state.tableId === null) return;
  wanted = true;
  if (inflight) return;
  const wait = Math.max(0, lastAt + MIN_MS - Date.now());
  inflight = true;
  setTimeout(load, wait);
}

async function load() {
  wanted = false;
  lastAt = Date.now();
  const id = state.tableId;
  try {
    const t = await api(`/api/tables/${id}/exposure`);
    if (id === state.tableId) render(t);
  } catch (e) {
    if (id === state.tableId) $('#exposure').replaceChildren(node('p', { class: 'muted' }, e.message));
  } finally {
    inflight = false;
    if (wanted) refreshExposure();
  }
}


const pct = (v) => `${v >= 0 ? '+' : ''}${v.toFixed(3)}%`;

function render(t) {
  const panel = $('#exposure-panel');
  panel.dataset.alert = String(t.alert);
  const rows = t.offers.map((o) => node('tr', { testid: `exposure-${o.bet}`, data: { alert: String(o.alert) }, class: o.alert ? 'alert' : '' },
    node('th', { scope: 'row' }, o.bet),
    node('td', { title: `exactly ${o.ev}` }, pct(o.ev_percent)),
    node('td', {}, money(o.exposure, { sign: true })),
    node('td', {}, o.alert ? node('strong', { class: 'flag' }, 'ALERT') : '')));
  $('#exposure').replaceChildren(...[
    node('p', { class: 'muted small' },
      `Shoe ${t.shoe}, coup ${t.coup}: ${t.unseen} cards not yet shown, ${t.shown} shown. Alert above ${pct(t.threshold_percent)}.`),
    t.unpriced ? node('p', {}, t.unpriced) : null,
    node('table', { class: 'exposure' },
      node('caption', { class: 'sr-only' }, 'Each wager offered, priced from the cards not yet shown'),
      node('thead', {}, node('tr', {},
        node('th', { scope: 'col' }, 'Wager'),
        node('th', { scope: 'col' }, "Player's EV"),
        node('th', { scope: 'col' }, 'On a maximum wager'),
        node('th', { scope: 'col' }, 'Alert'))),
      node('tbody', {}, rows)),
  ].filter(Boolean));
}
