// The ratings and the surveillance report as grids (GET /api/ratings,
// GET /api/protection), shared by the back office's books, the pit console
// and the surveillance page. The figures are the server's, shown as they
// come: money in cents, rates and statistics as numbers. No markup is made
// from data (admin-base.js's `el`).

import { tr } from '/assets/i18n.js';
import { el, grid, money } from '/assets/admin-base.js';

const num = (x, digits = 1) => (x === null || x === undefined ? '—' : Number(x).toFixed(digits));


/** Each player's rating at each table. */
export function ratingsGrid(r, caption = tr('rate.players')) {
  const heads = ['player', 'table', 'minutes', 'per_hour', 'average_bet', 'theo', 'theo_shoe', 'won', 'band']
    .map((k) => tr(`rate.col.${k}`));
  const rows = r.players.map((p) => [`${p.player}-${p.table}`, [[p.name || `#${p.player}`], [p.table_name || `#${p.table}`],
    [String(p.minutes), 1], [num(p.decisions_per_hour), 1], [money(p.average_bet), 1], [money(p.theo), 1],
    [money(p.theo_shoe), 1], [money(p.won), 1], [`${money(p.expected_won)} ± ${money(p.band)}`, 1]],
  p.within_band ? null : 'outside']);
  return grid('ratings', caption, heads, rows, tr('rate.none'));
}

/** Each table's pace. */
export function paceGrid(r) {
  const heads = ['table', 'coups', 'minutes', 'coups_per_hour', 'theo', 'theo_per_hour'].map((k) => tr(`rate.col.${k}`));
  const rows = r.tables.map((t) => [t.table, [[t.name || `#${t.table}`], [String(t.coups), 1], [String(t.minutes), 1],
    [num(t.coups_per_hour), 1], [money(t.theo), 1], [t.theo_per_hour === null ? '—' : money(t.theo_per_hour), 1]]]);
  return grid('pace', tr('rate.tables'), heads, rows, tr('rate.none'));
}

/** The surveillance report: each player's wagers of each kind tested against the shoe, most suspicious first. */
export function takingList(r, limit = 50) {
  const lines = r.taking.slice(0, limit);
  if (!lines.length) return el('p', { class: 'muted' }, tr('rate.no_taking'));
  return el('ol', { class: 'notices', testid: 'taking' }, lines.map((l) => el('li',
    { testid: `taking-${l.player}-${l.table}-${l.bet}`, class: l.flagged ? 'flagged' : null },
    l.flagged ? el('span', { class: 'badge off', testid: 'taking-flag' }, tr('rate.flagged')) : '', ' ',
    el('strong', {}, tr('rate.taking_line', { name: l.name || `#${l.player}`, table: l.table_name || `#${l.table}`, bet: l.bet })), ' ',
    tr('rate.taking_figures', {
      wagers: l.wagers, coups: l.coups, positive: l.positive_wagers, positive_coups: l.positive_coups,
      ev: num(l.ev_taken_percent, 2), rho: num(l.rank_correlation, 2), z: num(l.z, 2),
    }),
    l.wagers_seen.length ? el('details', {}, el('summary', {}, tr('rate.seen')),
      el('ul', {}, l.wagers_seen.map((w) => el('li', {}, tr('rate.seen_line', {
        shoe: w.shoe, coup: w.coup, stake: money(w.stake), ev: num(w.ev_percent, 3), unseen: w.unseen.join(' '),
      }))))) : '')));
}

/** The surveillance report's lines across tables: each player's wager at two or more tables, their tests combined. */
export function acrossList(r, limit = 50) {
  const lines = (r.across || []).slice(0, limit);
  if (!lines.length) return el('p', { class: 'muted' }, tr('rate.no_across'));
  return el('ol', { class: 'notices', testid: 'across' }, lines.map((l) => el('li',
    { testid: `across-${l.player}-${l.bet}`, class: l.flagged ? 'flagged' : null },
    l.flagged ? el('span', { class: 'badge off', testid: 'across-flag' }, tr('rate.flagged')) : '', ' ',
    el('strong', {}, tr('rate.across_line', { name: l.name || `#${l.player}`, tables: l.tables.map((t) => `#${t}`).join(', '), bet: l.bet })), ' ',
    tr('rate.across_figures', { wagers: l.wagers, coups: l.coups, positive: l.positive_wagers, z: num(l.z, 2) }))));
}
