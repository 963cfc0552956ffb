// The back office's cage (the admin's): a player found by name, money
// into their wallet (a deposit) and out of it (a cash-out, at most what
// their open wagers leave free: the server says both figures when it
// refuses). Each request carries an idempotency key, kept for a retry
// whose first answer was lost, so a retry never pays twice.

import { tr } from '/assets/i18n.js';
import {
  $, amountIn, answered, call, canChange, el, errorText, fill, keyFor, money, options, post,
} from '/assets/admin-base.js';

const found = { players: [] };
const keys = { deposit: {}, cashout: {} };

export function init() {
  if (!canChange()) return;
  $('#cage-find').addEventListener('submit', (ev) => { ev.preventDefault(); load(); });
  $('#deposit-form').addEventListener('submit', (ev) => { ev.preventDefault(); move('deposit'); });
  $('#cashout-form').addEventListener('submit', (ev) => { ev.preventDefault(); move('cashout'); });
}

/** The players whose name holds what was typed (the first 50). */
export async function load() {
  if (!canChange()) return;
  const q = new URLSearchParams({ role: 'player', limit: '50' });
  const text = $('#cage-q').value.trim();
  if (text) q.set('q', text);
  const r = await call(`/api/users?${q}`);
  found.players = r.users;
  render();
}

export function render() {
  if (!canChange()) return;
  const chosen = $('#cage-player').value;
  const pairs = found.players.map((p) => [p.id, p.disabled
    ? tr('admin.cage.player_disabled', { name: p.name, id: p.id })
    : tr('admin.cage.player_is', { name: p.name, id: p.id })]);
  fill($('#cage-player'), pairs.length ? options(pairs, chosen) : el('option', { value: '' }, tr('admin.cage.no_player')));
}

/** A deposit or a cash-out for the chosen player, its answer beside the form. */
async function move(kind) {
  const out = $(kind === 'deposit' ? '#deposit-result' : '#cashout-result');
  out.textContent = '';
  out.dataset.state = '';
  const player = found.players.find((p) => String(p.id) === $('#cage-player').value);
  let amount;
  try {
    if (!player) throw new Error(tr('admin.cage.pick_player'));
    amount = amountIn($(kind === 'deposit' ? '#deposit-amount' : '#cashout-amount'), tr('admin.cage.amount'));
  } catch (e) {
    out.dataset.state = 'error';
    out.textContent = e.message;
    return;
  }
  const holder = keys[kind];
  const key = keyFor(holder, { player: player.id, amount });
  const path = kind === 'deposit' ? `/api/players/${player.id}/deposit` : `/api/players/${player.id}/cash-out`;
  try {
    const r = await post(path, { amount, key });
    answered(holder, null);
    out.dataset.state = 'ok';
    out.textContent = kind === 'deposit'
      ? tr('admin.cage.deposited', { amount: money(amount), name: player.name, balance: money(r.balance) })
      : tr('admin.cage.cashed_out', { amount: money(r.cashed_out), name: player.name, balance: money(r.balance) });
  } catch (e) {
    answered(holder, e);
    out.dataset.state = 'error';
    out.textContent = errorText(e);
  }
}
