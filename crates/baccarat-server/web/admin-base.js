// The back office's shared parts: who is signed in and what they may do,
// elements built with their text as text (textContent: nothing a person or
// the server wrote is ever parsed as markup), the messages, the one dialog,
// amounts typed by a person, and the idempotency keys of money forms.

import { ApiError, api, login, logout, money, newKey, parseMoney, $ } from '/assets/common.js';
import { tr } from '/assets/i18n.js';

export { $, money };

/** Who is signed in: { id, name, role }. */
export const state = { user: null };

/** Only the admin changes anything; the inspector reads (the server refuses
 * anyone else's change anyway: this only spares them buttons that fail). */
export const canChange = () => !!state.user && state.user.role === 'admin';

/** Every role a person may have, as the server names them (`Role::name`). */
export const ROLES = ['player', 'dealer', 'supervisor', 'inspector', 'admin', 'tournament_manager', 'surveillance'];

export const roleWords = (role) => tr(`admin.role.${role}`);

/**
 * A staff page's sign-in form (`#login-…`): a person of one of `roles`
 * goes on to `enter({ id, name, role })`; anyone else is signed out again
 * and told so in words (`refused`: the message's key, given `{role}`).
 */
export async function signInWith(roles, enter, refused) {
  const out = $('#login-error');
  out.textContent = '';
  const name = $('#login-name').value.trim();
  const password = $('#login-password').value;
  if (!name || !password) {
    out.textContent = tr('login.missing');
    return;
  }
  try {
    const r = await login(name, password);
    if (!roles.includes(r.role)) {
      await logout();
      out.textContent = tr(refused, { role: roleWords(r.role) });
      return;
    }
    $('#login-password').value = '';
    await enter({ id: r.user, name: r.name, role: r.role });
  } catch (e) {
    out.textContent = e instanceof ApiError && e.status === 401 ? tr('login.wrong') : e.message;
  }
}

/** What a page does when the session ends under it (set by admin.js). */
export const hooks = { expired: () => {} };

/**
 * An element. `attrs`: `class`, `testid`, `data` (an object for dataset),
 * `on` (event -> handler), anything else as an attribute (`true`: present,
 * `false`/`null`/`undefined`: left out). Children: nodes, or strings, which
 * become text nodes.
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'testid') e.dataset.testid = v;
    else if (k === 'data') Object.assign(e.dataset, v);
    else if (k === 'on') for (const [name, f] of Object.entries(v)) e.addEventListener(name, f);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  put(e, children);
  return e;
}

function put(parent, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    parent.append(c instanceof Node ? c : String(c));
  }
}

/** Replace `parent`'s children with `children` (as `el` takes them). */
export function fill(parent, ...children) {
  parent.replaceChildren();
  put(parent, children);
}

/** `<option>`s from [value, label] pairs, `selected` chosen. */
export function options(pairs, selected) {
  return pairs.map(([value, label]) => el('option', { value, selected: String(value) === String(selected) }, label));
}

/** Call the API; a session that has ended sends the person to sign in. */
export async function call(path, opts) {
  try {
    return await api(path, opts);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) hooks.expired();
    throw e;
  }
}

/** POST `body` to `path`. */
export const post = (path, body = {}) => call(path, { method: 'POST', body });

// ---------------------------------------------------------------------------
// Messages

export function say(text) {
  $('#status').textContent = text;
}

/** A refusal in words: the server's message names the field or the rule. */
export function errorText(e) {
  return e instanceof ApiError ? e.message : String((e && e.message) || e);
}

export function showError(e) {
  $('#errors').textContent = errorText(e);
}

export function clearMessages() {
  $('#errors').textContent = '';
  $('#status').textContent = '';
}

// ---------------------------------------------------------------------------
// Amounts and keys

/** A problem the page finds itself, before asking the server. */
export class FieldError extends Error {}

/** The amount typed into `input` ("100", "100.50", "$1,000") in minor
 * units, more than zero; else a FieldError naming the field. */
export function amountIn(input, field) {
  const v = parseMoney(String(input.value).replace(/,/g, ''));
  if (v === null || v <= 0) throw new FieldError(tr('admin.bad_amount', { field }));
  return v;
}

