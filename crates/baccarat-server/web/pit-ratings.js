// The pit's ratings panel (issue 50, part 5): the chosen table's players
// rated over the current gaming day (GET /api/ratings): time at the table,
// decisions an hour as measured, the average bet, theo, theo from the shoe
// and the result against its 95% band. Read when the table is chosen and
// on asking (it is computed from the day's records, not pushed). For the
// supervisor, the inspector and the admin. No markup from data.

import { api, money, $ } from '/assets/common.js';
import { node, state } from '/assets/pit-base.js';

const RATERS = ['supervisor', 'inspector', 'admin'];

/** Whether the person signed in reads the ratings. */
export const rates = () => !!state.user && RATERS.includes(state.user.role);


const rate = (x) => (x === null || x === undefined ? '—' : x.toFixed(1));

/** Read the chosen table's ratings again. */
export async function refreshRatings() {
  if (!rates() || state.tableId === null) return;
  const id = state.tableId;
  try {
    const r = await api('/api/ratings');
    if (id === state.tableId) render(r, id);
  } catch (e) {
    if (id === state.tableId) $('#ratings').replaceChildren(node('p', { class: 'muted' }, e.message));
  }
}

function render(r, id) {
  const mine = r.players.filter((p) => p.table === id);
  const pace = r.tables.find((t) => t.table === id);
  const head = node('p', { class: 'muted small', testid: 'ratings-day' },
    `Gaming day ${r.date}` + (pace ? `: ${pace.coups} coups, ${rate(pace.coups_per_hour)} an hour, theo ${money(pace.theo)}` : ''));
  if (!mine.length) {
    $('#ratings').replaceChildren(head, node('p', { class: 'muted' }, 'No one rated at this table today.'));
    return;
  }
  const cols = ['Player', 'Minutes', 'Decisions/h', 'Average bet', 'Theo', 'Theo (shoe)', 'Won', 'Expected ± 95%'];
  const rows = mine.map((p) => node('tr', { testid: `rating-${p.player}`, class: p.within_band ? 'in' : 'outside' },
    [p.name || `#${p.player}`, String(p.minutes), rate(p.decisions_per_hour), money(p.average_bet), money(p.theo),
      money(p.theo_shoe), money(p.won), `${money(p.expected_won)} ± ${money(p.band)}`].map((c) => node('td', {}, c))));
  const table = node('table', { class: 'exposure', testid: 'ratings-table' },
    node('thead', {}, node('tr', {}, cols.map((c) => node('th', { scope: 'col' }, c)))),
    node('tbody', {}, rows));
  // Eight columns: the panel scrolls sideways rather than spill.
  $('#ratings').replaceChildren(head, node('div', { class: 'scroll-x', tabindex: '0', role: 'group', 'aria-label': 'Ratings' }, table),
    node('p', { class: 'muted small' }, 'A result outside its 95% band is marked.'));
}
