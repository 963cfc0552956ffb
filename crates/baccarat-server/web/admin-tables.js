// The back office's tables: every table with its rulebook, limits and
// state, and for the admin a fill or a credit of its float from or to the
// cage (each with its idempotency key), and closing it for good. A new
// table's form is admin-table-form.js.

import { phaseWords } from '/assets/common.js';
import { tr } from '/assets/i18n.js';
import {
  $, amountIn, answered, ask, call, canChange, el, fill, keyFor, money, post, say,
} from '/assets/admin-base.js';

/** The tables as last loaded, and each float a fill or credit reported. */
const seen = { tables: [], floats: {} };

/** The keys of the fills and credits being sent, per table and kind. */
const keys = {};

export async function load() {
  const r = await call('/api/tables');
  seen.tables = r.tables;
  render();
}

export function render() {
  const rows = seen.tables.map(row);
  fill($('#tables-rows'), rows.length ? rows : el('tr', {}, el('td', { colspan: 8, class: 'muted' }, tr('admin.tables.none'))));
}

/** A table's state in words: closed for good, closing, not open, or its phase. */
function status(t) {
  if (t.closed) return tr('admin.tables.closed');
  if (t.closing) return tr('admin.tables.closing');
  if (!t.open) return tr('admin.tables.not_open');
  return phaseWords(t.phase);
}

function row(t) {
  const float = seen.floats[t.id];
  return el('tr', { testid: `table-${t.id}`, data: { name: t.name, closed: String(!!t.closed) } },
    el('td', { class: 'num' }, String(t.id)),
    el('td', {}, t.name),
    el('td', {}, t.rulebook_title || t.rulebook),
    el('td', {}, t.mode === 'live' ? tr('mode.live') : tr('mode.rng')),
    el('td', { class: 'num' }, `${money(t.min)} – ${money(t.max)}`),
    el('td', { testid: `table-status-${t.id}` }, status(t)),
    el('td', { class: 'num', testid: `table-float-${t.id}` }, float === undefined ? '—' : money(float)),
    canChange() ? el('td', {}, t.closed ? '—' : el('div', { class: 'acts' }, actions(t))) : null);
}

function actions(t) {
  const button = (act, label, onClick, cls) => el('button', {
    type: 'button', class: cls || 'secondary', testid: `table-${act}-${t.id}`,
    'aria-label': `${label}: ${t.name}`, on: { click: onClick },
  }, label);
  return [
    button('fill', tr('admin.tables.fill'), () => move(t, 'fill')),
    button('credit', tr('admin.tables.credit'), () => move(t, 'credit')),
    t.closing ? null : button('close', tr('admin.tables.close'), () => closeTable(t), 'danger'),
  ];
}

/** A fill (cage to the table's float) or a credit (the float to the cage). */
function move(t, kind) {
  const fillIt = kind === 'fill';
  ask({
    title: fillIt ? tr('admin.tables.fill_title', { name: t.name }) : tr('admin.tables.credit_title', { name: t.name }),
    intro: fillIt ? tr('admin.tables.fill_intro') : tr('admin.tables.credit_intro'),
    fields: [{ id: 'amount', label: tr('admin.cage.amount'), inputmode: 'decimal' }],
    confirm: fillIt ? tr('admin.tables.fill') : tr('admin.tables.credit'),
    submit: async () => {
      const amount = amountIn($('#dlg-f-amount'), tr('admin.cage.amount'));
      const holder = (keys[`${kind}-${t.id}`] ||= {});
      const key = keyFor(holder, { amount });
      let r;
      try {
        r = await post(`/api/tables/${t.id}/${kind}`, { amount, key });
        answered(holder, null);
      } catch (e) {
        answered(holder, e);
        throw e;
      }
      seen.floats[t.id] = r.float;
      const words = { name: t.name, amount: money(amount), float: money(r.float) };
      say(fillIt ? tr('admin.tables.filled', words) : tr('admin.tables.credited', words));
      render();
    },
  });
}

function closeTable(t) {
  ask({
    title: tr('admin.tables.close_title', { name: t.name }),
    intro: tr('admin.tables.close_intro'),
    confirm: tr('admin.tables.close'),
    danger: true,
    submit: async () => {
      const r = await post(`/api/tables/${t.id}/close`);
      say(r.closed
        ? tr('admin.tables.closed_now', { name: t.name, credited: money(r.credited) })
        : tr('admin.tables.closing_now', { name: t.name }));
      await load();
    },
  });
}