/**
 * The idempotency key of one money request, kept in `holder` while the
 * same request may be sent again because its answer was lost (no answer,
 * or the server could not say whether it was taken): so a retry cannot
 * move the money twice. A changed request, or one answered, gets a new key.
 */
export function keyFor(holder, body) {
  const sig = JSON.stringify(body);
  if (!holder.key || holder.sig !== sig) {
    holder.key = newKey('office');
    holder.sig = sig;
  }
  return holder.key;
}

/** After an attempt: forget the key unless the outcome is unknown. */
export function answered(holder, error) {
  if (!error || !outcomeUnknown(error)) holder.key = null;
}

function outcomeUnknown(e) {
  if (!(e instanceof ApiError)) return false;
  return e.status === 0 || e.status === 503 || (e.body && e.body.code === 'outcome_unknown');
}

/** Basis points as a percentage, in integers: 1234 -> "12.34%". */
export function percentBp(bp) {
  if (bp === null || bp === undefined) return '—';
  const n = BigInt(bp);
  const abs = n < 0n ? -n : n;
  return `${n < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}%`;
}

// ---------------------------------------------------------------------------
// The dialog: a question, its fields, and what confirming does. It stays
// open on a refusal, showing it, so the person can correct and confirm again.

let asked = null;

export function setupDialog() {
  $('#dlg-cancel').addEventListener('click', closeDialog);
  $('#dialog').addEventListener('cancel', (ev) => { ev.preventDefault(); closeDialog(); });
  $('#dlg-form').addEventListener('submit', onConfirm);
}

/**
 * Ask: `{ title, intro, fields: [{ id, label, type, options, value, help }],
 * confirm, danger, submit(values) }`. `submit` does the work; what it throws
 * is shown in the dialog.
 */
export function ask(spec) {
  asked = spec;
  $('#dlg-title').textContent = spec.title;
  $('#dlg-intro').textContent = spec.intro || '';
  fill($('#dlg-fields'), (spec.fields || []).map(dialogField));
  $('#dlg-error').textContent = '';
  const confirm = $('#dlg-confirm');
  confirm.textContent = spec.confirm || tr('admin.confirm');
  confirm.className = spec.danger ? 'danger' : '';
  $('#dialog').showModal();
  ($('#dlg-fields input, #dlg-fields select') || confirm).focus();
}

function dialogField(f) {
  const id = `dlg-f-${f.id}`;
  const input = f.options
    ? el('select', { id, testid: `dialog-${f.id}` }, options(f.options, f.value))
    : el('input', {
      id,
      testid: `dialog-${f.id}`,
      type: f.type || 'text',
      value: f.value || '',
      inputmode: f.inputmode,
      autocomplete: f.type === 'password' ? 'new-password' : 'off',
      'aria-describedby': f.help ? `${id}-help` : null,
    });
  const help = f.help ? el('span', { id: `${id}-help`, class: 'reason' }, f.help) : null;
  return el('div', { class: 'field' }, el('label', { for: id }, f.label), input, help);
}

async function onConfirm(ev) {
  ev.preventDefault();
  const spec = asked;
  if (!spec) return;
  const values = {};
  for (const f of spec.fields || []) values[f.id] = $(`#dlg-f-${f.id}`).value;
  const button = $('#dlg-confirm');
  button.disabled = true;
  try {
    await spec.submit(values);
    closeDialog();
  } catch (e) {
    $('#dlg-error').textContent = errorText(e);
  } finally {
    button.disabled = false;
  }
}

function closeDialog() {
  asked = null;
  if ($('#dialog').open) $('#dialog').close();
}

/**
 * A grid with a caption, headers and rows `[id, cells, rowClass]` of cells
 * `[text, numeric]`; `none` when there is no row. Scrolls sideways on a phone.
 */
export function grid(testid, caption, heads, rows, none) {
  const body = rows.length
    ? rows.map(([id, cells, cls]) => el('tr', { testid: `${testid}-${id}`, class: cls || null },
      cells.map(([text, n]) => el('td', { class: n ? 'num' : null }, text))))
    : el('tr', {}, el('td', { colspan: heads.length, class: 'muted' }, none));
  return el('div', { class: 'scroll-x', tabindex: 0, role: 'group', 'aria-label': caption }, el('table', { class: 'grid', testid },
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, heads.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, body)));
}
