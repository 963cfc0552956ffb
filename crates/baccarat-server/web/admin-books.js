// The back office's books: the casino's gaming day (its time zone and the
// hour a day ends; the admin sets it, from the next day not yet begun), and
// one gaming day's report (`/api/reports/day`): per table and for the
// casino the drop, the house's win, the hold, the theoretical win, fills
// and credits, coups, wagers and players; per player what they wagered and
// won and for how long; the cage's deposits and cash-outs; and below it the
// day's player ratings (`/api/ratings`, ratings-view.js). The figures are
// the server's, shown as they come; the CSV is the server's too.

import { BASE } from '/assets/common.js';
import { language, tr } from '/assets/i18n.js';
import { paceGrid, ratingsGrid } from '/assets/ratings-view.js';
import {
  $, call, canChange, el, errorText, fill, grid, money, options, percentBp, post, say,
} from '/assets/admin-base.js';

const books = { day: null, report: null, ratings: null };

export function init() {
  $('#report-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadReport(); });
  $('#report-date').value = today();
  if (!canChange()) return;
  fill($('#day-hour'), options(Array.from({ length: 24 }, (_, h) => [h, hour(h)]), 6));
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  fill($('#zones'), ['UTC', ...zones].map((z) => el('option', { value: z })));
  $('#day-form').addEventListener('submit', onSetDay);
}

/** Today's date where the browser is, as YYYY-MM-DD. */
function today() {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const hour = (h) => `${String(h).padStart(2, '0')}:00`;

export async function load() {
  books.day = await call('/api/casino/gaming-day');
  renderDay();
  if (canChange()) {
    $('#day-zone').value = books.day.zone;
    $('#day-hour').value = String(books.day.cutoff_hour);
  }
}

function renderDay() {
  if (!books.day) return;
  $('#day-now').textContent = tr('admin.books.day_now', { zone: books.day.zone, hour: hour(books.day.cutoff_hour) });
}

export function render() {
  renderDay();
  if (books.report) renderReport(books.report);
  if (books.ratings) renderRatings(books.ratings);
}

async function onSetDay(ev) {
  ev.preventDefault();
  const zone = $('#day-zone').value.trim();
  const cutoff = Number($('#day-hour').value);
  try {
    books.day = await post('/api/casino/gaming-day', { zone, cutoff_hour: cutoff });
    renderDay();
    say(tr('admin.books.day_saved', { zone: books.day.zone, hour: hour(books.day.cutoff_hour) }));
  } catch (e) {
    $('#errors').textContent = errorText(e);
  }
}

// ---------------------------------------------------------------------------
// The day's report

async function loadReport() {
  const date = $('#report-date').value;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    $('#errors').textContent = tr('admin.books.bad_date');
    return;
  }
  const q = new URLSearchParams({ date });
  try {
    books.report = await call(`/api/reports/day?${q}`);
  } catch (e) {
    books.report = null;
    fill($('#report'));
    $('#report-csv').hidden = true;
    $('#errors').textContent = errorText(e);
    return;
  }
  $('#errors').textContent = '';
  const csv = $('#report-csv');
  q.set('format', 'csv');
  csv.href = `${BASE}/api/reports/day?${q}`;
  csv.setAttribute('download', `gaming-day-${date}.csv`);
  csv.hidden = false;
  renderReport(books.report);
  await loadRatings(date);
}

/** The day's ratings (`/api/ratings`) below its report, with their CSV. */
async function loadRatings(date) {
  const q = new URLSearchParams({ day: date });
  try {
    books.ratings = await call(`/api/ratings?${q}`);
  } catch (e) {
    books.ratings = null;
    fill($('#ratings'));
    $('#errors').textContent = errorText(e);
    return;
  }
  renderRatings(books.ratings, q);
}

function renderRatings(r, q = new URLSearchParams({ day: r.date })) {
  q.set('format', 'csv');
  const csv = el('a', { class: 'btn secondary', testid: 'ratings-csv', href: `${BASE}/api/ratings?${q}`, download: `ratings-${r.date}.csv` },
    tr('admin.books.csv'));
  fill($('#ratings'),
    el('div', { class: 'panel' },
      el('h3', { testid: 'ratings-title' }, tr('rate.title')),
      el('p', { class: 'muted small' }, tr('rate.note')), csv,
      ratingsGrid(r), paceGrid(r)));
}

/** A moment (ms) in the report's zone, else in UTC (named). */
function when(ms, zone) {
  try {
    return new Intl.DateTimeFormat(language(), { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' }).format(ms);
  } catch (_) {
    return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  }
}

function renderReport(r) {
  const span = tr('admin.books.span', { from: when(r.from_ms, r.zone), to: when(r.to_ms, r.zone), zone: r.zone });
  fill($('#report'),
    el('div', { class: 'panel' },
      el('h3', { testid: 'report-title', data: { date: r.date } }, tr('admin.books.report_for', { date: r.date })),
      el('p', { class: 'muted' }, span),
      el('p', { class: 'muted small' }, tr('admin.books.win_note')),
      totals(r.casino, r.cash)),
    el('div', { class: 'panel' }, tablesGrid(r.tables)),
    el('div', { class: 'panel' }, playersGrid(r.players)));
}

/** The casino's figures, and the cage's, as a list of terms. */
function totals(c, cash) {
  const items = [
    ['drop', tr('admin.books.drop'), money(c.drop)],
    ['win', tr('admin.books.win'), money(c.win)],
    ['hold', tr('admin.books.hold'), percentBp(c.hold_bp)],
    ['theo', tr('admin.books.theo'), money(c.theo)],
    ['fills', tr('admin.books.fills'), money(c.fills)],
    ['credits', tr('admin.books.credits'), money(c.credits)],
    ['coups', tr('admin.books.coups'), String(c.coups)],
    ['wagers', tr('admin.books.wagers'), String(c.wagers)],
    ['players', tr('admin.books.players'), String(c.players)],
    ['deposits', tr('admin.books.deposits'), money(cash.deposits)],
    ['cash_outs', tr('admin.books.cash_outs'), money(cash.cash_outs)],
  ];
  return el('dl', { class: 'totals', testid: 'report-casino' },
    items.map(([k, term, value]) => el('div', { testid: `report-casino-${k}` }, el('dt', {}, term), el('dd', {}, value))));
}


function tablesGrid(tables) {
  const heads = [tr('admin.col.name'), tr('admin.books.drop'), tr('admin.books.win'), tr('admin.books.hold'), tr('admin.books.theo'),
    tr('admin.books.fills'), tr('admin.books.credits'), tr('admin.books.coups'), tr('admin.books.wagers'), tr('admin.books.players')];
  const rows = tables.map((t) => [t.table, [[t.name], [money(t.drop), 1], [money(t.win), 1], [percentBp(t.hold_bp), 1],
    [money(t.theo), 1], [money(t.fills), 1], [money(t.credits), 1], [String(t.coups), 1], [String(t.wagers), 1], [String(t.players), 1]]]);
  return grid('report-tables', tr('admin.books.by_table'), heads, rows, tr('admin.books.no_tables'));
}

function playersGrid(players) {
  const heads = [tr('admin.col.name'), tr('admin.books.wagered'), tr('admin.books.won'), tr('admin.books.minutes')];
  const rows = players.map((p) => [p.player, [[p.name], [money(p.wagered), 1], [money(p.won), 1], [String(p.minutes), 1]]]);
  return grid('report-players', tr('admin.books.by_player'), heads, rows, tr('admin.books.no_players'));
}
